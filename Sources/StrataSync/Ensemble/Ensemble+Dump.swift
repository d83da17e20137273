import Foundation
import Strata

extension Ensemble {
    /// The store's objects as text that is the same on every peer holding the same objects:
    /// one line per object, sorted, naming objects by their global identifiers (rows and
    /// primary keys differ between peers), every attribute and both sides of every
    /// relationship. Objects the ensemble has not exported yet are named `?<row>`. For tests,
    /// support, and checking that peers converged.
    ///
    /// For example:
    /// ```swift
    /// let same = try await first.canonicalDump() == second.canonicalDump()
    /// ```
    public func canonicalDump() async throws(SyncError) -> String {
        let current = try requireState()
        let model = self.model
        let context = ObjectContext(.privateQueue, coordinator: coordinator, name: "strata.sync.dump")
        let rows: [(ObjectID, [String: PropertyValue])]
        do {
            rows = try await context.perform {
                var rows: [(ObjectID, [String: PropertyValue])] = []
                for entity in model.model.entities {
                    // A fetch of a superentity returns its subentities' objects: each is dumped under its own.
                    for object in try context.fetch(FetchRequest<ManagedObject>(entityName: entity.name)) where object.entity === entity {
                        var values: [String: PropertyValue] = [:]
                        for name in entity.attributes.map(\.name) + entity.relationships.map(\.name) { values[name] = object.primitiveValue(forKey: name) }
                        rows.append((object.objectID, values))
                    }
                }
                return rows
            }
        } catch {
            throw SyncError(.storeFailure, "the store could not be read: \(error)", underlying: error as? StrataError)
        }
        return try current.read { tx in
            func name(_ id: ObjectID) throws -> String {
                guard let key = id.primaryKey else { return "?temporary" }
                return try tx.gid(entity: id.entity.name, localKey: key) ?? "?\(key)"
            }
            var lines: [String] = []
            for (id, values) in rows {
                var fields: [String] = []
                for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                    switch value {
                    case .objectID(let target): fields.append("\(key)=\(try name(target))")
                    case .objectIDs(let members):
                        var names = try members.map(name)
                        if !(id.entity.relationship(named: key)?.isOrdered ?? false) { names.sort() }
                        fields.append("\(key)=[\(names.joined(separator: ","))]")
                    default: fields.append("\(key)=\(value)")
                    }
                }
                lines.append("\(id.entity.name) \(try name(id)) \(fields.joined(separator: " "))")
            }
            return lines.sorted().joined(separator: "\n")
        }
    }
}
