import Foundation
import Strata
import StrataRandom
@testable import StrataFetchedResults
import Testing

@Suite("ObjectIDTable")
struct ObjectIDTableTests {
    let rows = rowModel.entities.first { $0.name == "Row" }
    let lists = rowModel.entities.first { $0.name == "RowList" }

    @Test func storesFindsAndRemovesAcrossPagesEntitiesAndKeyKinds() throws {
        let rows = try #require(rows), lists = try #require(lists)
        var table = ObjectIDTable<Int>()
        // Keys on both sides of a page boundary, the first key, two entities sharing a key,
        // and a key past the paged range.
        let ids = [ObjectID(entity: rows, primaryKey: 1), ObjectID(entity: rows, primaryKey: 1_023),
                   ObjectID(entity: rows, primaryKey: 1_024), ObjectID(entity: rows, primaryKey: 0),
                   ObjectID(entity: lists, primaryKey: 1_024), ObjectID(entity: rows, primaryKey: 1 << 40)]
        for (value, id) in ids.enumerated() { table[id] = value }
        #expect(table.count == ids.count)
        for (value, id) in ids.enumerated() { #expect(table[id] == value) }
        #expect(table[ObjectID(entity: rows, primaryKey: 2)] == nil)
        #expect(table[ObjectID(entity: lists, primaryKey: 1)] == nil)   // the same key, another entity
        #expect(table[ObjectID(entity: lists, primaryKey: 5_000)] == nil)   // past the entity's pages

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

    @Test func holdsTemporaryIDsBesideThePages() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let temporaries = context.performAndWait { (0..<3).map { _ in context.insert(Row.self).objectID } }
        #expect(temporaries.allSatisfy { $0.isTemporary })
        var table = ObjectIDTable<String>()
        for (i, id) in temporaries.enumerated() { table[id] = "t\(i)" }
        let rows = try #require(rows)
        table[ObjectID(entity: rows, primaryKey: 7)] = "p7"
        #expect(table.count == 4)
        #expect(table.hasTemporaryKeys)
        #expect(Set(table.temporaryKeys) == Set(temporaries))
        #expect(table[temporaries[1]] == "t1")
        table[temporaries[1]] = nil
        #expect(table.count == 3)
        #expect(Set(table.temporaryKeys) == [temporaries[0], temporaries[2]])
    }

    /// Random sets and removals, checked against a dictionary after every step.
    @Test(arguments: [1, 2, 3])
    func agreesWithADictionary(seed: UInt64) throws {
        let entities = [try #require(rows), try #require(lists)]
        var generator = SplitMix64(seed: seed)
        var table = ObjectIDTable<Int>()
        var oracle: [ObjectID: Int] = [:]
        for step in 0..<4_000 {
            let entity = entities[Int.random(in: 0..<2, using: &generator)]
            // Mostly dense keys, sometimes huge ones.
            let key = Int.random(in: 0..<10, using: &generator) == 0 ? Int64.random(in: (1 << 26)...(1 << 40), using: &generator)
                                                                      : Int64.random(in: 0..<5_000, using: &generator)
            let id = ObjectID(entity: entity, primaryKey: key)
            if Bool.random(using: &generator) {
                table[id] = step
                oracle[id] = step
            } else {
                #expect(table.removeValue(forKey: id) == oracle.removeValue(forKey: id))
            }
            #expect(table.count == oracle.count)
            #expect(table[id] == oracle[id])
        }
        var seen: [ObjectID: Int] = [:]
        table.forEach { id, value in seen[id] = value }
        #expect(seen == oracle)
    }
}
