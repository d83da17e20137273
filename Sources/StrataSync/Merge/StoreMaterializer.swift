import Foundation
import Strata

/// Brings the store up to date with the merge state: every object a merge changed (marked
/// dirty) is inserted, updated or deleted through context saves, so the stack's contexts and
/// fetched results hear of it as of any other save. The dirty objects go in *pieces* of
/// ``EnsembleOptions/mergePieceSize``, in global order, one save each, so memory stays bounded
/// however many objects a baseline or a backlog brings.
///
/// New objects' rows are reserved first and the reservations written to the state; the state
/// takes the rows, marks the piece's objects clean and forgets the reservations after the
/// piece's save, in one transaction. A crash between the two is repaired by
/// ``recoverPending(coordinator:)`` before the next export and merge: a reserved row the save
/// made (the store has it, or its history shows it inserted and the app deleted it since) is
/// confirmed, one it never made is forgotten (its object is still dirty and is inserted
/// again); the pieces not yet saved are still dirty.
///
/// A relationship to an object of a later piece (not in the store yet) is left out of its
/// piece: that object's own piece sets the link from its side, through the inverse.
struct StoreMaterializer: Sendable {
    let model: SyncModel
    let state: SyncState
    /// Tests: runs between a piece's save and the state's record of it (a throw stands for a crash).
    var afterSave: (@Sendable () throws -> Void)? = nil

    /// The transaction author of the ensemble's saves.
    static let author = "strata.sync"

    /// One object to write, with everything read from the state.
    struct Planned: Sendable {
        var key: GlobalObjectKey
        /// The key's entity in the model (read once, by the plan).
        var entity: EntityDescription
        var localKey: Int64?
        var exists: Bool
        var attributes: [(String, PropertyValue)] = []
        var toOnes: [(String, Target?)] = []
        var toManys: [(String, [Target], ordered: Bool)] = []
        /// Linked to an object a later piece creates: written now, and again in the next pass.
        var deferred = false
    }

    /// A relationship's target: its global key, its row in the store if it has one, and its
    /// place in the piece's ``Piece/planned`` when the piece writes it.
    struct Target: Sendable {
        var key: GlobalObjectKey
        var localKey: Int64?
        var position: Int? = nil
    }

    /// What a materialization did.
    struct Outcome: Sendable {
        var changes: ChangeSet
        var objectCount: Int
        /// The objects the save wrote as the state has them (inserted or updated): the export
        /// that follows the save skips them in the save's own history transaction.
        var written: Set<ObjectID> = []
        /// Objects made dirty again because a link of theirs waited for a row this save made.
        var relinked = 0
    }

    /// One piece of the dirty objects: its keys (all of them, marked clean once the piece is
    /// saved) and the plan of those the model knows.
    struct Piece: Sendable {
        var keys: [GlobalObjectKey] = []
        var planned: [Planned] = []

        /// The keys to mark clean after the save: all but the deferred.
        var keysDone: [GlobalObjectKey] {
            let deferred = Set(planned.lazy.filter(\.deferred).map(\.key))
            return deferred.isEmpty ? keys : keys.filter { !deferred.contains($0) }
        }

        var hasDeferred: Bool { planned.contains(where: \.deferred) }
    }

