import Foundation
import Strata
import StrataRandom
@testable import StrataFetchedResults
import Testing

@Suite("ObjectIDTable")
struct ObjectIDTableTests {
    let rows = rowModel.entities.first { $0.name == "Row" }
    let lists = rowModel.entities.first { $0.name == "RowList" }

    @Test func storesFindsAndRemovesAcrossEntitiesAndKeyKinds() throws {
        let rows = try #require(rows), lists = try #require(lists)
        var table = ObjectIDTable<Int>()
        // The first key, two entities sharing a key, and a key past the paged range. (Too few
        // to be paged: the dictionary side; pages are `denseKeysArePagedAndEmptiedPagesFreed`'s.)
        let ids = [ObjectID(entity: rows, primaryKey: 1), ObjectID(entity: rows, primaryKey: 1_023),
                   ObjectID(entity: rows, primaryKey: 1_024), ObjectID(entity: rows, primaryKey: 0),
                   ObjectID(entity: lists, primaryKey: 1_024), ObjectID(entity: rows, primaryKey: 1 << 40)]
        for (value, id) in ids.enumerated() { table[id] = value }
        #expect(table.count == ids.count)
        for (value, id) in ids.enumerated() { #expect(table[id] == value) }
        #expect(table[ObjectID(entity: rows, primaryKey: 2)] == nil)
        #expect(table[ObjectID(entity: lists, primaryKey: 1)] == nil)   // the same key, another entity

        table[ids[1]] = 41   // replacing is not adding
        #expect(table.count == ids.count)
        #expect(table.removeValue(forKey: ids[2]) == 2)
        #expect(table.removeValue(forKey: ids[2]) == nil)
        #expect(table[ids[2]] == nil)
        table[ids[5]] = nil
        #expect(table.count == ids.count - 2)

        var seen: [ObjectID: Int] = [:]
        table.forEach { id, value in seen[id] = value }
        #expect(seen == [ids[0]: 0, ids[1]: 41, ids[3]: 3, ids[4]: 4])
        #expect(!table.hasTemporaryKeys)
    }

    /// Whether any value is held under a temporary ID follows every set, replace and removal.
    @Test func knowsWhetherItHoldsTemporaryKeys() async throws {
        let directory = TemporaryDirectory()
        let context = ObjectContext(.privateQueue, coordinator: try await makeCoordinator(directory))
        let (first, second) = context.performAndWait { (context.insert(Row.self).objectID, context.insert(Row.self).objectID) }
        #expect(first.isTemporary && second.isTemporary)
        var table = ObjectIDTable<Int>()
        table[ObjectID(entity: try #require(rows), primaryKey: 1)] = 0
        #expect(!table.hasTemporaryKeys)
        table[first] = 1
        table[second] = 2
        table[first] = 3   // replacing is not adding
        #expect(table.hasTemporaryKeys)
        table[first] = nil
        #expect(table.hasTemporaryKeys)
        #expect(table.removeValue(forKey: second) == 2)
        #expect(!table.hasTemporaryKeys)
        #expect(table.temporaryKeys.isEmpty && table.count == 1)
    }

    /// Dense keys move to pages once there are enough of them; a page is freed when it empties.
    @Test func denseKeysArePagedAndEmptiedPagesFreed() throws {
        let rows = try #require(rows)
        var table = ObjectIDTable<Int>()
        for key in 1...5_000 { table[ObjectID(entity: rows, primaryKey: Int64(key))] = key }
        #expect(table.count == 5_000)
        #expect(table.pagesInUse == 5)   // keys 1…5 000: pages 0…4
        for key in 1...5_000 { #expect(table[ObjectID(entity: rows, primaryKey: Int64(key))] == key) }
        for key in 1_024..<2_048 { table[ObjectID(entity: rows, primaryKey: Int64(key))] = nil }
        #expect(table.pagesInUse == 4)
        #expect(table.count == 5_000 - 1_024)
        #expect(table[ObjectID(entity: rows, primaryKey: 1_500)] == nil)
        table[ObjectID(entity: rows, primaryKey: 1_500)] = 7   // a page comes back when needed
        #expect(table[ObjectID(entity: rows, primaryKey: 1_500)] == 7)
        #expect(table.pagesInUse == 5)
    }

    /// A filtered list over a large table holds keys far apart: pages would hold almost nothing.
    @Test func sparseKeysStayInTheDictionary() throws {
        let rows = try #require(rows)
        var table = ObjectIDTable<Int>()
        for i in 0..<5_000 { table[ObjectID(entity: rows, primaryKey: Int64(i * 100))] = i }
        #expect(table.count == 5_000)
        #expect(table.pagesInUse == 0)
        #expect(table[ObjectID(entity: rows, primaryKey: 4_200)] == 42)
        #expect(table[ObjectID(entity: rows, primaryKey: 4_201)] == nil)
    }

    /// IDs compare by the entity's position in its model: an ID made with another instance of
    /// the same model finds the same entry, as it would in a dictionary.
    @Test func anotherInstanceOfTheModelNamesTheSameEntries() throws {
        let rows = try #require(rows)
        let twin = try ObjectModel(RowList.self, Row.self)
        let twinRows = try #require(twin.entities.first { $0.name == "Row" })
        var table = ObjectIDTable<Int>()
        for key in 1...5_000 { table[ObjectID(entity: rows, primaryKey: Int64(key))] = key }
        #expect(table[ObjectID(entity: twinRows, primaryKey: 77)] == 77)
        #expect(ObjectID(entity: twinRows, primaryKey: 77) == ObjectID(entity: rows, primaryKey: 77))
    }

    @Test func holdsTemporaryIDsBesideThePages() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let temporaries = context.performAndWait { (0..<3).map { _ in context.insert(Row.self).objectID } }
        #expect(temporaries.allSatisfy { $0.isTemporary })
        var table = ObjectIDTable<String>()
        for (i, id) in temporaries.enumerated() { table[id] = "t\(i)" }
        let rows = try #require(rows)
        for key in 1...5_000 { table[ObjectID(entity: rows, primaryKey: Int64(key))] = "p\(key)" }
        #expect(table.count == 5_003)
        #expect(table.hasTemporaryKeys)
        #expect(Set(table.temporaryKeys) == Set(temporaries))
        #expect(table[temporaries[1]] == "t1")
        table[temporaries[1]] = nil
        #expect(table.count == 5_002)
        #expect(Set(table.temporaryKeys) == [temporaries[0], temporaries[2]])
    }

    /// Random sets and removals over a dense entity (paged once it has enough), a sparse one and
    /// huge keys, checked against a dictionary after every step.
    @Test(arguments: [1, 2, 3])
    func agreesWithADictionary(seed: UInt64) throws {
        let dense = try #require(rows), sparse = try #require(lists)
        var generator = SplitMix64(seed: seed)
        var table = ObjectIDTable<Int>()
        var oracle: [ObjectID: Int] = [:]
        for step in 0..<20_000 {
            let id: ObjectID
            switch Int.random(in: 0..<10, using: &generator) {
            case 0: id = ObjectID(entity: sparse, primaryKey: Int64.random(in: 0..<1_000, using: &generator) * 1_000)
            case 1: id = ObjectID(entity: dense, primaryKey: Int64.random(in: (1 << 26)...(1 << 40), using: &generator))
            default: id = ObjectID(entity: dense, primaryKey: Int64.random(in: 0..<8_000, using: &generator))
            }
            if Int.random(in: 0..<3, using: &generator) > 0 {   // mostly sets, so the dense entity grows past the threshold
                table[id] = step
                oracle[id] = step
            } else {
                #expect(table.removeValue(forKey: id) == oracle.removeValue(forKey: id))
            }
            #expect(table.count == oracle.count)
            #expect(table[id] == oracle[id])
        }
        #expect(table.pagesInUse > 0)   // the dense entity was paged on the way
        var seen: [ObjectID: Int] = [:]
        table.forEach { id, value in seen[id] = value }
        #expect(seen == oracle)
    }
}
