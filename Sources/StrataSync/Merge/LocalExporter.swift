import Foundation
import Strata

/// Turns what the store saved since the last export into records: reads the store's change
/// history (which every save writes in its own transaction), compares each touched object's
/// current values with the merge state, and writes the differences — stamped with the next
/// Lamport count — into the state and into an event file in the outbox, in one transaction.
///
/// Comparing with the state (rather than replaying each saved key) is what makes the
/// ensemble's own merges export nothing: they wrote the state's values. What a merge changed
/// beyond the state (a cascade delete, a nullified inverse) is exported like any local edit.
struct LocalExporter {
    let model: SyncModel
    let state: SyncState
    let peer: PeerID
    let modelVersion: String
    /// Values above this many bytes travel as blobs.
    let blobThreshold: Int
    /// Names an object that has no identifier attribute (a random UUID but in replayed tests).
    var newGlobalID: @Sendable () -> String = { UUID().uuidString.lowercased() }

    /// What one export found in the history.
    struct Touched: Sendable {
        var objects: [ObjectID] = []
        var deleted: Set<ObjectID> = []
        /// When each object was last saved (the stamps' wall-clock part: among concurrent
        /// edits, the later edit wins, not the later export).
        var times: [ObjectID: Date] = [:]
        var lastToken: HistoryToken?

        mutating func add(_ id: ObjectID, seen: inout Set<ObjectID>) {
            if seen.insert(id).inserted { objects.append(id) }
        }

        /// The objects `transactions` touched (members of many-to-many edits included), less
        /// `skipping`'s objects where a transaction of `skippingAuthor` inserted or updated them
        /// (a merge's save, which wrote them as the state has them).
        init(_ transactions: [HistoryTransaction], skipping: Set<ObjectID> = [], skippingAuthor: String? = nil) {
            var seen: Set<ObjectID> = []
            for transaction in transactions {
                let skips = !skipping.isEmpty && transaction.author == skippingAuthor
                for change in transaction.changes {
                    if skips, change.operation != .delete, skipping.contains(change.objectID), change.addedMembers.isEmpty, change.removedMembers.isEmpty { continue }
                    add(change.objectID, seen: &seen)
                    times[change.objectID] = transaction.timestamp
                    if change.operation == .delete { deleted.insert(change.objectID) }
                    for members in change.addedMembers.values { for member in members { add(member, seen: &seen) } }
                    for members in change.removedMembers.values { for member in members { add(member, seen: &seen) } }
                }
                lastToken = transaction.token
            }
        }

        init(objects: [ObjectID], lastToken: HistoryToken?) {
            self.objects = objects
            self.lastToken = lastToken
        }
    }

    /// The event file one export wrote to the outbox.
    struct Written {
        var name: ChangeFileName
        var recordCount: Int
    }

    /// Diffs `snapshot` (the current values of `touched`) against the state and records the
    /// differences; advances the exported history token to `touched.lastToken`.
    func export(_ touched: Touched, snapshot: LocalSnapshot, now: Date = Date()) throws(SyncError) -> Written? {
        try state.write { tx -> Written? in
            let lamport = (try tx.meta("lamport", as: Int64.self) ?? 0) + 1
            let header = try ChangeFileHeader(lamport: UInt64(lamport), peer: peer, kind: .events, modelVersion: modelVersion, createdAt: now)
            var diff = Diff(tx: tx, model: model, lamport: lamport, peer: peer.rawValue, now: now, times: touched.times, newGlobalID: newGlobalID)
            try diff.run(touched, snapshot)
            if let token = touched.lastToken { try tx.setMeta("historyToken", token.rawValue) }
            guard !diff.records.isEmpty else { return nil }
            try tx.merge(diff.records, dirty: false)
            let sequence = (try tx.meta("nextSequence", as: Int64.self) ?? 1)
            let wire = BlobTransport.externalize(diff.records, threshold: blobThreshold, lamport: header.lamport, peer: peer)
            for blob in wire.blobs { try tx.addToOutbox("blobs/\(blob.name)", blob.data) }
            let payload = EventPayload(sequence: sequence, coverage: [], records: wire.records)
            let file = ChangeFile(header: header, payload: payload.encoded())
            try tx.addToOutbox("events/\(header.fileName.rawValue)", file.encoded())
            try tx.markIntegrated(header.fileName.rawValue, peer: peer.rawValue, sequence: sequence, lamport: lamport)
            try tx.setMeta("nextSequence", sequence + 1)
            try tx.setMeta("lamport", lamport)
            return Written(name: header.fileName, recordCount: diff.records.count)
        }
    }
}

