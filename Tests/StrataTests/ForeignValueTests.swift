import Foundation
import GRDB
import Testing
@testable import Strata

/// Values another program wrote into a store's columns, which the attribute cannot hold,
/// read as a typed `.undecodableValue` error — never as a wrong value, never a crash — and
/// the context stays usable.
@Suite struct ForeignValueTests {
    /// A store with one saved sample, whose column `column` another program then set to the
    /// SQL literal `literal`.
    func storeWithForeignValue(_ dir: TemporaryDirectory, column: String, literal: String) async throws -> (StoreCoordinator, ObjectContext) {
        let (coordinator, context) = try await openSamples(dir.file())
        try await context.perform {
            let sample = context.insert(Sample.self)
            sample.name = "victim"
            sample.small = 7
            sample.medium = 7
            sample.large = 7
            sample.identifier = UUID()
            sample.link = URL(string: "https://example.com")
            try context.save()
        }
        let foreign = try DatabaseQueue(path: dir.file().path)
        try await foreign.write { try $0.execute(sql: "UPDATE Sample SET \"\(column)\" = \(literal)") }
        try foreign.close()
        return (coordinator, ObjectContext(.privateQueue, coordinator: coordinator))
    }

    static let cases: [(column: String, literal: String)] = [
        ("small", "100000"),                         // int16 out of range
        ("small", "-32769"),
        ("medium", "1099511627776"),                 // int32 out of range (2^40)
        ("large", "'abc'"),                          // text in an integer column
        ("large", "3.5"),                            // a fraction in an integer column
        ("flag", "'yes'"),
        ("real", "'abc'"),                           // text in a double column
        ("real", "X'0102'"),                         // a blob that is not 8 bytes
        ("moment", "'yesterday'"),
        ("identifier", "X'0102'"),                   // a UUID blob of the wrong size
        ("identifier", "'not-a-uuid'"),
        ("link", "X'00'"),
        ("amount", "'abc'"),
        ("amount", "'12abc'"),                       // Decimal(string:) would read 12
        ("amount", "'1\(String(repeating: "3", count: 50))'"),  // more digits than Decimal holds: no rounding
        ("amount", "'NaN'"),
        ("blob", "42"),
        ("text", "X'FF'"),                           // not UTF-8
        ("text", "CAST(X'61FF' AS TEXT)"),           // text that is not UTF-8
        ("identifier", "CAST(X'FF' AS TEXT)"),
    ]

