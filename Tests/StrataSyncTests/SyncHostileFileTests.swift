import Foundation
import GRDB
import Strata
import Testing
@testable import StrataSync

/// Files a broken or hostile cloud may hold among the real ones: each is reported in
/// `SyncReport.skippedFiles` with its code, changes nothing in the store, and does not stop
/// the other files from merging.
@Suite struct SyncHostileFileTests {
    /// A container holding `payload`, as peer `peer` at `lamport` would write it.
    static func file(_ peer: String, _ lamport: UInt64, _ model: ObjectModel, payload: Data) throws -> (ChangeFileName, Data) {
        let header = try ChangeFileHeader(lamport: lamport, peer: try PeerID(peer), kind: .events,
                                          modelVersion: String(model.versionHash.prefix(ChangeFileHeader.maxModelVersionLength)))
        return (header.fileName, ChangeFile(header: header, payload: payload).encoded())
    }

    static func payload(stampedBy peer: String, _ lamport: Int64, _ records: [EventRecord]) -> Data {
        let stamp = Stamp(lamport: lamport, milliseconds: 1_700_000_000_000, peer: peer)
        return EventPayload(sequence: 1, coverage: [], records: records.map { StampedRecord(stamp: stamp, record: $0) }).encoded()
    }

    /// Entity and property names are the model's only byte for byte, as the state keys them.
    /// Model names are ASCII, but a few other characters are canonically equivalent to ASCII
    /// ones (the Kelvin sign U+212A to "K"), and Swift's `==` takes such a spelling as equal:
    /// it is `modelMismatch`.
    @Test func namesThatDifferInTheirBytesAreModelMismatches() async throws {
        #expect("\u{212A}ind" == "Kind", "Swift's own string equality")
        let model = try ObjectModel(entities: [
            EntityDescription("Kettle", attributes: [
                AttributeDescription("uniqueIdentifier", type: .string), AttributeDescription("Kind", type: .string),
            ]),
        ])
        let memory = MemoryCloudFileSystem()
        let b = try await SyncPeer("b", cloud: memory, model: model)
        try await b.ensemble.attach()
        let kettle = GlobalObjectKey(entity: "Kettle", gid: "k1")
        let value = CellValue.attribute(.string("x")).encoded
        let files = [
            try Self.file("kelvinentity", 900, model, payload: Self.payload(stampedBy: "kelvinentity", 900, [
                .insert(GlobalObjectKey(entity: "\u{212A}ettle", gid: "k0"))])),
            try Self.file("kelvinproperty", 901, model, payload: Self.payload(stampedBy: "kelvinproperty", 901, [
                .insert(kettle), .cell(kettle, property: "\u{212A}ind", value: value)])),
            try Self.file("ascii", 902, model, payload: Self.payload(stampedBy: "ascii", 902, [
                .insert(kettle), .cell(kettle, property: "Kind", value: value)])),
        ]
        let events = try CloudPath("TestEnsemble/events")
        for (name, data) in files { try await memory.upload(data, to: events.appending(name.cloudName)) }
        let report = try await b.ensemble.sync()
        let skipped = Dictionary(report.skippedFiles.map { ($0.path, $0.error.code) }, uniquingKeysWith: { first, _ in first })
        #expect(skipped[try events.appending(files[0].0.cloudName).rawValue] == .modelMismatch)
        #expect(skipped[try events.appending(files[1].0.cloudName).rawValue] == .modelMismatch)
        #expect(report.skippedFiles.count == 2)
        #expect(report.mergedFiles == 1)
        #expect(try await b.count("Kettle") == 1)
    }

