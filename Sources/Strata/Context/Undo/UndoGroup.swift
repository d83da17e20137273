import OrderedCollections

/// One group of an undo history: for each object it touched, the object's presence in the
/// context and each changed property's value as they were before the group's first change.
/// Undoing puts those back; what was there instead becomes the group to redo.
///
/// For example (inside the engine):
/// ```swift
/// let step = group.step(for: note, presence: .live)
/// if step.attributes[slot] == nil { step.attributes[slot] = note.attributeValues[slot] }
/// ```
final class UndoGroup {
    /// Where an object stood in the context.
    enum Presence: Equatable {
        /// Not in the context: inserted later in the group (or its insert undone).
        case absent
        /// Registered and not deleted.
        case live
        /// Deleted, not saved yet.
        case deleted
    }

    /// One object's part of the group.
    final class Step {
        let object: ManagedObject
        /// Its presence before the group.
        let presence: Presence
        /// Attribute values before the group's first change of each, by slot.
        var attributes: [Int: PropertyValue] = [:]
        /// Relationship states before the group's first change of each, by slot.
        var relations: [Int: RelationValue] = [:]

        init(object: ManagedObject, presence: Presence) {
            self.object = object
            self.presence = presence
        }
    }

    /// The steps in the order the objects were first touched.
    private(set) var steps: OrderedDictionary<ObjectIdentifier, Step> = [:]

    /// Whether the group recorded nothing.
    var isEmpty: Bool { steps.isEmpty }

    /// The step of `object`, made with `presence` when it is the group's first touch of it.
    func step(for object: ManagedObject, presence: Presence) -> Step {
        if let step = steps[ObjectIdentifier(object)] { return step }
        let step = Step(object: object, presence: presence)
        steps[ObjectIdentifier(object)] = step
        return step
    }
}
