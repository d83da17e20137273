import Foundation
import Testing
@testable import Strata

/// IDs hash with a cheap one-word mix (`_rawHashValue(seed:)`): equal IDs hash alike, distinct
/// IDs of a store's key range never collide outright, and sets and dictionaries keyed by IDs
/// behave as with any hash.
@Suite struct ObjectIDHashTests {
    @Test func equalIDsHashAlikeAndDistinctIDsDoNotCollide() throws {
        let model = testModel
        let note = try #require(model.entity(named: "Note")), tag = try #require(model.entity(named: "Tag"))
        var hashes = Set<Int>()
        var ids: [ObjectID] = []
        for key in Int64(1)...20_000 {
            for id in [ObjectID(entity: note, primaryKey: key), ObjectID(entity: tag, primaryKey: key),
                       ObjectID(entity: note, key: key, isTemporary: true)] {
                ids.append(id)
                hashes.insert(id._rawHashValue(seed: 7))
                #expect(id._rawHashValue(seed: 7) == ObjectID(entity: id.entity, key: key, isTemporary: id.isTemporary)._rawHashValue(seed: 7))
            }
        }
        #expect(hashes.count == ids.count)   // the mix is a bijection of an injective word
        // Sequential keys spread over a table's buckets: the low bits (what a table of 1 024
        // buckets uses) take nearly every value.
        let buckets = Set(ids.prefix(1_024).map { $0._rawHashValue(seed: 0) & 1_023 })
        #expect(buckets.count > 600)
        var table: [ObjectID: Int] = [:]
        for (i, id) in ids.enumerated() { table[id] = i }
        #expect(table.count == ids.count)
        #expect(ids.indices.allSatisfy { table[ids[$0]] == $0 })
    }
}
