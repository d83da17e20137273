import Strata

/// The store's current values of some objects, read in a context and handed to the
/// ensemble's actor: attributes by name, canonical relationships as object IDs. An object
/// that is not in ``objects`` is gone from the store.
struct LocalSnapshot: Sendable {
    struct Object: Sendable {
        var attributes: [String: PropertyValue] = [:]
        var toOnes: [String: ObjectID] = [:]
        var toManys: [String: [ObjectID]] = [:]
    }

    var objects: [ObjectID: Object] = [:]

    /// Reads `ids` in `context` (on its queue), in groups of rows rather than one by one.
    static func read(_ ids: [ObjectID], in context: ObjectContext, model: SyncModel) -> LocalSnapshot {
        var snapshot = LocalSnapshot()
        _ = context.objects(with: ids)
        for id in ids {
            guard let plan = model.entities[id.entity.name], let object = try? context.existingObject(with: id) else { continue }
            var values = Object()
            for attribute in plan.attributes { values.attributes[attribute.name] = object.primitiveValue(forKey: attribute.name) }
            for relationship in plan.toOnes {
                if case .objectID(let target) = object.primitiveValue(forKey: relationship.name) { values.toOnes[relationship.name] = target }
            }
            for relationship in plan.toManys {
                if case .objectIDs(let members) = object.primitiveValue(forKey: relationship.name) { values.toManys[relationship.name] = members }
            }
            snapshot.objects[id] = values
        }
        return snapshot
    }
}