    /// Reads the next `limit` dirty objects after `cursor` into a plan. Unless `isLastPass`,
    /// an object linked to an object that exists but is not in the store yet (a later piece
    /// creates it) is marked ``Planned/deferred``: it stays dirty for the next pass.
    func plan(after cursor: GlobalObjectKey?, limit: Int, isLastPass: Bool) throws(SyncError) -> Piece {
        try state.write { tx in
            let dirty = try tx.dirtyObjectsWithValues(after: cursor, limit: max(1, limit))
            // The piece's own objects, found by key, with their places in `planned` (an object
            // of an entity the model lacks is not planned). A deleted one is no target.
            var targets: [GlobalObjectKey: Target?] = [:]
            targets.reserveCapacity(dirty.count)
            var position = 0
            var entityPlan: SyncModel.EntityPlan?   // the last object's: a piece is mostly one entity's
            for (key, object, _, _) in dirty {
                entityPlan = model.plan(of: key.entity, reusing: entityPlan)
                guard entityPlan != nil else { continue }
                targets[key] = object.exists ? Target(key: key, localKey: object.localKey, position: position) : .some(nil)
                position += 1
            }
            var linksAhead = false
            func target(_ key: GlobalObjectKey) throws -> Target? {
                if let known = targets[key] {
                    if let known, known.position == nil, known.localKey == nil { linksAhead = true }
                    return known
                }
                let found = try tx.object(key).flatMap { $0.exists ? Target(key: key, localKey: $0.localKey) : nil }
                targets[key] = .some(found)
                if let found, found.localKey == nil { linksAhead = true }
                return found
            }
            // A reference into a hierarchy names the object of that identifier under the first
            // of the destination's entities where it exists.
            func target(_ gid: String, in destination: String) throws -> Target? {
                for entity in model.kinds(of: destination) {
                    if let found = try target(GlobalObjectKey(entity: entity, gid: gid)) { return found }
                }
                return nil
            }
            var planned: [Planned] = []
            planned.reserveCapacity(dirty.count)
            for (key, object, cells, members) in dirty {
                entityPlan = model.plan(of: key.entity, reusing: entityPlan)
                guard let plan = entityPlan else { continue }
                linksAhead = false
                var item = Planned(key: key, entity: plan.entity, localKey: object.localKey, exists: object.exists)
                guard object.exists else { planned.append(item); continue }
                item.attributes.reserveCapacity(plan.attributes.count)
                for index in plan.attributes.indices {
                    guard let cell = cells[plan.attributes[index].name],
                          case .attribute(let value)? = CellValue.decode(cell.value, attribute: plan.attributes[index]) else { continue }
                    item.attributes.append((plan.attributes[index].name, value))
                }
                // A link whose target has no row to point at (deleted, unknown, or created by a
                // later piece of the last pass) is left out of the store: noted, so the
                // referrer is written again once the target has a row.
                func link(_ gid: String, in destination: String) throws -> Target? {
                    // Noted under the destination, not the target's own entity: if that target
                    // goes and an object of a sibling entity takes the identifier, its row
                    // still finds the note (rows look under their entity's superentities too).
                    let found = try target(gid, in: destination)
                    let waiting = found.map { isLastPass && $0.localKey == nil && $0.position == nil } ?? true
                    if waiting { try tx.noteDanglingLink(to: GlobalObjectKey(entity: destination, gid: gid), from: item.key) }
                    return found
                }
                for relationship in plan.toOnes {
                    guard let cell = cells[relationship.name], case .reference(let gid)? = CellValue.decode(cell.value, attribute: nil) else { continue }
                    item.toOnes.append((relationship.name, try gid.flatMap { try link($0, in: relationship.destination) }))
                }
                for relationship in plan.toManys {
                    let present = members[relationship.name] ?? []
                    var order: [String] = []
                    if relationship.isOrdered, let cell = cells[relationship.name], case .order(let listed)? = CellValue.decode(cell.value, attribute: nil) {
                        var seen: Set<ByteIdentifier> = []
                        order = listed.filter { present.contains(ByteIdentifier($0)) && seen.insert(ByteIdentifier($0)).inserted }
                    }
                    let listed = Set(order.map(ByteIdentifier.init))
                    order += present.filter { !listed.contains($0) }.map(\.text).sorted(by: UTF8Order.precedes)
                    let resolved = try order.compactMap { try link($0, in: relationship.destination) }
                    item.toManys.append((relationship.name, resolved, relationship.isOrdered))
                }
                item.deferred = linksAhead && !isLastPass
                planned.append(item)
            }
            return Piece(keys: dirty.map(\.0), planned: planned)
        }
    }

