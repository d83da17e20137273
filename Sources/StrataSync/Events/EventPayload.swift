import Foundation

/// What an `events` or `baseline` change file holds, inside the ``ChangeFile`` container:
/// the peer's sequence number for the file, the coverage of a baseline, and the stamped
/// records, with the stamps and the entity and property names each written once.
///
/// Layout (version 1), all integers LEB128 varints unless noted:
/// `u8 version · sequence · coverage count · (peer, sequence, lamport)… · stamp count ·
/// (lamport, zigzag ms, peer)… · name count · name… · record count · record…`, where a
/// record is `u8 kind · stamp index · entity name index · gid` followed by, for a cell,
/// `property name index · value bytes`, and for a member, `relationship name index ·
/// member gid · u8 present`.
struct EventPayload: Hashable, Sendable {
    static let version: UInt8 = 1

    /// The writing peer's number for this file (1, 2, …); 0 for a baseline.
    var sequence: Int64
    /// For a baseline: the event files it holds.
    var coverage: [EventCoverage]
    var records: [StampedRecord]

    private enum Kind: UInt8 { case insert = 1, delete, cell, member }

    func encoded() -> Data {
        var stamps: [Stamp] = []
        var stampIndex: [Stamp: Int] = [:]
        var names: [String] = []
        var nameIndex: [String: Int] = [:]
        func index(of stamp: Stamp) -> Int {
            if let i = stampIndex[stamp] { return i }
            stamps.append(stamp); stampIndex[stamp] = stamps.count - 1
            return stamps.count - 1
        }
        func index(of name: String) -> Int {
            if let i = nameIndex[name] { return i }
            names.append(name); nameIndex[name] = names.count - 1
            return names.count - 1
        }
        var body = ByteWriter()
        body.writeVarint(UInt64(records.count))
        for stamped in records {
            let key = stamped.record.object
            let kind: Kind = switch stamped.record {
            case .insert: .insert
            case .delete: .delete
            case .cell: .cell
            case .member: .member
            }
            body.write(kind.rawValue)
            body.writeVarint(UInt64(index(of: stamped.stamp)))
            body.writeVarint(UInt64(index(of: key.entity)))
            body.writeString(key.gid)
            switch stamped.record {
            case .insert, .delete: break
            case .cell(_, let property, let value):
                body.writeVarint(UInt64(index(of: property)))
                body.writeBytes(value)
            case .member(_, let relationship, let member, let present):
                body.writeVarint(UInt64(index(of: relationship)))
                body.writeString(member)
                body.write(UInt8(present ? 1 : 0))
            }
        }
        var head = ByteWriter()
        head.write(Self.version)
        head.writeVarint(UInt64(sequence))
        head.writeVarint(UInt64(coverage.count))
        for entry in coverage {
            head.writeString(entry.peer); head.writeVarint(UInt64(entry.sequence)); head.writeVarint(UInt64(entry.lamport))
        }
        head.writeVarint(UInt64(stamps.count))
        for stamp in stamps {
            head.writeVarint(UInt64(stamp.lamport)); head.writeSigned(stamp.milliseconds); head.writeString(stamp.peer)
        }
        head.writeVarint(UInt64(names.count))
        for name in names { head.writeString(name) }
        return Data(head.bytes + body.bytes)
    }

