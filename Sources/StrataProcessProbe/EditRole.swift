import Foundation
import Strata

/// One save of the shared row, timed by the parent: reads it, says "ready", waits for a line
/// on stdin, then sets `label` and adds one to the writer's key and saves. Says "saved", or
/// "conflict <key>|<original>|<ours>|<stored>" for each conflicting key of a `.conflict`, or
/// "failed <code> hasChanges=<bool>" for another error.
struct EditRole {
    let coordinator: StoreCoordinator
    let policy: MergePolicy
    let writer: String
    let label: String

    func run() async {
        let context = ObjectContext(.privateQueue, coordinator: coordinator, name: "edit-\(writer)", mergePolicy: policy)
        let writer = self.writer, label = self.label
        do {
            let id = try await context.perform { try ProbeModel.sharedTally(in: context).objectID }
            emit("ready")
            _ = readLine()
            let lines = try await context.perform { () throws -> [String] in
                let tally = context.object(with: id)
                try tally.setValue(((tally.value(forKey: writer) as? Int64) ?? 0) + 1, forKey: writer)
                try tally.setValue(label, forKey: "label")
                do {
                    try context.save()
                    return ["saved"]
                } catch let error as StrataError where error.code == .conflict {
                    return error.conflicts.map { "conflict \($0.key ?? "-")|\(text($0.originalValue))|\(text($0.ourValue))|\(text($0.storedValue))" }
                } catch let error as StrataError {
                    return ["failed \(error.code) hasChanges=\(context.hasChanges)"]
                }
            }
            lines.forEach(emit)
        } catch {
            fail("edit \(writer): \(error)", status: 2)
        }
    }
}

/// A stored value as plain text (strings and integers bare).
func text(_ value: PropertyValue) -> String {
    switch value {
    case .string(let s): s
    case .integer(let i): "\(i)"
    case .null: "nil"
    default: "\(value)"
    }
}
