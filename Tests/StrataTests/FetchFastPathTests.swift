import Foundation
import GRDB
import Testing
@testable import Strata

/// The shortcuts of the fetch path answer as the general code does: ASCII text read without
/// the generic validator, results cast by class identity, fault pages filled by position.
@Suite struct FetchFastPathTests {
    @Test func asciiCheckLooksAtEveryByte() {
        let cases: [([UInt8], Bool)] = [
            ([], true),
            (Array("abc".utf8), true),
            (Array("exactly8".utf8), true),
            (Array("seventeen bytes!!".utf8), true),
            (Array("abcdefg".utf8) + [0xFF], false),                 // last byte of the first word
            (Array("abcdefgh".utf8) + [0x80], false),                // the tail after a word
            (Array("abcdefghijklmno".utf8) + [0xC3] + Array("p".utf8), false),   // second word
            (Array("café au lait".utf8), false),
        ]
        for (bytes, expected) in cases {
            let answer = bytes.withUnsafeBufferPointer { RawStatement.isASCII($0) }
            #expect(answer == expected, "\(bytes)")
        }
    }

    @Test func longTextReadsBackExactlyAndLongInvalidTextIsAnError() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await openSamples(dir.file())
        let texts = ["plain ASCII text longer than eight bytes", "ünïcödé text longer than eight bytes", "short"]
        try await context.perform {
            for (i, text) in texts.enumerated() {
                let sample = context.insert(Sample.self)
                sample.name = "s\(i)"
                sample.text = text
            }
            try context.save()
        }
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        try await reader.perform {
            var request = FetchRequest<Sample>(sortKeys: [SortKey("name")])
            request.returnsObjectsAsFaults = false
            let read = try reader.fetch(request).map { Array($0.text.utf8) }
            #expect(read == texts.map { Array($0.utf8) })
        }
        // Another program writes text that is not UTF-8, its bad byte past the first eight.
        let foreign = try DatabaseQueue(path: dir.file().path)
        try await foreign.write { try $0.execute(sql: "UPDATE Sample SET text = CAST(X'616263646566676869FF6A' AS TEXT) WHERE name = 's0'") }
        try foreign.close()
        let fresh = ObjectContext(.privateQueue, coordinator: coordinator)
        try await fresh.perform {
            do { _ = try fresh.fetch(FetchRequest<Sample>()); Issue.record("invalid UTF-8 read as text") }
            catch let error as StrataError {
                #expect(error.code == .undecodableValue)
                #expect(error.key == "text")
            }
        }
    }

    @Test func resultsOfABaseClassRequestKeepEveryObject() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await openSamples(dir.file())
        try await context.perform {
            for i in 0..<3 { context.insert(Sample.self).name = "s\(i)" }
            try context.save()
        }
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        try await reader.perform {
            // `ManagedObject` is not the entity's class: the objects go through the general cast.
            let all = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Sample"))
            #expect(all.count == 3)
            #expect(all.allSatisfy { $0 is Sample })
            let typed = try reader.fetch(FetchRequest<Sample>())
            #expect(Set(typed.map(\.name)) == ["s0", "s1", "s2"])
            #expect(zip(all, typed).allSatisfy { $0 === $1 })   // one object per row
        }
    }

    @Test func aFaultPageWithARowGoneFillsTheOthersAndReportsTheMissingOne() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await openSamples(dir.file())
        try await context.perform {
            for i in 0..<5 { context.insert(Sample.self).name = "s\(i)" }
            try context.save()
        }
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        let samples = try await reader.perform {
            var request = FetchRequest<Sample>(sortKeys: [SortKey("name")])
            request.fetchBatchSize = 10
            return try reader.fetch(request).map(\.objectID)
        }
        let foreign = try DatabaseQueue(path: dir.file().path)
        try await foreign.write { try $0.execute(sql: "DELETE FROM Sample WHERE name = 's2'") }
        try foreign.close()
        try await reader.perform {
            let objects = samples.compactMap { reader.object(with: $0) as? Sample }
            try #require(objects.count == 5)
            #expect(objects[0].name == "s0")   // fires the page: rows come back without s2
            #expect(objects.map(\.name) == ["s0", "s1", "", "s3", "s4"])
            do { _ = try reader.existingObject(with: samples[2]); Issue.record("the deleted row was found") }
            catch let error as StrataError { #expect(error.code == .objectNotFound) }
        }
    }
}