    /// Confirms or forgets rows reserved by a materialization that may not have saved.
    func recoverPending(coordinator: StoreCoordinator) async throws(SyncError) {
        let pending = try state.read { tx in try tx.reservations() }
        guard !pending.isEmpty else { return }
        let model = self.model
        let context = ObjectContext(.privateQueue, coordinator: coordinator, name: "strata.sync.recovery")
        var found: Set<GlobalObjectKey>
        do {
            found = try await context.perform {
                var found: Set<GlobalObjectKey> = []
                for (key, row) in pending {
                    guard let entity = model.entities[key.entity]?.entity else { continue }
                    if (try? context.existingObject(with: ObjectID(entity: entity, primaryKey: row))) != nil { found.insert(key) }
                }
                return found
            }
        } catch {
            throw SyncError(.storeFailure, "the store could not be read to recover an interrupted merge: \(error)", underlying: error as? StrataError)
        }
        // A row the merge's save made and the app deleted since is gone too, but that save
        // happened: its object takes the row, so the export that follows sends the delete
        // instead of the object coming back. The history not exported yet tells. (The rows
        // read above still count on their own: if the app pruned that history, a row the
        // store has must not be inserted a second time.)
        let saved = try rowsInsertedByMerges(coordinator: coordinator)
        for (key, row) in pending where !found.contains(key) {
            if let entity = model.entities[key.entity]?.entity, saved.contains(ObjectID(entity: entity, primaryKey: row)) { found.insert(key) }
        }
        try state.write { tx in
            // Either way the object stays dirty: the next pass writes it (again).
            for (key, row) in pending {
                if found.contains(key) { try tx.setLocalKey(key, row) } else { try tx.markDirty(key) }
            }
            try tx.clearReservations()
            // Rows the interrupted save did make: links that waited for them are written again,
            // and so are the referrers of an identifier two entities of a hierarchy now share.
            let made = pending.map(\.0).filter(found.contains)
            try tx.resolveDanglingLinks(to: model.referenceKeys(made))
            _ = try Self.relinkSharedIdentifiers(made, model: model, tx)
        }
    }

    /// The rows that merges' saves inserted in the store's history after the last export.
    private func rowsInsertedByMerges(coordinator: StoreCoordinator) throws(SyncError) -> Set<ObjectID> {
        var token = try state.read { tx in try tx.meta("historyToken", as: Int64.self) }.map(HistoryToken.init(rawValue:))
        var rows: Set<ObjectID> = []
        while true {
            let transactions: [HistoryTransaction]
            do { transactions = try coordinator.history(after: token, limit: 2_000) } catch {
                throw SyncError(.storeFailure, "the store's history could not be read to recover an interrupted merge: \(error)", underlying: error)
            }
            guard let last = transactions.last else { return rows }
            for transaction in transactions where transaction.author == Self.author {
                for change in transaction.changes where change.operation == .insert { rows.insert(change.objectID) }
            }
            token = last.token
        }
    }

    /// Writes `piece` to the store in one save and records the result in the state.
    func apply(_ piece: Piece, coordinator: StoreCoordinator) async throws(SyncError) -> Outcome {
        let planned = piece.planned
        guard !planned.isEmpty else {
            try state.write { tx in try tx.clearDirty(piece.keysDone) }
            return Outcome(changes: ChangeSet(), objectCount: 0)
        }
        let model = self.model, state = self.state
        // A save made meanwhile wins over the merge for the keys it touched: it is the later
        // edit, and the next export sends it with a later stamp.
        let context = ObjectContext(.privateQueue, coordinator: coordinator, name: "strata.sync.merge", mergePolicy: .mergeByPropertyStoreTrump)
        context.transactionAuthor = Self.author
        let collected = ChangeSetCollector()
        let observation = context.observeChanges { changes in if !changes.isEmpty { collected.add(changes) } }
        defer { observation.cancel() }
        let written: Written
        do {
            written = try await context.perform { try Self.write(planned, in: context, model: model, state: state) }
            try afterSave?()
        } catch let error as SyncError {
            // A recovery that fails here runs again at the next sync's start: the error to
            // report is the merge's own.
            try? await recoverPending(coordinator: coordinator)
            throw error
        } catch {
            try? await recoverPending(coordinator: coordinator)
            throw SyncError(.mergeFailed, "merged changes could not be saved to the store: \(error)", underlying: error as? StrataError)
        }
        let relinked = try state.write { tx -> Int in
            for key in written.deleted { try tx.setLocalKey(key, nil) }
            // Only this actor writes the state: the piece's objects are as the plan read them.
            let created = written.created.map(\.0)
            try tx.settle(reserved: created, clean: piece.keysDone)
            return try tx.resolveDanglingLinks(to: model.referenceKeys(created)) + (try Self.relinkSharedIdentifiers(created, model: model, tx))
        }
        let changes = collected.merged
        // An object the save's delete rules removed is a change beyond the state: not skipped.
        return Outcome(changes: changes, objectCount: planned.count, written: written.kept.subtracting(changes.deleted), relinked: relinked)
    }

