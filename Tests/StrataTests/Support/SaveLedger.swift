@testable import Strata

/// What every successful save to the store wrote, for a stress test to check the final store
/// against.
///
/// Order of saves is taken from the row versions the saves report, not from the order in
/// which they are recorded: every write of a row bumps its `_version` inside the writing
/// transaction (optimistic locking), so for one object the save reporting the highest version
/// is the last writer, whichever coordinator or thread it came from and however late its
/// thread got here. For a key of an object, the expected final value is the one reported by
/// the highest-versioned save that wrote that key.
final class SaveLedger: Sendable {
    /// The keys checked against the final store: attributes and to-one foreign keys (to-many
    /// membership lives in join tables, which carry no version).
    static let trackedKeys: Set<String> = ["title", "rating", "folder", "name", "label"]

    /// One reported value of one key, with the row version the save left.
    struct Write: Sendable, Equatable {
        var version: Int64
        var value: PropertyValue
    }

    struct State: Sendable {
        /// The latest reported value per object and key.
        var latest: [ObjectID: [String: Write]] = [:]
        /// Every row version a save reported, per object: a version reported twice means two
        /// saves both believed they wrote the same version (a lost update).
        var versions: [ObjectID: Set<Int64>] = [:]
        var inserted: Set<ObjectID> = []
        var deleted: Set<ObjectID> = []
        var saves = 0
        var conflicts = 0
        var otherErrors: [String: Int] = [:]
        /// Lost-update evidence (duplicate versions).
        var duplicates: [String] = []
        /// The latest reported state of each join-table pair, keyed by the owning side's
        /// relationship: present or not, at the owning object's row version.
        var pairs: [JoinPair: Write] = [:]
        /// Saves of a to-many change whose membership before the change was unknown to the
        /// saving context (it then cannot write the pairs it removed).
        var lostBases: [String] = []
    }

    /// One pair of a many-to-many relationship, named from the side that owns the join table.
    struct JoinPair: Sendable, Hashable, CustomStringConvertible {
        var owner: ObjectID
        var relationship: String
        var member: ObjectID
        var description: String { "\(owner).\(relationship) ∋ \(member)" }
    }

    /// The relationships whose join table a save writes from that side (`isOwner`), by entity
    /// name: a save writes the pairs the owning side added and removed since it was read, and
    /// bumps the owning object's row version, so that version orders the writes of one pair.
    static let joinOwners: [String: [String]] = {
        var result: [String: [String]] = [:]
        for entity in testModel.entities {
            for relationship in entity.relationships {
                if case .joinTable(let join) = relationship.storage, join.isOwner { result[entity.name, default: []].append(relationship.name) }
            }
        }
        return result
    }()

    let state = Locked(State())

    /// Records one successful root save: its published change set, and what the will-save
    /// hook saw (inserted objects' values and updated objects' old and new values, keyed by
    /// the IDs before the save), for the join-table pairs the save added and removed.
    func recordSave(_ changes: ChangeSet, pending: ChangeBatch?) {
        let insertedValues = Dictionary(uniqueKeysWithValues: (pending?.inserted ?? []).map { ($0.id, $0.keyedValues) })
        func permanent(_ id: ObjectID) -> ObjectID { changes.permanentIDs[id] ?? id }
        func permanent(_ value: PropertyValue) -> PropertyValue {
            if case .objectID(let id) = value { return .objectID(permanent(id)) }
            return value
        }
        func members(_ value: PropertyValue?) -> Set<ObjectID> {
            guard case .objectIDs(let ids)? = value else { return [] }
            return Set(ids.map(permanent))
        }
        // Pair writes: (pair, present) per saved owner, from the owner's membership diff.
        var pairWrites: [ObjectID: [(JoinPair, Bool)]] = [:]
        var lostBases: [String] = []
        for (id, values) in insertedValues {
            for name in Self.joinOwners[id.entity.name] ?? [] {
                let owner = permanent(id)
                for member in members(values[name]) { pairWrites[owner, default: []].append((JoinPair(owner: owner, relationship: name, member: member), true)) }
            }
        }
        for update in pending?.updated ?? [] {
            let id = update.id
            for name in Self.joinOwners[id.entity.name] ?? [] where update.changedKeys.contains(name) {
                let (before, after) = (update.oldValue(forKey: name), update.value(forKey: name))
                let owner = permanent(id)
                if case .objectIDs = before {} else { lostBases.append("\(owner).\(name) was saved from \(before) to \(after)") }
                let old = members(before), new = members(after)
                for member in new.subtracting(old) { pairWrites[owner, default: []].append((JoinPair(owner: owner, relationship: name, member: member), true)) }
                for member in old.subtracting(new) { pairWrites[owner, default: []].append((JoinPair(owner: owner, relationship: name, member: member), false)) }
            }
        }
        state.withLock { state in
            state.saves += 1
            state.lostBases += lostBases
            var written: [ObjectID: [String: PropertyValue]] = [:]
            for (temporary, values) in insertedValues {
                let id = changes.permanentIDs[temporary] ?? temporary
                guard changes.inserted.contains(id) else { continue }
                written[id] = values.filter { Self.trackedKeys.contains($0.key) }.mapValues(permanent)
                state.inserted.insert(id)
            }
            for (id, values) in changes.updated { written[id, default: [:]].merge(values.filter { Self.trackedKeys.contains($0.key) }) { _, new in new } }
            for id in changes.inserted.union(changes.updated.keys) {
                // Inserted rows not listed in `versions` start at version 1 (ChangeSet.versions).
                guard let version = changes.versions[id] ?? (changes.inserted.contains(id) ? 1 : nil) else {
                    state.duplicates.append("\(id) was saved without a version")
                    continue
                }
                if !state.versions[id, default: []].insert(version).inserted {
                    state.duplicates.append("\(id) version \(version) was reported by two saves")
                }
                for (key, value) in written[id] ?? [:] where version > (state.latest[id]?[key]?.version ?? 0) {
                    state.latest[id, default: [:]][key] = Write(version: version, value: value)
                }
                for (pair, present) in pairWrites[id] ?? [] where version > (state.pairs[pair]?.version ?? 0) {
                    state.pairs[pair] = Write(version: version, value: .bool(present))
                }
            }
            state.deleted.formUnion(changes.deleted)
        }
    }

    /// Checks `context`'s graph on its queue: any broken invariant fails the run through
    /// `watchdog`, inverse mismatches included (docs/concurrency.md, rule 4: the loaded graph
    /// of a context stays inverse-consistent across merges, faults and loads).
    func checkGraph(of context: ObjectContext, _ label: @autoclosure () -> String, watchdog: Watchdog) {
        do {
            try context.checkInvariants()
        } catch {
            watchdog.fail("\(label()): \(error)")
        }
    }

    /// Records a save that threw.
    func recordFailure(_ error: StrataError) {
        state.withLock { state in
            if error.code == .conflict { state.conflicts += 1 } else { state.otherErrors["\(error.code)", default: 0] += 1 }
        }
    }
}
