import Foundation
import Testing
@testable import Strata

/// A fetch of an entity of a hierarchy in SQL (one table, filtered by `_entity`) and its
/// evaluation in memory over every object of the store must select the same objects, in the
/// same order, for random predicates on superentity and subentity keys.
@Suite struct InheritanceDifferentialTests {
    static let seeds = SeededRandom.seeds([7, 99, 2026])

    @Test(arguments: seeds) func sqlAndMemoryAgreeAcrossAHierarchy(seed: UInt64) async throws {
        let dir = TemporaryDirectory()
        let (coordinator, writer) = try await makeInheritanceStore(dir)
        var rng = SeededRandom(seed: seed)
        let plan = (0..<60).map { _ in (kind: rng.pick([0, 1, 2]), size: Int64(Int.random(in: 0...9, using: &rng)), name: rng.pick(["a", "b", "ab", "c"]), extra: Int64(Int.random(in: 0...4, using: &rng)), post: rng.pick([0, 1, 2])) }
        try await writer.perform {
            let posts = (0..<3).map { i -> Post in let p = writer.insert(Post.self); p.title = "p\(i)"; return p }
            let badges = (0..<2).map { i -> Badge in let b = writer.insert(Badge.self); b.text = "b\(i)"; return b }
            for (i, row) in plan.enumerated() {
                let kinds: [Attachment.Type] = [Photo.self, Video.self, Clip.self]
                let object = writer.insert(kinds[row.kind])
                object.size = row.size
                object.name = row.name
                if row.post < 2 { object.note = posts[row.post] }
                if i % 3 == 0 { object.labels = [badges[i % 2]] }
                if let photo = object as? Photo { photo.width = row.extra }
                if let video = object as? Video { video.duration = Double(row.extra) }
            }
            try writer.save()
        }
        // Keys by entity: superentity keys work on every entity; subentity keys on their own.
        let shared = ["size < %@", "size >= %@", "name == %@", "name BEGINSWITH %@", "note.title == %@", "ANY labels.text == %@", "labels.@count > %@", "note == nil"]
        let own: [String: [String]] = ["Photo": ["width > %@"], "Video": ["duration <= %@"], "Clip": ["duration == %@"], "Attachment": []]
        func argument(_ format: String, _ rng: inout SeededRandom) -> Any? {
            if format.contains("title") { return rng.pick(["p0", "p1"]) }
            if format.contains("text") { return rng.pick(["b0", "b1"]) }
            if format.contains("name") { return rng.pick(["a", "b", "c"]) }
            return Int.random(in: 0...9, using: &rng)
        }
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        let nonTrivial = try await reader.perform {
            var nonTrivial = 0
            var rng = SeededRandom(seed: seed &+ 1)
            let everything = try reader.fetch(FetchRequest<Attachment>())
            #expect(everything.count == plan.count)
            for n in 0..<150 {
                let entity = rng.pick(["Attachment", "Photo", "Video", "Clip"])
                let leaves = (0..<Int.random(in: 1...3, using: &rng)).map { _ in rng.pick(shared + (own[entity] ?? [])) }
                let joiner = rng.pick([" AND ", " OR "])
                let format = leaves.map { "(\($0))" }.joined(separator: joiner)
                let arguments = leaves.map { $0.contains("%@") ? argument($0, &rng) : nil }.compactMap { $0 }
                var request = FetchRequest<Attachment>(entityName: entity, predicate: try ObjectPredicate(format: format, arguments: arguments),
                                                       sortKeys: [SortKey("size", ascending: rng.chance(0.5)), SortKey("name")])
                request.fetchLimit = rng.chance(0.5) ? Int.random(in: 1...10, using: &rng) : 0
                let evaluator = try request.evaluator(in: reader)
                var expected = everything.filter(evaluator.matches)
                expected.sort { a, b in evaluator.compare(evaluator.sortValues(of: a), a.objectID, evaluator.sortValues(of: b), b.objectID) < 0 }
                if request.fetchLimit > 0 { expected = Array(expected.prefix(request.fetchLimit)) }
                let fetched = try reader.fetch(request)
                #expect(fetched.map(\.objectID) == expected.map(\.objectID), "seed \(seed) #\(n): \(entity) \(format) \(arguments)")
                #expect(fetched.allSatisfy { $0.entity.isKind(of: evaluator.entity) })
                if !fetched.isEmpty && fetched.count < everything.count { nonTrivial += 1 }
            }
            return nonTrivial
        }
        #expect(nonTrivial > 60, "only \(nonTrivial) predicates selected a proper subset")
    }
}