    /// Objects of two entities of one hierarchy that share an identifier (two peers made them
    /// before syncing) both exist now: a reference to that identifier names the one whose
    /// entity sorts first, so every object that keeps a relationship into the hierarchy is
    /// written again, and a store that linked the other one follows. Returns how many objects
    /// were marked; none, with no statement, outside hierarchies or without such a pair.
    private static func relinkSharedIdentifiers(_ created: [GlobalObjectKey], model: SyncModel, _ tx: StateTransaction) throws -> Int {
        var referrers: Set<String> = []
        for key in created {
            let siblings = model.siblings(of: key.entity)
            guard !siblings.isEmpty, try tx.target(key.gid, kinds: siblings) != nil else { continue }
            referrers.formUnion(model.referrers(of: key.entity))
        }
        return referrers.isEmpty ? 0 : try tx.markDirty(entities: referrers.sorted())
    }

    private struct Written: Sendable {
        var created: [(GlobalObjectKey, Int64)] = []
        var deleted: [GlobalObjectKey] = []
        var kept: Set<ObjectID> = []
    }

    /// Runs on the context's queue.
    private static func write(_ planned: [Planned], in context: ObjectContext, model: SyncModel, state: SyncState) throws -> Written {
        var written = Written()
        // By place in `planned` (a target in the piece knows its place: no hashing of keys).
        var objects = [ManagedObject?](repeating: nil, count: planned.count)
        var created: [(GlobalObjectKey, ManagedObject)] = []
        let existingIDs = planned.compactMap { item in item.localKey.map { ObjectID(entity: item.entity, primaryKey: $0) } }
        _ = context.objects(with: existingIDs)
        for position in planned.indices where planned[position].exists {
            let key = planned[position].key, entity = planned[position].entity
            if let row = planned[position].localKey, let object = try? context.existingObject(with: ObjectID(entity: entity, primaryKey: row)) {
                objects[position] = object
            } else {
                let object = try context.insert(entityNamed: entity.name)
                objects[position] = object
                created.append((key, object))
            }
        }
        try context.obtainPermanentIDs(for: created.map(\.1))
        let reserved = created.compactMap { key, object in object.objectID.primaryKey.map { (key, $0) } }
        try state.write { tx in try tx.reserve(reserved) }

        func resolve(_ target: Target) -> ManagedObject? {
            if let position = target.position, let object = objects[position] { return object }
            guard let row = target.localKey, let entity = model.entities[target.key.entity]?.entity else { return nil }
            return context.object(with: ObjectID(entity: entity, primaryKey: row))
        }
        for position in planned.indices {
            guard let object = objects[position] else { continue }
            // Setting a value the object holds changes nothing (no change is recorded).
            for (name, value) in planned[position].attributes { try object.setValue(value, forKey: name) }
            for (name, target) in planned[position].toOnes {
                let resolved = target.flatMap(resolve)
                let current = object.primitiveValue(forKey: name)
                let wanted: PropertyValue = resolved.map { .objectID($0.objectID) } ?? .null
                if current != wanted { try object.setValue(resolved, forKey: name) }
            }
            for (name, targets, ordered) in planned[position].toManys {
                let resolved = targets.compactMap(resolve)
                let wanted = resolved.map(\.objectID)
                guard case .objectIDs(let current) = object.primitiveValue(forKey: name) else { continue }
                if ordered ? current != wanted : Set(current) != Set(wanted) {
                    try object.setValue(ordered ? resolved as Any : Set(resolved) as Any, forKey: name)
                }
            }
        }
        for position in planned.indices where !planned[position].exists {
            guard let row = planned[position].localKey else { continue }
            if let object = try? context.existingObject(with: ObjectID(entity: planned[position].entity, primaryKey: row)) { context.delete(object) }
            written.deleted.append(planned[position].key)
        }
        do {
            try context.save()
        } catch {
            context.rollback()
            throw error
        }
        // The reserved rows: an object given its permanent ID before the save cannot become
        // another row (a stored unique value it meets is a conflict).
        written.created = reserved
        written.kept = Set(objects.lazy.compactMap { $0?.objectID })
        return written
    }
}
