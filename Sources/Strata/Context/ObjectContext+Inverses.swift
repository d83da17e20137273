/// Where hints about the to-ones pointing at an object are filed: the object's ID and one of
/// its relationships (an index into the ID's entity's relationships), whose inverse is a to-one.
struct InverseLinkKey: Hashable {
    let id: ObjectID
    let relationship: Int
}

/// A to-one pointing at `target`, as filed (see ``ObjectContext/notePointer(to:holder:relationship:)``):
/// `relationship` is `target`'s relationship whose inverse is `holder`'s to-one.
struct PointerNote {
    let target: ObjectID
    let relationship: Int
    let holder: ManagedObject
}

/// Keeping the loaded inverse sides of a context's graph in agreement when relationship values
/// arrive from below (a row read, a to-many load, a merge, a refresh) rather than from a local
/// edit (local edits update both sides themselves, see `ManagedObject+Relationships`).
///
/// The rule (docs/concurrency.md, rule 4):
/// - a to-one read or merged into the context is the truth: the loaded to-many (or one-to-one)
///   inverses of its old and new partners follow it;
/// - a to-many loaded later agrees with the context's loaded partners: under a to-one inverse,
///   the partners' loaded to-ones win (a member whose loaded to-one points elsewhere is left
///   out, a loaded object whose to-one points here is added); under a to-many inverse
///   (many-to-many), the fresh load wins over the partners' loaded sides, except for pairs
///   the context changed and has not saved, which stay as edited.
///
/// Partners are found without scanning the context, from hints filed when a relationship is
/// loaded or written. A hint is checked before use (``holds(_:_:_:)``), so a stale one costs a
/// check, never a wrong answer. The hints are kept where they cost least on the hot paths:
/// - a loaded to-many holding a member is filed on the member itself (`ManagedObject.heldBy`,
///   see ``HeldBy``): a member is always a registered object, so filing is an append (the first
///   one inline, no allocation) and looking up an object nobody holds is an emptiness check;
/// - a loaded to-one pointing at an ID is filed by ID, since its target may not be registered
///   (a row names its partners by ID): appended to ``ObjectContext/pointerLog`` (no hashing on a
///   row read) and folded into ``ObjectContext/pointers`` (by ID and relationship) only when
///   someone asks, i.e. when a to-many with a to-one inverse loads, or a one-to-one is read.
///   Folding translates temporary IDs that became permanent meanwhile, drops holders that left
///   the context and removes repeats; the log is also folded when it outgrows the registry.
///
/// So a row read files one log entry per to-one and asks nothing unless a loaded to-many holds
/// the object (a fault loaded as a member before) or the to-one is one-to-one; a local edit
/// files one inline hint or one log entry per side; a save re-keys only folded hints.
extension ObjectContext {
    /// Files a hint that `holder`'s to-one `relationship` points at `id`.
    func notePointer(to id: ObjectID, holder: ManagedObject, relationship: Int) {
        logPointer(to: id, through: holder.entity.relationships[relationship].inverseIndex, holder: holder)
    }

    /// Files a hint that `holder`'s to-one, the inverse of `id`'s relationship `inverse`, points at `id`.
    private func logPointer(to id: ObjectID, through inverse: Int, holder: ManagedObject) {
        pointerLog.append(PointerNote(target: id, relationship: inverse, holder: holder))
        if pointerLog.count > 4 * registry.count + 4096 { foldPointers() }   // bounds the log
    }

    /// Files the logged pointers by ID and relationship.
    func foldPointers() {
        guard !pointerLog.isEmpty else { return }
        for note in pointerLog where note.holder.storageOwner === self {
            var id = note.target
            id = registry.current(id)
            pointers[InverseLinkKey(id: id, relationship: note.relationship), default: []].insert(note.holder)
        }
        pointerLog.removeAll()
    }

    /// Moves the folded hints filed under a temporary ID to the object's permanent ID (logged
    /// ones are translated when folded; hints filed on the object move with it).
    func relink(from temporary: ObjectID, to permanent: ObjectID) {
        guard !pointers.isEmpty else { return }
        for index in temporary.entity.relationships.indices {
            guard let holders = pointers.removeValue(forKey: InverseLinkKey(id: temporary, relationship: index)) else { continue }
            pointers[InverseLinkKey(id: permanent, relationship: index), default: []].formUnion(holders)
        }
    }

    /// Drops the folded hints filed under `id` (its object left the context; logged ones for it
    /// are only stale hints, and the ones filed on the object go with it).
    func unlink(_ id: ObjectID) {
        guard !pointers.isEmpty else { return }
        for index in id.entity.relationships.indices { pointers[InverseLinkKey(id: id, relationship: index)] = nil }
    }

    /// Forgets every hint (the context is reset; its objects' own hints go with them).
    func forgetLinks() {
        pointerLog.removeAll()
        pointers.removeAll()
    }