/// One export's comparison of the store with the state.
private struct Diff {
    let tx: StateTransaction
    let model: SyncModel
    let lamport: Int64
    let peer: String
    let now: Date
    let times: [ObjectID: Date]
    let newGlobalID: @Sendable () -> String
    var records: [StampedRecord] = []
    /// Global identifiers assigned or looked up in this export.
    var gids: [ObjectID: String] = [:]
    /// The stamp of the object being compared.
    var stamp: Stamp

    init(tx: StateTransaction, model: SyncModel, lamport: Int64, peer: String, now: Date, times: [ObjectID: Date], newGlobalID: @escaping @Sendable () -> String) {
        self.tx = tx
        self.newGlobalID = newGlobalID
        self.model = model
        self.lamport = lamport
        self.peer = peer
        self.now = now
        self.times = times
        stamp = Stamp(lamport: lamport, milliseconds: Self.milliseconds(now), peer: peer)
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }

    /// Stamps the next records with the time `id` was last saved.
    mutating func stamping(_ id: ObjectID) {
        stamp.milliseconds = Self.milliseconds(times[id] ?? now)
    }

    mutating func run(_ touched: LocalExporter.Touched, _ snapshot: LocalSnapshot) throws {
        var live: [(ObjectID, GlobalObjectKey)] = []
        var created: [ObjectID] = []
        for id in touched.objects {
            guard let key = id.primaryKey, model.entities[id.entity.name] != nil else { continue }
            let entity = id.entity.name
            let mapped = try tx.gid(entity: entity, localKey: key)
            let exists = snapshot.objects[id] != nil
            if let gid = mapped {
                let global = GlobalObjectKey(entity: entity, gid: gid)
                // Gone, or gone and its row number taken again by a new object.
                if !exists || touched.deleted.contains(id) {
                    stamping(id)
                    if try tx.object(global)?.exists == true { emit(.delete(global)) }
                    try tx.setLocalKey(global, nil)
                    if exists { created.append(id) }
                    continue
                }
                gids[id] = gid
                // The state says deleted: a delete wins over edits made alongside it.
                if try tx.object(global)?.exists == true { live.append((id, global)) }
            } else if exists {
                created.append(id)
            }
        }
        var registered: [GlobalObjectKey] = []
        for id in created {
            let global = try assignIdentifier(id, snapshot.objects[id]!)
            gids[id] = global.gid
            try tx.setLocalKey(global, id.primaryKey)
            registered.append(global)
            stamping(id)
            emit(.insert(global))
            live.append((id, global))
        }
        // Links that waited for these objects' rows: one check when none waits (an attach
        // registers every object of the store here).
        try tx.resolveDanglingLinks(to: model.referenceKeys(registered))
        for (id, global) in live {
            stamping(id)
            try diffValues(global, snapshot.objects[id]!)
        }
    }

    private mutating func emit(_ record: EventRecord) {
        records.append(StampedRecord(stamp: stamp, record: record))
    }