    @Test(arguments: 0..<cases.count)
    func foreignValueIsATypedErrorAndTheContextStaysUsable(_ index: Int) async throws {
        let (column, literal) = Self.cases[index]
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await storeWithForeignValue(dir, column: column, literal: literal)
        let before = try await coordinator.database.read { try DatabaseValue.fetchOne($0, sql: "SELECT \"\(column)\" FROM Sample") }
        try await context.perform {
            do { _ = try context.fetch(FetchRequest<Sample>()); Issue.record("\(column) = \(literal) read as a value") }
            catch let error as StrataError {
                #expect(error.code == .undecodableValue)
                #expect(error.entity == "Sample")
                #expect(error.key == column)
                #expect(error.objectID != nil)
            }
            do { _ = try context.fetchDictionaries(FetchRequest<Sample>()); Issue.record("\(column) = \(literal) read as a value") }
            catch let error as StrataError { #expect(error.code == .undecodableValue); #expect(error.key == column) }
            // Through a fault: the attribute reads its initial value, never a wrong one.
            var faulting = FetchRequest<Sample>()
            faulting.returnsObjectsAsFaults = true
            let sample = try #require(try context.fetch(faulting).first)
            switch column {
            case "small": #expect(sample.small == 0)
            case "medium": #expect(sample.medium == 0)
            case "large": #expect(sample.large == 0)
            case "identifier": #expect(sample.identifier == nil)
            case "amount": #expect(sample.amount == 0)
            case "text": #expect(sample.text == "")
            default: break
            }
            #expect(sample.name == "victim")
            // Other edits save, and leave the foreign value alone.
            sample.name = "edited"
            try context.save()
        }
        let after = try await coordinator.database.read { try DatabaseValue.fetchOne($0, sql: "SELECT \"\(column)\" FROM Sample") }
        #expect(after == before)
        // Setting the attribute replaces the foreign value; the row then reads normally.
        try await context.perform {
            var faulting = FetchRequest<Sample>()
            faulting.returnsObjectsAsFaults = true
            let sample = try #require(try context.fetch(faulting).first)
            try sample.setValue(Sample.repair[column], forKey: column)
            try context.save()
        }
        let fresh = ObjectContext(.privateQueue, coordinator: coordinator)
        try await fresh.perform {
            let sample = try #require(try fresh.fetch(FetchRequest<Sample>()).first)
            #expect(sample.name == "edited")
            #expect(sample.primitiveValue(forKey: column) != .null)
        }
        try coordinator.close()
    }

    @Test func undecodableTransformableCanBeRepairedAndTheContextStaysUsable() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await storeWithForeignValue(dir, column: "numbers", literal: "X'DEADBEEF'")
        try await context.perform {
            do { _ = try context.fetch(FetchRequest<Sample>()); Issue.record("decoded garbage") }
            catch let error as StrataError { #expect(error.code == .undecodableValue); #expect(error.key == "numbers") }
            var faulting = FetchRequest<Sample>()
            faulting.returnsObjectsAsFaults = true
            let sample = try #require(try context.fetch(faulting).first)
            #expect(sample.numbers == [])
            sample.numbers = [1, 2.5]
            try context.save()
        }
        let fresh = ObjectContext(.privateQueue, coordinator: coordinator)
        try await fresh.perform {
            let numbers = try fresh.fetch(FetchRequest<Sample>()).first?.numbers
            #expect(numbers == [1, 2.5])
        }
        try coordinator.close()
    }

    /// A refresh that keeps local edits takes the row's errors with its values, so a foreign
    /// value written after the object was read is not mistaken for a missing required value.
    @Test func refreshTakesTheErrorOfAForeignValue() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await openSamples(dir.file())
        try await context.perform {
            let sample = context.insert(Sample.self)
            sample.name = "victim"
            sample.small = 7
            try context.save()
            sample.name = "edited"
        }
        let foreign = try DatabaseQueue(path: dir.file().path)
        try await foreign.write { try $0.execute(sql: "UPDATE Sample SET small = 100000") }
        try foreign.close()
        try await context.perform {
            let sample = try #require(context.updatedObjects.first as? Sample)
            context.refresh(sample, mergeChanges: true)
            #expect(sample.small == 0 && sample.name == "edited")
            try context.save()
        }
        let name = try await coordinator.database.read { try String.fetchOne($0, sql: "SELECT name FROM Sample") }
        let small = try await coordinator.database.read { try Int64.fetchOne($0, sql: "SELECT small FROM Sample") }
        #expect(name == "edited")
        #expect(small == 100_000)
        try coordinator.close()
    }

    @Test func aWholeNumberInARealColumnReadsAsAnInteger() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await storeWithForeignValue(dir, column: "large", literal: "CAST(12 AS REAL)")
        let large = try await context.perform { try context.fetch(FetchRequest<Sample>()).first?.large }
        #expect(large == 12)
        try coordinator.close()
    }
}

extension Sample {
    /// A valid value for each key, to repair a foreign one with.
    static let repair: [String: any Sendable] = [
        "small": Int16(1), "medium": Int32(1), "large": Int64(1), "flag": true, "real": 1.5,
        "moment": Date(timeIntervalSince1970: 1), "identifier": UUID(), "link": URL(string: "https://example.org")!,
        "amount": Decimal(1), "blob": Data([1]), "text": "fixed",
    ]
}