    /// Whether `holder`, a loaded live object of this context, holds `object` in its
    /// relationship `index` right now (raw storage: fires nothing).
    func holds(_ holder: ManagedObject, _ index: Int, _ object: ManagedObject) -> Bool {
        guard holder.storageOwner === self, !holder.lifecycle.isFault, !holder.lifecycle.isDeleted, index < holder.relationValues.count else { return false }
        switch holder.relationValues[index] {
        case .toMany(let members): return members.contains(object)
        case .toOne(let target): return target === object
        case .toOneID(let id): return id == object.objectID
        case .unloaded: return false
        }
    }

    /// The loaded objects whose inverse of `object`'s relationship `index` holds `object`.
    func holders(of object: ManagedObject, through index: Int) -> [ManagedObject] {
        let inverse = object.entity.relationships[index].inverseIndex
        let candidates: [ManagedObject]
        if object.entity.relationships[index].inverseIsToMany {
            guard !object.heldBy.isEmpty else { return [] }
            candidates = object.heldBy.holders(through: index) { $0.storageOwner === self }
        } else {
            guard !pointerLog.isEmpty || !pointers.isEmpty else { return [] }
            foldPointers()
            let key = InverseLinkKey(id: object.objectID, relationship: index)
            guard let filed = pointers[key] else { return [] }
            if filed.contains(where: { $0.storageOwner !== self }) {
                let live = filed.filter { $0.storageOwner === self }
                pointers[key] = live
                candidates = Array(live)
            } else {
                candidates = Array(filed)
            }
        }
        return candidates.filter { holds($0, inverse, object) }
    }

    /// Whether the pair (`holder`, `object`) in `holder`'s relationship `index` is an unsaved
    /// local edit: the committed membership differs from the current one.
    private func isLocalEdit(_ holder: ManagedObject, _ index: Int, _ object: ManagedObject) -> Bool {
        guard case .toMany(let committed)? = holder.committedRelations[index], case .toMany(let current) = holder.relationValues[index] else { return false }
        return committed.contains(object) != current.contains(object)
    }

    /// Adds `object` to `holder`'s relationship `index`, current and committed value alike: a
    /// fact from below, not a change of the holder.
    private func attachQuietly(_ object: ManagedObject, to holder: ManagedObject, at index: Int) {
        switch holder.relationValues[index] {
        case .toMany(var members):
            holder.relationValues[index] = .unloaded   // no copy on append
            members.append(object)
            holder.relationValues[index] = .toMany(members)
            if case .toMany(var committed)? = holder.committedRelations[index], !committed.contains(object) {
                committed.append(object)
                holder.committedRelations[index] = .toMany(committed)
            }
        case .toOne, .toOneID:
            holder.relationValues[index] = .toOne(object)
            if holder.committedRelations[index] != nil { holder.committedRelations[index] = .toOne(object) }
        case .unloaded:
            return
        }
        if holder.entity.relationshipIsToMany[index] {
            holder.noteHeld(object, through: index)
        } else {
            notePointer(to: object.objectID, holder: holder, relationship: index)
        }
    }

    /// Removes `object` from `holder`'s relationship `index`, current and committed value alike.
    private func detachQuietly(_ object: ManagedObject, from holder: ManagedObject, at index: Int) {
        switch holder.relationValues[index] {
        case .toMany(var members):
            holder.relationValues[index] = .unloaded
            members.remove(object)
            holder.relationValues[index] = .toMany(members)
            if case .toMany(var committed)? = holder.committedRelations[index], committed.contains(object) {
                committed.remove(object)
                holder.committedRelations[index] = .toMany(committed)
            }
        case .toOne, .toOneID:
            holder.relationValues[index] = .toOne(nil)
            if holder.committedRelations[index] != nil { holder.committedRelations[index] = .toOne(nil) }
        case .unloaded:
            return
        }
    }

