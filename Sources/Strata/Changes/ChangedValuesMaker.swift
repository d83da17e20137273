/// Makes the ``ObjectChange/changedValues`` dictionaries of many changes, as a save's report
/// lists them.
///
/// A change of the same attributes of the same entity as the change before it (an editor's
/// commit, a writer's edit of many rows, an import's pass) gets a copy of that change's
/// dictionary with its own values set in place. A copy keeps its original's table, so the
/// positions of the keys found once stay valid and no key is hashed again; hashing the names
/// into a new table was most of a dictionary's cost (about 1 200 instructions for two keys).
/// A change that writes relationships is made the plain way.
///
/// For example (inside the engine):
/// ```swift
/// var maker = ChangedValuesMaker()
/// for change in batch.updated { changes.updated[change.id] = maker.values(of: change) }
/// ```
struct ChangedValuesMaker {
    private typealias Values = [String: PropertyValue]

    /// The last change's shape, its dictionary and where each changed slot's key sits in it.
    private struct Template {
        var shape: ObjectChange.AttributeShape
        var dictionary: Values
        var positions: [(slot: Int, index: Values.Index)]
    }

    private var last: Template?

    /// The changed keys of `change` with their new values (``ObjectChange/changedValues``).
    mutating func values(of change: ObjectChange) -> [String: PropertyValue] {
        guard change.relations.isEmpty else { return change.changedValues }
        let entity = change.id.entity
        let values = change.values
        let shape = change.attributeShape
        if let last, last.shape == shape {
            var result = last.dictionary
            for (slot, index) in last.positions { result.values[index] = values[slot] }
            return result
        }
        let result = change.changedValues
        var positions: [(slot: Int, index: Values.Index)] = []
        for slot in values.indices where change.changesAttribute(at: slot) {
            guard let index = result.index(forKey: entity.attributes[slot].name) else {
                last = nil
                return result
            }
            positions.append((slot, index))
        }
        last = Template(shape: shape, dictionary: result, positions: positions)
        return result
    }
}