    @Test func hostileFilesAreSkippedWithTheirCodesAndTheOthersMerge() async throws {
        let model = try SyncTestModel.make()
        let memory = MemoryCloudFileSystem()
        let a = try await SyncPeer("a", cloud: memory, model: model)
        let b = try await SyncPeer("b", cloud: memory, model: model)
        try await a.edit { try $0.make("Author", ["uniqueIdentifier": "real", "name": "Real"]) }
        try await a.ensemble.attach()
        try await b.ensemble.attach()
        try await b.ensemble.sync()
        let peerA = try #require(await a.ensemble.peerID).rawValue

        let author = GlobalObjectKey(entity: "Author", gid: "forged-author")
        let book = GlobalObjectKey(entity: "Book", gid: "ghost-book")
        var hostile: [(ChangeFileName, Data, SyncError.Code)] = []
        // Another peer's name, records stamped for a third peer.
        let forged = try Self.file(peerA, 900, model, payload: Self.payload(stampedBy: "third", 900, [
            .insert(author), .cell(author, property: "name", value: CellValue.attribute(.string("Forged")).encoded)]))
        hostile.append((forged.0, forged.1, .corruptFile))
        // Garbage bytes under a valid name.
        hostile.append((try ChangeFileName(parsing: "00000000000000000901_garbage_events.strata"), Data((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37) }), .corruptFile))
        // A valid file cut in half.
        let whole = try Self.file("trunc", 902, model, payload: Self.payload(stampedBy: "trunc", 902, [.insert(author)]))
        hostile.append((whole.0, whole.1.prefix(whole.1.count / 2), .truncated))
        // An entity the model lacks.
        let ghostEntity = try Self.file("ghost", 903, model, payload: Self.payload(stampedBy: "ghost", 903, [.insert(GlobalObjectKey(entity: "Ghost", gid: "g"))]))
        hostile.append((ghostEntity.0, ghostEntity.1, .modelMismatch))
        // A property the model lacks, after a record that alone would be valid.
        let ghostProperty = try Self.file("ghostprop", 904, model, payload: Self.payload(stampedBy: "ghostprop", 904, [
            .insert(book), .cell(book, property: "ghost", value: CellValue.attribute(.integer(1)).encoded)]))
        hostile.append((ghostProperty.0, ghostProperty.1, .modelMismatch))
        // A value of another type for an attribute.
        let wrongType = try Self.file("wrongtype", 905, model, payload: Self.payload(stampedBy: "wrongtype", 905, [
            .insert(book), .cell(book, property: "rating", value: CellValue.attribute(.string("five")).encoded)]))
        hostile.append((wrongType.0, wrongType.1, .modelMismatch))
        // A payload of a later version inside a valid container.
        var later = [UInt8](Self.payload(stampedBy: "future", 906, [.insert(book)]))
        later[0] = EventPayload.version + 1
        let future = try Self.file("future", 906, model, payload: Data(later))
        hostile.append((future.0, future.1, .fromTheFuture))

        // Identifiers holding a NUL byte (the state could not find such an object again): an
        // object's, a member's, a reference's.
        let nul = GlobalObjectKey(entity: "Book", gid: "nul\u{0}book")
        let nulObject = try Self.file("nulobject", 907, model, payload: Self.payload(stampedBy: "nulobject", 907, [.insert(nul)]))
        hostile.append((nulObject.0, nulObject.1, .corruptFile))
        let nulMember = try Self.file("nulmember", 908, model, payload: Self.payload(stampedBy: "nulmember", 908, [
            .insert(book), .member(book, relationship: "tags", member: "tag\u{0}", present: true)]))
        hostile.append((nulMember.0, nulMember.1, .corruptFile))
        let nulReference = try Self.file("nulref", 909, model, payload: Self.payload(stampedBy: "nulref", 909, [
            .insert(book), .cell(book, property: "author", value: CellValue.reference("au\u{0}thor").encoded)]))
        hostile.append((nulReference.0, nulReference.1, .corruptFile))
        // The same after valid records of another object of the entity (entities and
        // identifiers are checked once per run of an object's records, never skipped).
        let nulAfter = try Self.file("nulafter", 910, model, payload: Self.payload(stampedBy: "nulafter", 910, [
            .insert(book), .cell(book, property: "rating", value: CellValue.attribute(.integer(1)).encoded), .insert(nul)]))
        hostile.append((nulAfter.0, nulAfter.1, .corruptFile))
        let ghostAfter = try Self.file("ghostafter", 911, model, payload: Self.payload(stampedBy: "ghostafter", 911, [
            .insert(book), .insert(GlobalObjectKey(entity: "Ghost", gid: book.gid))]))
        hostile.append((ghostAfter.0, ghostAfter.1, .modelMismatch))