    /// `object`'s to-one `index` now holds `target`, as read or merged (not a local edit);
    /// `previous` is the target it held before, if it was loaded. The loaded inverse sides of
    /// the old and new partners follow. Raw storage only: fires no fault, loads nothing.
    func adoptToOne(_ object: ManagedObject, at index: Int, target: ObjectID?, previous: ObjectID?) {
        let inverse = object.entity.relationships[index].inverseIndex
        if let previous, previous != target, let old = registry[previous], holds(old, inverse, object) {
            detachQuietly(object, from: old, at: inverse)
        }
        if !object.heldBy.isEmpty || !object.entity.relationships[index].inverseIsToMany {   // else nobody holds it
            for holder in holders(of: object, through: index) where holder.objectID != target {
                detachQuietly(object, from: holder, at: inverse)
            }
        }
        guard let target else { return }
        let partner = registry[target]
        if let partner, partner.lifecycle.isDeleted {
            // Deleted here (not saved yet): the object reads as unrelated, as a to-many load
            // skips deleted members; saving the delete clears the stored key. (A fault reads
            // its row when fired, and that read skips the deleted partner the same way.)
            if !object.lifecycle.isFault { object.relationValues[index] = .toOne(nil) }
            return
        }
        // A fault's pointer is logged when it fires and reads its row (`adoptRowRelations`).
        if !object.lifecycle.isFault { logPointer(to: target, through: inverse, holder: object) }
        guard let partner, !partner.lifecycle.isFault, inverse < partner.relationValues.count else { return }
        switch partner.relationValues[inverse] {
        case .toMany(let members):
            if !members.contains(object) { attachQuietly(object, to: partner, at: inverse) }
        case .toOne(let other):
            // One-to-one: the partner points back at `object`; its former partner lets go.
            guard other !== object else { return }
            if let other, holds(other, index, partner) { detachQuietly(partner, from: other, at: index) }
            attachQuietly(object, to: partner, at: inverse)
        case .toOneID(let otherID):
            guard otherID != object.objectID else { return }
            if let otherID, let other = registry[otherID], holds(other, index, partner) { detachQuietly(partner, from: other, at: index) }
            attachQuietly(object, to: partner, at: inverse)
        case .unloaded:
            return
        }
    }

    /// The to-ones of a row just read into `object` (a fault fired, a fetch, a refresh):
    /// `previous` holds the to-one targets the object had loaded before (empty for a fault).
    func adoptRowRelations(_ object: ManagedObject, previous: [Int: ObjectID?]) {
        for (index, value) in object.relationValues.enumerated() {
            if let target = value.loadedToOneTarget { adoptToOne(object, at: index, target: target, previous: previous[index] ?? nil) }
        }
    }

    /// The same for an object that had no to-one loaded before (new, or a fault): the hot
    /// path of a fetch, with no table of previous targets to build and ask.
    func adoptRowRelations(_ object: ManagedObject) {
        let values = object.relationValues   // as read: adopting one may change another's state
        for index in values.indices {
            if let target = values[index].loadedToOneTarget { adoptToOne(object, at: index, target: target, previous: nil) }
        }
    }

    /// The loaded to-one targets of `object`, by relationship index (for ``adoptRowRelations(_:previous:)``).
    func loadedToOneTargets(_ object: ManagedObject) -> [Int: ObjectID?] {
        var result: [Int: ObjectID?] = [:]
        for (index, value) in object.relationValues.enumerated() {
            if let target = value.loadedToOneTarget { result[index] = target }
        }
        return result
    }

    /// The members `object`'s to-many `index` loads as, given the `members` read from below
    /// (deleted objects already left out), brought in line with the context's loaded partners.
    func adoptToMany(_ object: ManagedObject, at index: Int, members: [ManagedObject]) -> [ManagedObject] {
        let relationship = object.entity.relationships[index]
        let inverse = relationship.inverseIndex
        var result: [ManagedObject]
        if !model.entities[relationship.destinationIndex].relationships[inverse].isToMany {
            // The partners' loaded to-ones win.
            result = members.filter { member in
                guard member.storageOwner === self, !member.lifecycle.isFault, inverse < member.relationValues.count else { return true }
                switch member.relationValues[inverse] {
                case .toOne(let target): return target === object
                case .toOneID(let id): return id == object.objectID
                case .toMany, .unloaded: return true
                }
            }
            let referrers = holders(of: object, through: index)
            if !referrers.isEmpty {
                var present = Set(result.map(ObjectIdentifier.init))
                for referrer in referrers where present.insert(ObjectIdentifier(referrer)).inserted { result.append(referrer) }
            }
        } else {
            // Many-to-many: the fresh load wins, except over pairs edited here and not saved.
            result = []
            result.reserveCapacity(members.count)
            for member in members {
                if member.storageOwner === self, !member.lifecycle.isFault, inverse < member.relationValues.count,
                   case .toMany(let back) = member.relationValues[inverse], !back.contains(object) {
                    if isLocalEdit(member, inverse, object) { continue }   // removed here: stays removed
                    attachQuietly(object, to: member, at: inverse)
                }
                result.append(member)
            }
            let holders = holders(of: object, through: index)
            if !holders.isEmpty {
                var present = Set(result.map(ObjectIdentifier.init))
                for holder in holders where !present.contains(ObjectIdentifier(holder)) {
                    if isLocalEdit(holder, inverse, object) {
                        present.insert(ObjectIdentifier(holder))   // added here: stays added
                        result.append(holder)
                    } else {
                        detachQuietly(object, from: holder, at: inverse)
                    }
                }
            }
        }
        for member in result { object.noteHeld(member, through: index) }
        return result
    }
}