    /// The identifier attribute's value when the entity has one and it is free; else a
    /// random identifier.
    private func assignIdentifier(_ id: ObjectID, _ values: LocalSnapshot.Object) throws -> GlobalObjectKey {
        let entity = id.entity.name
        if let name = model.entities[entity]?.identifierAttribute, let text = Self.identifierText(values.attributes[name] ?? .null) {
            let candidate = GlobalObjectKey(entity: entity, gid: text)
            let held = try tx.object(candidate)
            // In a hierarchy an identifier names one object whatever its entity (a reference
            // carries the identifier only): one another entity of it holds is not reused.
            if held?.localKey == nil || held?.localKey == id.primaryKey, try !tx.knows(text, under: model.siblings(of: entity)) { return candidate }
        }
        return GlobalObjectKey(entity: entity, gid: newGlobalID())
    }

    /// The identifier attribute's value as a global identifier, if it can be one (text
    /// without NUL bytes, which the state could not look up: such an object gets a random one).
    static func identifierText(_ value: PropertyValue) -> String? {
        switch value {
        case .string(let v) where !v.isEmpty && !v.utf8.contains(0): v
        case .uuid(let v): v.uuidString.lowercased()
        case .integer(let v): String(v)
        case .url(let v): v.absoluteString
        default: nil
        }
    }

    private mutating func gid(of id: ObjectID) throws -> String? {
        if let known = gids[id] { return known }
        guard let key = id.primaryKey, let found = try tx.gid(entity: id.entity.name, localKey: key) else { return nil }
        gids[id] = found
        return found
    }

    private mutating func diffValues(_ global: GlobalObjectKey, _ values: LocalSnapshot.Object) throws {
        guard let plan = model.entities[global.entity] else { return }
        let cells = try tx.cells(of: global)
        for attribute in plan.attributes {
            let encoded = CellValue.attribute(values.attributes[attribute.name] ?? .null).encoded
            if cells[attribute.name] != encoded { emit(.cell(global, property: attribute.name, value: encoded)) }
        }
        for relationship in plan.toOnes {
            var target: String?
            if let id = values.toOnes[relationship.name] {
                guard let known = try gid(of: id) else { continue }   // not yet known to the ensemble: leave the state as it is
                target = known
            }
            let encoded = CellValue.reference(target).encoded
            let current = try effective(cells[relationship.name], destination: relationship.destination, of: global)
            if current != encoded { emit(.cell(global, property: relationship.name, value: encoded)) }
        }
        for relationship in plan.toManys {
            var local: [String] = []
            for member in values.toManys[relationship.name] ?? [] { if let g = try gid(of: member) { local.append(g) } }
            let stored = try tx.members(of: global, relationship: relationship.name)
            let localSet = Set(local.map(ByteIdentifier.init))
            for member in local where !stored.contains(ByteIdentifier(member)) {
                emit(.member(global, relationship: relationship.name, member: member, present: true))
            }
            for member in stored.map(\.text).sorted(by: UTF8Order.precedes) where !localSet.contains(ByteIdentifier(member)) {
                // A member the state holds but that is itself deleted is already gone: its
                // link comes back if it is inserted again.
                if try tx.target(member, kinds: model.kinds(of: relationship.destination)) != nil {
                    emit(.member(global, relationship: relationship.name, member: member, present: false))
                } else {
                    try tx.noteDanglingLink(to: GlobalObjectKey(entity: relationship.destination, gid: member), from: global)
                }
            }
            if relationship.isOrdered {
                let encoded = CellValue.order(local).encoded
                if cells[relationship.name] != encoded { emit(.cell(global, property: relationship.name, value: encoded)) }
            }
        }
    }

    /// A to-one cell as the store would show it: a target the state holds as deleted is none
    /// (and `referrer`'s link to it comes back if it is inserted again).
    private func effective(_ cell: [UInt8]?, destination: String, of referrer: GlobalObjectKey) throws -> [UInt8] {
        guard let cell else { return CellValue.reference(nil).encoded }
        guard case .reference(let gid?)? = CellValue.decode(cell, attribute: nil) else { return cell }
        guard try tx.target(gid, kinds: model.kinds(of: destination)) != nil else {
            try tx.noteDanglingLink(to: GlobalObjectKey(entity: destination, gid: gid), from: referrer)
            return CellValue.reference(nil).encoded
        }
        return cell
    }
}
