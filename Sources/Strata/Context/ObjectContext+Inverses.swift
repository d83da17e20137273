/// Where hints about an object's partners are filed: the object's ID and one of its
/// relationships (an index into the ID's entity's relationships). The hints are the objects
/// whose inverse of that relationship may hold (or point at) the object; they are checked
/// before use, so a stale one costs a lookup, never a wrong answer.
struct InverseLinkKey: Hashable {
    let id: ObjectID
    let relationship: Int
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
/// Partners are found without scanning the context: every loaded membership files its holder
/// under the member's ID and relationship (``inverseLinks``), so a row read later, or a
/// to-many loaded later, finds the loaded sides that hold it in O(its partners there).
extension ObjectContext {
    /// Files a hint that `holder`'s relationship `relationship` holds (or points at) `id`.
    func noteLink(to id: ObjectID, holder: ManagedObject, relationship: Int) {
        let key = InverseLinkKey(id: id, relationship: holder.entity.relationships[relationship].inverseIndex)
        inverseLinks[key, default: []].insert(holder)
    }

    /// Moves the hints filed under a temporary ID to the object's permanent ID.
    func relink(from temporary: ObjectID, to permanent: ObjectID) {
        guard !inverseLinks.isEmpty else { return }
        for index in temporary.entity.relationships.indices {
            guard let holders = inverseLinks.removeValue(forKey: InverseLinkKey(id: temporary, relationship: index)) else { continue }
            inverseLinks[InverseLinkKey(id: permanent, relationship: index), default: []].formUnion(holders)
        }
    }

    /// Drops the hints filed under `id` (its object left the context).
    func unlink(_ id: ObjectID) {
        guard !inverseLinks.isEmpty else { return }
        for index in id.entity.relationships.indices { inverseLinks[InverseLinkKey(id: id, relationship: index)] = nil }
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
        let key = InverseLinkKey(id: object.objectID, relationship: index)
        guard let candidates = inverseLinks[key] else { return [] }
        let inverse = object.entity.relationships[index].inverseIndex
        var result: [ManagedObject] = []
        var stale = false
        for holder in candidates {
            if holder.storageOwner !== self { stale = true; continue }
            if holds(holder, inverse, object) { result.append(holder) }
        }
        if stale { inverseLinks[key] = candidates.filter { $0.storageOwner === self } }
        return result
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
        noteLink(to: object.objectID, holder: holder, relationship: index)
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
        if let previous, previous != target, let old = registered[previous], holds(old, inverse, object) {
            detachQuietly(object, from: old, at: inverse)
        }
        if !inverseLinks.isEmpty {
            for holder in holders(of: object, through: index) where holder.objectID != target {
                detachQuietly(object, from: holder, at: inverse)
            }
        }
        guard let target else { return }
        if let partner = registered[target], partner.lifecycle.isDeleted {
            // Deleted here (not saved yet): the object reads as unrelated, as a to-many load
            // skips deleted members; saving the delete clears the stored key.
            object.relationValues[index] = .toOne(nil)
            return
        }
        noteLink(to: target, holder: object, relationship: index)
        guard let partner = registered[target], !partner.lifecycle.isFault,
              inverse < partner.relationValues.count else { return }
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
            if let otherID, let other = registered[otherID], holds(other, index, partner) { detachQuietly(partner, from: other, at: index) }
            attachQuietly(object, to: partner, at: inverse)
        case .unloaded:
            return
        }
    }

    /// The to-ones of a row just read into `object` (a fault fired, a fetch, a refresh):
    /// `previous` holds the to-one targets the object had loaded before (empty for a fault).
    func adoptRowRelations(_ object: ManagedObject, previous: [Int: ObjectID?] = [:]) {
        for (index, value) in object.relationValues.enumerated() {
            switch value {
            case .toOneID(let target): adoptToOne(object, at: index, target: target, previous: previous[index] ?? nil)
            case .toOne(let target): adoptToOne(object, at: index, target: target?.objectID, previous: previous[index] ?? nil)
            case .toMany, .unloaded: continue
            }
        }
    }

    /// The loaded to-one targets of `object`, by relationship index (for ``adoptRowRelations(_:previous:)``).
    func loadedToOneTargets(_ object: ManagedObject) -> [Int: ObjectID?] {
        var result: [Int: ObjectID?] = [:]
        for (index, value) in object.relationValues.enumerated() {
            switch value {
            case .toOneID(let target): result[index] = .some(target)
            case .toOne(let target): result[index] = .some(target?.objectID)
            case .toMany, .unloaded: continue
            }
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
        for member in result { noteLink(to: member.objectID, holder: object, relationship: index) }
        return result
    }
}
