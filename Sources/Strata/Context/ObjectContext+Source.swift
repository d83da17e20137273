import Foundation

/// A context's side of the row source: running a child's question on this context's queue,
/// and answering it from the objects held here (unsaved changes included) or from below.
extension ObjectContext {
    /// Runs `body` on the context's queue and waits (inline when already there).
    func syncOnQueue<T>(_ body: () throws(StrataError) -> T) throws(StrataError) -> T {
        var result: Result<T, StrataError>?
        queue.sync {
            settleSave()            // a child reads after the save in flight, as after `save()`
            catchUpPermanentIDs()   // answer under the IDs the asking child may already use
            result = Result { () throws(StrataError) -> T in try body() }
        }
        guard let result else { throw StrataError(.storeFailure, "The work did not run on \(name).") }
        return try result.get()
    }

    // MARK: Answering children

    /// Snapshots of `ids` for a child: registered, loaded objects as they are now (unsaved
    /// changes included, deleted ones absent), the rest from below.
    /// `staleness` is the asking child's (see ``stalenessInterval``).
    func snapshots(of entity: EntityDescription, ids: [ObjectID], staleness: TimeInterval) throws(StrataError) -> [RowSnapshot] {
        var result: [RowSnapshot] = []
        var missing: [ObjectID] = []
        var askedAs: [ObjectID: ObjectID] = [:]   // permanent ID → the temporary one a child still uses
        for id in ids {
            let current = registry.current(id)
            if current != id { askedAs[current] = id }
            if let object = registry[current], !object.lifecycle.isFault {
                if object.lifecycle.isDeleted || object.valueErrors[-1] != nil { continue }
                var row = snapshot(of: object)
                row.id = id                        // answer under the ID the child asked with
                result.append(row)
            } else {
                missing.append(current)
            }
        }
        if !missing.isEmpty {
            for var row in try source.rows(of: entity, ids: missing, staleness: staleness) {
                if let asked = askedAs[row.id] { row.id = asked }
                result.append(row)
            }
        }
        return result
    }

    /// An object's current state as a snapshot.
    func snapshot(of object: ManagedObject) -> RowSnapshot {
        let relations = object.relationValues.map { value -> RelationValue in
            switch value {
            case .toOne(let target): .toOneID(target?.objectID)
            case .toOneID, .unloaded: value
            case .toMany: .unloaded
            }
        }
        return RowSnapshot(id: object.objectID, version: object.rowVersion, attributes: object.attributeValues,
                           relationValues: relations, errors: object.valueErrors.filter { $0.key >= 0 })
    }

    /// Relationship destinations for a child: from loaded objects here, the rest from below.
    func related(of entity: EntityDescription, relationship index: Int, ids: [ObjectID]) throws(StrataError) -> [ObjectID: [ObjectID]] {
        var result: [ObjectID: [ObjectID]] = [:]
        var missing: [ObjectID] = []
        var askedAs: [ObjectID: ObjectID] = [:]
        for id in ids {
            let current = registry.current(id)
            if current != id { askedAs[current] = id }
            guard let object = registry[current], !object.lifecycle.isFault else { missing.append(current); continue }
            switch object.relationValues[index] {
            case .toMany(let targets): result[id] = targets.filter { !$0.lifecycle.isDeleted }.map(\.objectID)
            case .toOne(let target): result[id] = target.map { [$0.objectID] } ?? []
            case .toOneID(let target): result[id] = target.map { [$0] } ?? []
            case .unloaded: missing.append(id)
            }
        }
        if !missing.isEmpty {
            let below = try source.related(of: entity, relationship: index, ids: missing)
            for id in missing { result[askedAs[id] ?? id] = (below[id] ?? []).filter { registry[$0]?.lifecycle.isDeleted != true } }
        }
        return result
    }
}