        let events = try CloudPath("TestEnsemble/events")
        for (name, data, _) in hostile { try await memory.upload(data, to: events.appending(name.cloudName)) }
        // A real edit goes up among them (its count sorts before some and after none of them).
        try await a.edit { try $0.first("Author", "uniqueIdentifier", .string("real"))!.setValue("Real, renamed", forKey: "name") }
        try await a.ensemble.sync()

        let before = try await b.dump()
        for attempt in 1...2 {
            let report = try await b.ensemble.sync()
            let skipped = Dictionary(report.skippedFiles.map { ($0.path, $0.error.code) }, uniquingKeysWith: { first, _ in first })
            for (name, _, code) in hostile {
                let path = try events.appending(name.cloudName).rawValue
                #expect(skipped[path] == code, "sync \(attempt): \(name.rawValue) skipped as \(String(describing: skipped[path]))")
            }
            #expect(report.skippedFiles.count == hostile.count, "sync \(attempt): \(report.skippedFiles.map(\.path))")
            if attempt == 1 { #expect(report.mergedFiles == 1, "a's real edit merges") }
        }
        let after = try await b.dump()
        #expect(after != before)
        #expect(after == (try await a.dump()))
        #expect(!after.contains("forged") && !after.contains("ghost") && !after.contains("Forged"))
        #expect(try await b.count("Book") == 0)
        let name = try await b.context.perform { try b.context.first("Author", "uniqueIdentifier", .string("real"))?.primitiveValue(forKey: "name") }
        #expect(name == .string("Real, renamed"))
    }

    /// A baseline whose records carry a stamp naming no peer (a space, a NUL byte) is skipped as
    /// `corruptFile`: stamps must compare alike as bytes and as strings, and read back whole.
    @Test func aBaselineWithAStampNamingNoPeerIsSkipped() async throws {
        let model = try SyncTestModel.make()
        let memory = MemoryCloudFileSystem()
        let a = try await SyncPeer("a", cloud: memory, model: model)
        try await a.ensemble.attach()
        let author = GlobalObjectKey(entity: "Author", gid: "forged")
        for (lamport, peer) in [(UInt64(950), "bad peer"), (951, "nul\u{0}peer")] {
            let header = try ChangeFileHeader(lamport: lamport, peer: try PeerID("forger"), kind: .baseline,
                                              modelVersion: String(model.versionHash.prefix(ChangeFileHeader.maxModelVersionLength)))
            let stamp = Stamp(lamport: Int64(lamport), milliseconds: 1_700_000_000_000, peer: peer)
            let payload = EventPayload(sequence: 0, coverage: [], records: [StampedRecord(stamp: stamp, record: .insert(author))]).encoded()
            try await memory.upload(ChangeFile(header: header, payload: payload).encoded(), to: try CloudPath("TestEnsemble/baselines").appending(header.fileName.cloudName))
        }
        let report = try await a.ensemble.sync()
        #expect(report.skippedFiles.count == 2, "\(report.skippedFiles.map(\.path))")
        #expect(report.skippedFiles.allSatisfy { $0.error.code == .corruptFile })
        #expect(!(try await a.dump()).contains("forged"))
    }

    /// An identifier attribute holding a NUL byte cannot name the object in the state: the
    /// object syncs under a random identifier instead, and arrives whole.
    @Test func anIdentifierWithANulByteSyncsUnderARandomOne() async throws {
        let (a, b) = try await SyncPeer.pair(MemoryCloudFileSystem())
        try await a.edit { try $0.make("Author", ["uniqueIdentifier": "nul\u{0}byte", "name": "Nul"]) }
        try await a.ensemble.attach()
        try await b.ensemble.attach()
        try await b.ensemble.sync()
        let arrived = try await b.objects("Author", where: "uniqueIdentifier", is: .string("nul\u{0}byte"))
        #expect(arrived.count == 1)
        #expect(try await a.dump() == b.dump())
        for peer in [a, b] {
            let gids = try await peer.ensemble.requireState().read { tx in try Data.fetchAll(tx.db, sql: "SELECT CAST(gid AS BLOB) FROM objects WHERE entity = 'Author'") }
            #expect(gids.count == 1 && gids.allSatisfy { !$0.contains(0) }, "on \(peer.name): the identifier is not the attribute's")
        }
    }
}
