import Foundation
import Strata

/// Saves `count` times: each save inserts one uniquely identified ``Entry`` and adds one to the
/// writer's key of the shared ``Tally`` row (and sets its label), then is acknowledged on stdout.
struct WriterRole {
    let coordinator: StoreCoordinator
    let writer: String
    let count: Int
    let policy: MergePolicy

    func run() async {
        let context = ObjectContext(.privateQueue, coordinator: coordinator, name: "writer-\(writer)", mergePolicy: policy)
        let writer = self.writer, count = self.count
        do {
            try await context.perform {
                let tally = try ProbeModel.sharedTally(in: context)
                // A restarted writer continues its sequence (the crash harness restarts it).
                let request = FetchRequest<Entry>(predicate: try ObjectPredicate("writer == %@", writer))
                let done = try context.count(for: request)
                for sequence in (done + 1)...(done + count) {
                    let entry = context.insert(Entry.self)
                    entry.token = "\(writer)-\(sequence)-\(UUID().uuidString)"
                    entry.writer = writer
                    entry.sequence = Int64(sequence)
                    try tally.setValue(Int64(sequence), forKey: writer)
                    tally.label = "\(writer)\(sequence)"
                    do {
                        try context.save()
                    } catch let error as StrataError {
                        // What the parent checks: the code, and that the context kept its changes.
                        emit("failed \(error.code) hasChanges=\(context.hasChanges)")
                        throw error
                    }
                    emit("ack \(writer) \(sequence) \(entry.token)")
                }
            }
        } catch {
            fail("writer \(writer): \(error)", status: 2)
        }
    }
}