    /// Decodes a payload; throws ``SyncError/Code/corruptFile`` for bytes that are not one
    /// (the container's checksum passed, so this is a writer's bug or a forged file) and
    /// ``SyncError/Code/unknownFormatVersion`` for a later version.
    static func decode(_ data: Data, file: String) throws(SyncError) -> EventPayload {
        var records: [StampedRecord] = []
        do {
            let head = try decode(data, file: file, piece: Int.max) { piece in records += piece }
            return EventPayload(sequence: head.sequence, coverage: head.coverage, records: records)
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.corruptFile, "the event payload could not be read: \(error)", path: file)
        }
    }

    /// Decodes a payload's records in pieces of at most `piece` records, handing each to
    /// `body` (so a large baseline is never held decoded whole); returns the sequence and the
    /// coverage. Throws as ``decode(_:file:)`` does, after `body` has seen the pieces before
    /// the damage: a caller that must merge all or nothing runs it inside one transaction.
    /// Rethrows what `body` throws.
    static func decode(_ data: Data, file: String, piece: Int,
                       _ body: ([StampedRecord]) throws -> Void) throws -> (sequence: Int64, coverage: [EventCoverage]) {
        var reader = ByteReader([UInt8](data))
        func damaged(_ what: String) -> SyncError { SyncError(.corruptFile, "the event payload is damaged (\(what))", path: file) }
        guard let version = reader.read(UInt8.self) else { throw damaged("empty") }
        guard version <= Self.version else {
            throw SyncError(.fromTheFuture, "event payload version \(version) is newer than this version of StrataSync reads (\(Self.version))", path: file)
        }
        guard version == Self.version else { throw SyncError(.unknownFormatVersion, "event payload version \(version) was never written", path: file) }
        guard let sequence = reader.readVarint().flatMap(Int64.init(exactly:)), let coverageCount = reader.readCount() else { throw damaged("head") }
        var coverage: [EventCoverage] = []
        for _ in 0..<coverageCount {
            guard let peer = reader.readString(), let seq = reader.readVarint().flatMap(Int64.init(exactly:)),
                  let lamport = reader.readVarint().flatMap(Int64.init(exactly:)) else { throw damaged("coverage") }
            coverage.append(EventCoverage(peer: peer, sequence: seq, lamport: lamport))
        }
        guard let stampCount = reader.readCount() else { throw damaged("stamps") }
        var stamps: [Stamp] = []
        stamps.reserveCapacity(stampCount)
        for _ in 0..<stampCount {
            guard let lamport = reader.readVarint().flatMap(Int64.init(exactly:)), let ms = reader.readSigned(), let peer = reader.readString() else { throw damaged("stamps") }
            stamps.append(Stamp(lamport: lamport, milliseconds: ms, peer: peer))
        }
        guard let nameCount = reader.readCount() else { throw damaged("names") }
        var names: [String] = []
        names.reserveCapacity(nameCount)
        for _ in 0..<nameCount {
            guard let name = reader.readString() else { throw damaged("names") }
            names.append(name)
        }
        func name(_ raw: UInt64?) -> String? { raw.flatMap { Int(exactly: $0) }.flatMap { $0 < names.count ? names[$0] : nil } }
        guard let recordCount = reader.readCount() else { throw damaged("records") }
        let pieceSize = max(1, min(piece, recordCount))
        var records: [StampedRecord] = []
        records.reserveCapacity(pieceSize)
        // A file lists an object's records together: their identifier is read into one string.
        var lastGid: String?
        for _ in 0..<recordCount {
            guard let rawKind = reader.read(UInt8.self), let kind = Kind(rawValue: rawKind),
                  let stampRaw = reader.readVarint(), let s = Int(exactly: stampRaw), s < stamps.count,
                  let entity = name(reader.readVarint()), let gid = reader.readString(reusing: lastGid) else { throw damaged("record") }
            lastGid = gid
            let key = GlobalObjectKey(entity: entity, gid: gid)
            let record: EventRecord
            switch kind {
            case .insert: record = .insert(key)
            case .delete: record = .delete(key)
            case .cell:
                guard let property = name(reader.readVarint()), let value = reader.readBytes() else { throw damaged("cell") }
                record = .cell(key, property: property, value: value)
            case .member:
                guard let relationship = name(reader.readVarint()), let member = reader.readString(),
                      let present = reader.read(UInt8.self), present <= 1 else { throw damaged("member") }
                record = .member(key, relationship: relationship, member: member, present: present == 1)
            }
            records.append(StampedRecord(stamp: stamps[s], record: record))
            if records.count == pieceSize {
                try body(records)
                records.removeAll(keepingCapacity: true)
            }
        }
        guard reader.isAtEnd else { throw damaged("trailing bytes") }
        if !records.isEmpty { try body(records) }
        return (sequence, coverage)
    }
}
