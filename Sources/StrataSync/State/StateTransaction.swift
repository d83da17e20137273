import Foundation
import GRDB

/// The operations on a ``SyncState`` inside one transaction.
struct StateTransaction {
    let db: Database

    /// SQL for "the object exists": its latest insert is newer than its latest delete.
    static let existsSQL = "(ins_l IS NOT NULL AND (del_l IS NULL OR (ins_l, ins_t, ins_p) > (del_l, del_t, del_p)))"

    // MARK: Meta

    func meta<T: DatabaseValueConvertible>(_ key: String, as type: T.Type = T.self) throws -> T? {
        try T.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key])
    }

    func setMeta(_ key: String, _ value: (any DatabaseValueConvertible)?) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", arguments: [key, value])
    }

    /// This peer's identifier, if the state names a valid one.
    func peer() throws -> PeerID? {
        try meta("peer", as: String.self).flatMap { try? PeerID($0) }
    }

    // MARK: Objects and the store's rows

    /// The global identifier of the store's row `localKey` of `entity`, if the ensemble knows it.
    func gid(entity: String, localKey: Int64) throws -> String? {
        try String.fetchOne(db.cachedStatement(sql: "SELECT gid FROM locals WHERE entity = ? AND local_key = ?"), arguments: [entity, localKey])
    }

    /// What the state says of one object: whether it is known, exists, and its row.
    func object(_ key: GlobalObjectKey) throws -> ObjectState? {
        let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT l.local_key, \(Self.existsSQL) FROM objects o LEFT JOIN locals l ON l.entity = o.entity AND l.gid = o.gid
            WHERE o.entity = ? AND o.gid = ?
            """), arguments: [key.entity, key.gid])
        return row.map { ObjectState(localKey: $0[0], exists: $0[1]) }
    }

    /// The object a reference names: `gid` under the first of `kinds` (the destination's
    /// entities, ``SyncModel/kinds(of:)``) where it exists, with what the state says of it;
    /// `nil` when it exists under none. A destination without subentities costs one lookup.
    func target(_ gid: String, kinds: [String]) throws -> (key: GlobalObjectKey, state: ObjectState)? {
        for entity in kinds {
            let key = GlobalObjectKey(entity: entity, gid: gid)
            if let found = try object(key), found.exists { return (key, found) }
        }
        return nil
    }

    /// Whether the state knows `gid` under any of `entities` (existing or deleted).
    func knows(_ gid: String, under entities: [String]) throws -> Bool {
        for entity in entities where try object(GlobalObjectKey(entity: entity, gid: gid)) != nil { return true }
        return false
    }

    /// Notes `key`'s row in the store (`nil`: it has none). The state knows the object from
    /// then on. Another object of the entity holding that row is an error (a unique index).
    func setLocalKey(_ key: GlobalObjectKey, _ localKey: Int64?) throws {
        guard let localKey else {
            var forget = RawBinding(try db.cachedStatement(sql: "DELETE FROM locals WHERE entity = ? AND gid = ?"))
            forget.bind(key.entity); forget.bind(key.gid)
            _ = try forget.run(db)
            return
        }
        try know(key)
        var binding = RawBinding(try db.cachedStatement(sql: """
            INSERT INTO locals (entity, gid, local_key) VALUES (?, ?, ?) ON CONFLICT (entity, gid) DO UPDATE SET local_key = excluded.local_key
            """))
        binding.bind(key.entity); binding.bind(key.gid); binding.bind(localKey)
        _ = try binding.run(db)
    }

    /// Gives `key` a row in `objects` if it has none (no stamps, no cells: not existing).
    private func know(_ key: GlobalObjectKey) throws {
        var binding = RawBinding(try db.cachedStatement(sql: "INSERT OR IGNORE INTO objects (entity, gid) VALUES (?, ?)"))
        binding.bind(key.entity); binding.bind(key.gid)
        _ = try binding.run(db)
    }

    // MARK: Reservations (a merge's save in flight)

    /// Notes that the save about to run inserts each object of `rows` as the store row given.
    func reserve(_ rows: [(GlobalObjectKey, Int64)]) throws {
        let statement = try db.cachedStatement(sql: "INSERT OR REPLACE INTO reserved (entity, gid, local_key) VALUES (?, ?, ?)")
        for (key, localKey) in rows {
            var binding = RawBinding(statement)
            binding.bind(key.entity); binding.bind(key.gid); binding.bind(localKey)
            _ = try binding.run(db)
        }
    }

    /// Rows reserved for a save that may not have happened (a crash came between it and
    /// ``settle(reserved:clean:)``).
    func reservations() throws -> [(GlobalObjectKey, Int64)] {
        try Row.fetchAll(db, sql: "SELECT entity, gid, local_key FROM reserved")
            .map { (GlobalObjectKey(entity: $0[0], gid: $0[1]), $0[2]) }
    }

    /// Forgets every reservation.
    func clearReservations() throws {
        try db.execute(sql: "DELETE FROM reserved")
    }

    /// Records a merge's save: every reserved object (`reserved`, the keys ``reserve(_:)``
    /// noted for this save) takes its row, `clean`'s objects are up to date in the store (a
    /// reserved object left out of it keeps its row and stays dirty), and no reservation is
    /// left. The objects' cells are not rewritten (schema 4): the reserved objects' rows go to
    /// `locals` and their marks leave `dirty` in two statements, not two per object (a backlog
    /// settles tens of thousands).
    func settle(reserved: [GlobalObjectKey], clean: [GlobalObjectKey]) throws {
        // (`WHERE true` tells SQLite's parser that ON CONFLICT is the upsert's, not the join's.)
        try db.execute(sql: """
            INSERT INTO locals (entity, gid, local_key) SELECT entity, gid, local_key FROM reserved WHERE true
            ON CONFLICT (entity, gid) DO UPDATE SET local_key = excluded.local_key
            """)
        try db.execute(sql: "DELETE FROM dirty WHERE (entity, gid) IN (SELECT entity, gid FROM reserved)")
        if reserved.isEmpty {
            try clearDirty(clean)
        } else if clean != reserved {
            // Not a piece of new objects only (the usual backlog's, whose lists are the same in
            // the same order): an update to mark clean, or a new object deferred to stay dirty.
            let cleanKeys = Set(clean)
            for key in reserved where !cleanKeys.contains(key) { try markDirty(key) }
            let reservedKeys = Set(reserved)
            try clearDirty(clean.filter { !reservedKeys.contains($0) })
        }
        try clearReservations()
    }

    /// The winning value of every property of `key`.
    func cells(of key: GlobalObjectKey) throws -> [String: [UInt8]] {
        let bytes = try Data.fetchOne(db.cachedStatement(sql: "SELECT cells FROM objects WHERE entity = ? AND gid = ?"), arguments: [key.entity, key.gid])
        return try Self.unpack(bytes.map { [UInt8]($0) }, key).values
    }

    /// The cells packed in an objects row (`nil`: none yet).
    static func unpack(_ bytes: [UInt8]?, _ key: GlobalObjectKey) throws -> PackedCells {
        guard let bytes, !bytes.isEmpty else { return PackedCells() }
        guard let cells = PackedCells(bytes) else {
            throw SyncError(.corruptState, "the local sync state holds damaged cells for \(key.entity) \(key.gid)")
        }
        return cells
    }

    /// The members of `key`'s to-many `relationship` whose latest record is a join.
    func members(of key: GlobalObjectKey, relationship: String) throws -> Set<ByteIdentifier> {
        try Set(String.fetchAll(db.cachedStatement(sql: "SELECT member FROM members WHERE entity = ? AND gid = ? AND relationship = ? AND present = 1"),
                                arguments: [key.entity, key.gid, relationship]).map(ByteIdentifier.init))
    }

    /// The next `limit` dirty objects after `cursor` (all of them from the start when `nil`),
    /// in global order, with what the state says of each, its cells and its present members:
    /// four statements per piece, whatever its size. Runs in a write transaction (the piece's
    /// keys go to a temporary table of this connection).
    func dirtyObjectsWithValues(after cursor: GlobalObjectKey?, limit: Int) throws -> [(GlobalObjectKey, ObjectState, cells: PackedCells, members: [String: Set<ByteIdentifier>])] {
        try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS piece (entity TEXT NOT NULL, gid TEXT NOT NULL, PRIMARY KEY (entity, gid)) WITHOUT ROWID")
        try db.execute(sql: "DELETE FROM temp.piece")
        // The dirty table's key serves the range and the order.
        try db.execute(sql: """
            INSERT INTO temp.piece SELECT entity, gid FROM dirty WHERE (entity, gid) > (?, ?) ORDER BY entity, gid LIMIT ?
            """, arguments: [cursor?.entity ?? "", cursor?.gid ?? "", limit])
        var dirty: [(GlobalObjectKey, ObjectState, cells: PackedCells, members: [String: Set<ByteIdentifier>])] = []
        dirty.reserveCapacity(limit)
        // CROSS JOIN keeps the order: the piece's keys first (in key order), then their rows by key.
        let objects = RawBinding(try db.cachedStatement(sql: """
            SELECT o.entity, o.gid, l.local_key, \(Self.existsSQL), cells FROM temp.piece p CROSS JOIN objects o ON o.entity = p.entity AND o.gid = p.gid
            LEFT JOIN locals l ON l.entity = o.entity AND l.gid = o.gid
            """))
        defer { objects.reset() }   // also when a row's cells do not unpack
        var inOrder = true
        while try objects.step(db) {
            let key = GlobalObjectKey(entity: objects.text(0), gid: objects.text(1))
            let state = ObjectState(localKey: objects.isNull(2) ? nil : objects.int64(2), exists: objects.int64(3) != 0)
            let cells = try Self.unpack(objects.isNull(4) ? nil : objects.bytes(4), key)
            if let last = dirty.last?.0, !(last < key) { inOrder = false }
            dirty.append((key, state, cells, [:]))
        }
        if !inOrder { dirty.sort { $0.0 < $1.0 } }
        guard !dirty.isEmpty else { return [] }
        let members = RawBinding(try db.cachedStatement(sql: """
            SELECT m.entity, m.gid, m.relationship, m.member FROM temp.piece p CROSS JOIN members m ON m.entity = p.entity AND m.gid = p.gid
            WHERE m.present = 1
            """))
        var position: [GlobalObjectKey: Int] = [:]
        while try members.step(db) {
            if position.isEmpty { position = Dictionary(uniqueKeysWithValues: dirty.indices.map { (dirty[$0].0, $0) }) }
            guard let index = position[GlobalObjectKey(entity: members.text(0), gid: members.text(1))] else { continue }
            dirty[index].members[members.text(2), default: []].insert(ByteIdentifier(members.text(3)))
        }
        return dirty
    }

    /// Marks `keys` clean (after a merge's save wrote them).
    func clearDirty(_ keys: [GlobalObjectKey]) throws {
        let statement = try db.cachedStatement(sql: "DELETE FROM dirty WHERE entity = ? AND gid = ?")
        for key in keys {
            var binding = RawBinding(statement)
            binding.bind(key.entity); binding.bind(key.gid)
            _ = try binding.run(db)
        }
    }

    /// Marks `key` dirty (the state knows it from then on).
    func markDirty(_ key: GlobalObjectKey) throws {
        try know(key)
        var binding = RawBinding(try db.cachedStatement(sql: "INSERT OR IGNORE INTO dirty (entity, gid) VALUES (?, ?)"))
        binding.bind(key.entity); binding.bind(key.gid)
        _ = try binding.run(db)
    }

    /// Marks dirty every object of `entities` that has a row in the store; returns how many
    /// were marked.
    @discardableResult
    func markDirty(entities: [String]) throws -> Int {
        let statement = try db.cachedStatement(sql: "INSERT OR IGNORE INTO dirty (entity, gid) SELECT entity, gid FROM locals WHERE entity = ?")
        var marked = 0
        for entity in entities {
            try statement.execute(arguments: [entity])
            marked += db.changesCount
        }
        return marked
    }

    /// Notes that the store lacks `referrer`'s link to `target` because `target` has no row
    /// (deleted, unknown, or not created yet), so that the link is written once it has one:
    /// an object deleted and inserted again, or whose insert arrives after a link to it, must
    /// be linked again by the objects that still name it. A target that names no existing
    /// object is noted under the relationship's destination, which may be a superentity of
    /// the object that later gets the row (``SyncModel/referenceKeys(_:)`` finds it).
    func noteDanglingLink(to target: GlobalObjectKey, from referrer: GlobalObjectKey) throws {
        var binding = RawBinding(try db.cachedStatement(sql: "INSERT OR IGNORE INTO dangling (entity, gid, ref_entity, ref_gid) VALUES (?, ?, ?, ?)"))
        binding.bind(target.entity); binding.bind(target.gid); binding.bind(referrer.entity); binding.bind(referrer.gid)
        _ = try binding.run(db)
    }

    /// Marks dirty the objects whose links wait for `keys`' rows (they now have them) and
    /// forgets those notes; returns how many objects were marked. One statement when no link
    /// waits, as is usual. Callers pass ``SyncModel/referenceKeys(_:)`` of the objects, so
    /// that a note under a superentity is found.
    @discardableResult
    func resolveDanglingLinks(to keys: [GlobalObjectKey]) throws -> Int {
        guard !keys.isEmpty, try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM dangling)")) == true else { return 0 }
        let mark = try db.cachedStatement(sql: """
            INSERT OR IGNORE INTO dirty (entity, gid) SELECT o.entity, o.gid FROM dangling d JOIN objects o ON o.entity = d.ref_entity AND o.gid = d.ref_gid
            WHERE d.entity = ? AND d.gid = ?
            """)
        let forget = try db.cachedStatement(sql: "DELETE FROM dangling WHERE entity = ? AND gid = ?")
        var marked = 0
        for key in keys {
            try mark.execute(arguments: [key.entity, key.gid])
            marked += db.changesCount
            try forget.execute(arguments: [key.entity, key.gid])
        }
        return marked
    }

    // MARK: Merging records

    /// Merges stamped records: each wins where its stamp is newer than what the state holds.
    /// `dirty` marks the objects that changed for the store (remote records) or not (records
    /// exported from the store itself). Returns how many records changed the state.
    ///
    /// Records of one object in a row (files list an object's records together) cost one
    /// read and at most one write of its `objects` row, whatever the number of cells; each
    /// to-many member is its own row. Objects are merged in key order.
    @discardableResult
    func merge(_ records: [StampedRecord], dirty: Bool) throws -> Int {
        let statements = MergeStatements(
            select: try db.cachedStatement(sql: "SELECT ins_l, ins_t, ins_p, del_l, del_t, del_p, cells FROM objects WHERE entity = ? AND gid = ?"),
            insert: try db.cachedStatement(sql: """
                INSERT INTO objects (entity, gid, ins_l, ins_t, ins_p, del_l, del_t, del_p, cells) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """),
            update: try db.cachedStatement(sql: """
                UPDATE objects SET ins_l = ?, ins_t = ?, ins_p = ?, del_l = ?, del_t = ?, del_p = ?, cells = ? WHERE entity = ? AND gid = ?
                """),
            member: try db.cachedStatement(sql: Self.mergeMemberSQL),
            dirty: try db.cachedStatement(sql: "INSERT OR IGNORE INTO dirty (entity, gid) VALUES (?, ?)"))
        // Runs of one object's records, merged in key order: the state's B-trees are walked
        // forward, not at random (at 100 000 objects, random order costs several times more).
        // Records of different objects never interact; one object's runs keep their order.
        let runs = MergeRun.inKeyOrder(records)
        var changed = 0
        for run in runs { changed += try merge(records[run.range], of: run.key, dirty: dirty, statements) }
        return changed
    }

    private struct MergeStatements {
        let select, insert, update, member, dirty: Statement
    }

    private static let mergeMemberSQL = """
        INSERT INTO members (entity, gid, relationship, member, present, l, t, p) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (entity, gid, relationship, member) DO UPDATE SET present = excluded.present, l = excluded.l, t = excluded.t, p = excluded.p
        WHERE (excluded.l, excluded.t, excluded.p) > (members.l, members.t, members.p)
        """

    /// Merges records of one object; returns how many changed the state.
    private func merge(_ records: ArraySlice<StampedRecord>, of key: GlobalObjectKey, dirty: Bool, _ statements: MergeStatements) throws -> Int {
        var read = RawBinding(statements.select)
        read.bind(key.entity); read.bind(key.gid)
        let hasRow = try read.step(db)
        func stamp(_ column: Int32) -> Stamp? {
            read.isNull(column) ? nil : Stamp(lamport: read.int64(column), milliseconds: read.int64(column + 1), peer: read.text(column + 2))
        }
        var inserted = hasRow ? stamp(0) : nil, deleted = hasRow ? stamp(3) : nil
        let packed: [UInt8]? = hasRow && !read.isNull(6) ? read.bytes(6) : nil
        if hasRow { read.reset() }
        var cells: PackedCells?
        var stampsChanged = false, cellsChanged = false, membersChanged = false
        var changed = 0
        for stamped in records {
            let s = stamped.stamp
            switch stamped.record {
            case .insert:
                guard inserted.map({ $0 < s }) ?? true else { continue }
                inserted = s; stampsChanged = true
            case .delete:
                guard deleted.map({ $0 < s }) ?? true else { continue }
                deleted = s; stampsChanged = true
            case .cell(_, let property, let value):
                if cells == nil { cells = try Self.unpack(packed, key) }
                guard cells!.merge(property, value: value, stamp: s) else { continue }
                cellsChanged = true
            case .member(_, let relationship, let member, let present):
                var binding = RawBinding(statements.member)
                binding.bind(key.entity); binding.bind(key.gid); binding.bind(relationship); binding.bind(member)
                binding.bind(present ? 1 : 0)
                binding.bind(s.lamport); binding.bind(s.milliseconds); binding.bind(s.peer)
                guard try binding.run(db) > 0 else { continue }
                membersChanged = true
            }
            changed += 1
        }
        guard stampsChanged || cellsChanged || membersChanged else { return 0 }
        var write = RawBinding(hasRow ? statements.update : statements.insert)
        if !hasRow { write.bind(key.entity); write.bind(key.gid) }
        for stamp in [inserted, deleted] {
            if let stamp { write.bind(stamp.lamport); write.bind(stamp.milliseconds); write.bind(stamp.peer) } else { write.bindNull(); write.bindNull(); write.bindNull() }
        }
        if let cells, !cells.isEmpty { write.bind(cells.bytes) } else if let packed { write.bind(packed) } else { write.bindNull() }
        if hasRow { write.bind(key.entity); write.bind(key.gid) }
        _ = try write.run(db)
        if dirty {
            var mark = RawBinding(statements.dirty)
            mark.bind(key.entity); mark.bind(key.gid)
            _ = try mark.run(db)
        }
        return changed
    }

    /// The whole merge state as stamped records (for a baseline), in a fixed order.
    func allRecords() throws -> [StampedRecord] {
        var records: [StampedRecord] = []
        var cellRecords: [StampedRecord] = []
        let objects = try Row.fetchCursor(db, sql: "SELECT entity, gid, ins_l, ins_t, ins_p, del_l, del_t, del_p, cells FROM objects ORDER BY entity, gid")
        while let row = try objects.next() {
            let key = GlobalObjectKey(entity: row[0], gid: row[1])
            if let l: Int64 = row[2] { records.append(StampedRecord(stamp: Stamp(lamport: l, milliseconds: row[3], peer: row[4]), record: .insert(key))) }
            if let l: Int64 = row[5] { records.append(StampedRecord(stamp: Stamp(lamport: l, milliseconds: row[6], peer: row[7]), record: .delete(key))) }
            for entry in try Self.unpack((row[8] as Data?).map { [UInt8]($0) }, key).entries {
                cellRecords.append(StampedRecord(stamp: entry.cell.stamp, record: .cell(key, property: entry.property, value: entry.cell.value)))
            }
        }
        // The order of schema 1: every object's stamps, then every cell, then every member.
        records += cellRecords
        let members = try Row.fetchCursor(db, sql: "SELECT entity, gid, relationship, member, present, l, t, p FROM members ORDER BY entity, gid, relationship, member")
        while let row = try members.next() {
            records.append(StampedRecord(stamp: Stamp(lamport: row[5], milliseconds: row[6], peer: row[7]),
                                         record: .member(GlobalObjectKey(entity: row[0], gid: row[1]), relationship: row[2], member: row[3], present: row[4])))
        }
        return records
    }

    // MARK: Files

    func isIntegrated(_ name: String) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM integrated WHERE name = ?"), arguments: [name]) ?? false
    }

    func markIntegrated(_ name: String, peer: String, sequence: Int64, lamport: Int64) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO integrated (name, peer, seq, lamport) VALUES (?, ?, ?, ?)", arguments: [name, peer, sequence, lamport])
    }

    /// For each peer: the files held without a gap, from merged baselines and events.
    func coverage() throws -> [EventCoverage] {
        var result: [String: EventCoverage] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT peer, seq, lamport FROM coverage") {
            result[row[0]] = EventCoverage(peer: row[0], sequence: row[1], lamport: row[2])
        }
        let rows = try Row.fetchCursor(db, sql: "SELECT peer, seq, lamport FROM integrated ORDER BY peer, seq")
        while let row = try rows.next() {
            let peer: String = row[0], seq: Int64 = row[1]
            let current = result[peer] ?? EventCoverage(peer: peer, sequence: 0, lamport: 0)
            if seq <= current.sequence { continue }
            if seq == current.sequence + 1 { result[peer] = EventCoverage(peer: peer, sequence: seq, lamport: max(current.lamport, row[2])) }
        }
        return result.values.sorted { $0.peer < $1.peer }
    }

    /// Records what a merged baseline held.
    func absorbCoverage(_ entries: [EventCoverage]) throws {
        for entry in entries {
            try db.execute(sql: """
                INSERT INTO coverage (peer, seq, lamport) VALUES (?, ?, ?)
                ON CONFLICT (peer) DO UPDATE SET seq = excluded.seq, lamport = excluded.lamport WHERE excluded.seq > coverage.seq
                """, arguments: [entry.peer, entry.sequence, entry.lamport])
        }
    }

    // MARK: Outbox

    func addToOutbox(_ name: String, _ data: Data) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO outbox (name, data) VALUES (?, ?)", arguments: [name, data])
    }

    /// The files to send: never sent, or sent and not seen whole since.
    func outbox() throws -> [(String, Data)] {
        try Row.fetchAll(db, sql: "SELECT name, data FROM outbox WHERE uploaded = 0 ORDER BY name").map { ($0[0], $0[1]) }
    }

    /// The files sent and waiting to be seen whole in a listing, with their sizes.
    func sentFiles() throws -> [(String, Int)] {
        try Row.fetchAll(db, sql: "SELECT name, length(data) FROM outbox WHERE uploaded = 1 ORDER BY name").map { ($0[0], $0[1]) }
    }

    func markSent(_ name: String, _ sent: Bool) throws {
        try db.execute(sql: "UPDATE outbox SET uploaded = ? WHERE name = ?", arguments: [sent, name])
    }

    func removeFromOutbox(_ name: String) throws {
        try db.execute(sql: "DELETE FROM outbox WHERE name = ?", arguments: [name])
    }
}
