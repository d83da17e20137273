/// A broken invariant of a context's object graph, found by ``ObjectContext/checkInvariants()``.
struct ContextInvariantViolation: Error, CustomStringConvertible {
    /// What kind of invariant a problem breaks.
    enum Kind: Sendable, Hashable {
        /// Registration: one object per ID, registered under its own ID, owned by this context.
        case identity
        /// The pending inserted/updated/deleted sets disagree with the objects' flags or the registry.
        case pendingSets
        /// A loaded relationship holds an object that is not a live object of this context.
        case foreignTarget
        /// A loaded relationship and its loaded inverse disagree.
        case inverseMismatch
    }

    /// One broken invariant.
    struct Problem: Sendable, Hashable, CustomStringConvertible {
        var kind: Kind
        var message: String
        var description: String { "[\(kind)] \(message)" }
    }

    /// The context that was checked.
    var context: String
    /// Every problem found.
    var problems: [Problem]

    var description: String {
        "\(problems.count) invariant violation(s) in \(context):\n  " + problems.map(\.description).joined(separator: "\n  ")
    }
}

extension ObjectContext {
    /// Verifies the context's object graph and throws a ``ContextInvariantViolation`` listing
    /// every problem. Meant for tests: call it on the context's queue after every step.
    ///
    /// It reads storage directly, so it never fires a fault, loads a relationship or changes
    /// anything. It checks that:
    /// - each registered object is registered under its own ID, owned by this context, and
    ///   appears under one ID only (one object per ID);
    /// - every object in the pending inserted/updated/deleted sets is registered, carries the
    ///   matching lifecycle flags, and a registered deleted object is a pending delete (so
    ///   no deleted object stays registered after a save);
    /// - for every registered, loaded, non-deleted object, every loaded relationship target is
    ///   an object of this context, and the target's inverse, when loaded, points back
    ///   (to-one: that object, or its ID while unresolved; to-many: contains it).
    ///
    /// Each problem carries its ``ContextInvariantViolation/Kind``. Every kind must hold at all
    /// times, inverses included: rows, loads and merges arriving at different moments bring
    /// the loaded inverse sides along (`ObjectContext+Inverses.swift`, docs/concurrency.md rule 4).
    ///
    /// For example:
    /// ```swift
    /// try context.performAndWait { try context.checkInvariants() }
    /// ```
    func checkInvariants() throws {
        checkQueue()
        var problems: [ContextInvariantViolation.Problem] = []
        var seen = Set<ObjectIdentifier>()
        for (id, object) in registry.entries {
            if object.objectID != id { problems.append(.init(kind: .identity, message: "\(object) is registered under \(id).")) }
            if object.storageOwner !== self { problems.append(.init(kind: .identity, message: "\(object) is registered here but owned by another context (or none).")) }
            if !seen.insert(ObjectIdentifier(object)).inserted { problems.append(.init(kind: .identity, message: "\(object) is registered under two IDs.")) }
            if object.lifecycle.isDeleted && !pending.deleted.contains(object) { problems.append(.init(kind: .pendingSets, message: "\(object) is deleted but still registered.")) }
        }
        for object in pending.inserted where !object.lifecycle.isInserted || registry[object.objectID] !== object {
            problems.append(.init(kind: .pendingSets, message: "\(object) is pending insert but not flagged inserted or not registered."))
        }
        for object in pending.updated where object.lifecycle.isInserted || object.lifecycle.isDeleted || registry[object.objectID] !== object {
            problems.append(.init(kind: .pendingSets, message: "\(object) is pending update but is inserted, deleted or not registered."))
        }
        for object in pending.deleted where !object.lifecycle.isDeleted || registry[object.objectID] !== object {
            problems.append(.init(kind: .pendingSets, message: "\(object) is pending delete but not flagged deleted or not registered."))
        }
        for object in registry.all where !object.lifecycle.isFault && !object.lifecycle.isDeleted {
            checkRelationships(of: object, into: &problems)
        }
        if !problems.isEmpty { throw ContextInvariantViolation(context: name, problems: problems) }
    }

    /// The relationship checks for one loaded, live object.
    private func checkRelationships(of object: ManagedObject, into problems: inout [ContextInvariantViolation.Problem]) {
        let entity = object.entity
        guard object.relationValues.count == entity.relationships.count else {
            problems.append(.init(kind: .identity, message: "\(object) is loaded with \(object.relationValues.count) relationship slots, not \(entity.relationships.count)."))
            return
        }
        for (index, relationship) in entity.relationships.enumerated() {
            let inverse = relationship.inverseIndex
            let targets: [ManagedObject]
            switch object.relationValues[index] {
            case .unloaded, .toOne(nil), .toOneID(nil):
                continue
            case .toOne(let target?):
                targets = [target]
            case .toMany(let members):
                targets = Array(members)
            case .toOneID(let id?):
                // Unresolved: only a registered, loaded target can be checked.
                guard let target = registry[id] else { continue }
                targets = [target]
            }
            for target in targets {
                let path = "\(object).\(relationship.name) → \(target)"
                guard target.storageOwner === self, registry[target.objectID] === target else {
                    problems.append(.init(kind: .foreignTarget, message: "\(path): the target is not an object of this context."))
                    continue
                }
                guard !target.lifecycle.isFault, inverse < target.relationValues.count else { continue }
                switch target.relationValues[inverse] {
                case .unloaded:
                    continue
                case .toOne(let back):
                    if back !== object { problems.append(.init(kind: .inverseMismatch, message: "\(path): the inverse points to \(back.map { "\($0)" } ?? "nil").")) }
                case .toOneID(let back):
                    if back != object.objectID { problems.append(.init(kind: .inverseMismatch, message: "\(path): the inverse points to ID \(back.map { "\($0)" } ?? "nil").")) }
                case .toMany(let members):
                    if !members.contains(object) { problems.append(.init(kind: .inverseMismatch, message: "\(path): the inverse does not contain it.")) }
                }
            }
        }
    }
}
