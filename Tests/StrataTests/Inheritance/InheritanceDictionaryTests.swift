import Foundation
import GRDB
import Testing
@testable import Strata

/// Dictionary and aggregate fetches whose values are IDs of to-ones into a hierarchy: each ID
/// names the target's own entity (a Clip, not the Attachment the relationship points to), so
/// it equals the object's `objectID` and `existingObject(with:)` gives the subentity's class.
@Suite struct InheritanceDictionaryTests {
    /// Three posts pinning a photo, a clip and nothing; two photos on the post pinning the
    /// clip, one on no post.
    private func seed(_ context: ObjectContext) async throws -> (photo: ObjectID, clip: ObjectID) {
        try await context.perform {
            let photo = context.insert(Photo.self), clip = context.insert(Clip.self)
            (photo.name, clip.name) = ("photo", "clip")
            for (title, pinned) in [("a", photo), ("b", clip), ("c", nil)] as [(String, Attachment?)] {
                let post = context.insert(Post.self)
                post.title = title
                post.pinned = pinned
                if pinned === clip { photo.note = post }
            }
            let second = context.insert(Photo.self), lone = context.insert(Photo.self)
            (second.name, lone.name) = ("second", "lone")
            second.note = photo.note
            try context.save()
            return (photo.objectID, clip.objectID)
        }
    }

    @Test func idsOfToOnesIntoAHierarchyNameEachTargetsOwnEntity() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeInheritanceStore(dir)
        defer { try? coordinator.close() }
        let (photoID, clipID) = try await seed(context)
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        try await reader.perform {
            // A plain to-one in propertiesToFetch.
            var posts = FetchRequest<ManagedObject>(entityName: "Post", sortKeys: [SortKey("title")])
            posts.propertiesToFetch = ["title", "pinned"]
            let plain = try reader.fetchDictionaries(posts)
            #expect(plain.map { $0["pinned"] } == [.objectID(photoID), .objectID(clipID), .null])
            // A key path ending in a to-one (`note.pinned` from a photo).
            var photos = FetchRequest<ManagedObject>(entityName: "Photo", sortKeys: [SortKey("name")])
            photos.propertiesToFetch = ["name", "note.pinned"]
            let paths = try reader.fetchDictionaries(photos)
            #expect(paths.map { $0["note.pinned"] } == [.null, .objectID(clipID), .objectID(clipID)], "\(paths)")
            // The same grouped: aggregate dictionaries, a plain to-one and a key path.
            posts.propertiesToGroupBy = ["pinned"]
            posts.propertiesToFetch = ["pinned"]
            posts.expressionsToFetch = [ExpressionDescription(name: "n", function: .count, keyPath: "title")]
            posts.sortKeys = []
            let grouped = try reader.fetchDictionaries(posts)
            #expect(Set(grouped.map { $0["pinned"] }) == [.objectID(photoID), .objectID(clipID), .null], "\(grouped)")
            photos.propertiesToGroupBy = ["note.pinned"]
            photos.propertiesToFetch = ["note.pinned"]
            photos.expressionsToFetch = [ExpressionDescription(name: "n", function: .count, keyPath: "name")]
            photos.sortKeys = []
            let groupedPaths = try reader.fetchDictionaries(photos)
            #expect(Set(groupedPaths.map { $0["note.pinned"] }) == [.objectID(clipID), .null], "\(groupedPaths)")
            #expect(groupedPaths.first { $0["note.pinned"] == .objectID(clipID) }?["n"] == .integer(2))
            // The IDs give the subentities' objects, without a second read of their kind.
            guard case .objectID(let id)? = paths.last?["note.pinned"] else { Issue.record("no ID: \(paths)"); return }
            #expect(id == clipID && id.entity.name == "Clip")
            #expect(try reader.existingObject(with: id) is Clip)
            guard case .objectID(let pinned)? = plain.first?["pinned"] else { Issue.record("no ID: \(plain)"); return }
            #expect(try reader.existingObject(with: pinned) is Photo)
        }
    }

    /// A to-one whose key dangles into the hierarchy (another program, with SQLite's foreign
    /// keys off, deleted the target row): every dictionary path gives the stored key's ID, as
    /// Core Data gives a to-one's stored objectID. It names the relationship's destination,
    /// as the object's own relationship value does, since the row naming the target's own
    /// entity is gone. (A plain fetch and a key path read `.null` here, while a grouped one
    /// gave the ID.)
    @Test func aDanglingKeyIntoAHierarchyReadsAsTheStoredIDOnEveryPath() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeInheritanceStore(dir)
        defer { try? coordinator.close() }
        let (photoID, clipID) = try await seed(context)
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        let other = try DatabaseQueue(path: dir.file().path, configuration: configuration)
        try await other.write { db in try db.execute(sql: "DELETE FROM Attachment WHERE _id = ?", arguments: [clipID.primaryKey]) }
        try other.close()
        let attachment = try #require(inheritanceModel.entity(named: "Attachment"))
        let dangling = PropertyValue.objectID(ObjectID(entity: attachment, primaryKey: try #require(clipID.primaryKey)))
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        try await reader.perform {
            var posts = FetchRequest<ManagedObject>(entityName: "Post", sortKeys: [SortKey("title")])
            posts.propertiesToFetch = ["title", "pinned"]
            let plain = try reader.fetchDictionaries(posts)
            #expect(plain.map { $0["pinned"] } == [.objectID(photoID), dangling, .null], "\(plain)")
            var photos = FetchRequest<ManagedObject>(entityName: "Photo", sortKeys: [SortKey("name")])
            photos.propertiesToFetch = ["name", "note.pinned"]
            let paths = try reader.fetchDictionaries(photos)
            #expect(paths.map { $0["note.pinned"] } == [.null, dangling, dangling], "\(paths)")
            posts.propertiesToGroupBy = ["pinned"]
            posts.propertiesToFetch = ["pinned"]
            posts.expressionsToFetch = [ExpressionDescription(name: "n", function: .count, keyPath: "title")]
            posts.sortKeys = []
            let grouped = try reader.fetchDictionaries(posts)
            #expect(Set(grouped.map { $0["pinned"] }) == [.objectID(photoID), dangling, .null], "\(grouped)")
            photos.propertiesToGroupBy = ["note.pinned"]
            photos.propertiesToFetch = ["note.pinned"]
            photos.expressionsToFetch = [ExpressionDescription(name: "n", function: .count, keyPath: "name")]
            photos.sortKeys = []
            let groupedPaths = try reader.fetchDictionaries(photos)
            #expect(Set(groupedPaths.map { $0["note.pinned"] }) == [dangling, .null], "\(groupedPaths)")
            // The object's relationship value, read from the same row, is the same ID.
            let post = try #require(try reader.fetch(FetchRequest<Post>(predicate: try ObjectPredicate("title == %@", "b"))).first)
            guard case .relationship(let pinned)? = post.entity.propertyIndex["pinned"] else { Issue.record("no pinned"); return }
            guard case .toOneID(let id) = post.relationValues[pinned] else { Issue.record("not loaded: \(post.relationValues[pinned])"); return }
            #expect(id.map(PropertyValue.objectID) == dangling)
        }
    }

    /// Random posts pinning random attachments of every kind: each dictionary ID (plain,
    /// grouped, through a key path) equals the ID computed from the objects.
    @Test(arguments: SeededRandom.seeds([11, 12, 13]))
    func idsMatchTheObjects(seed: UInt64) async throws {
        let dir = TemporaryDirectory()
        let (coordinator, writer) = try await makeInheritanceStore(dir)
        defer { try? coordinator.close() }
        var random = SeededRandom(seed: seed)
        let kinds: [Attachment.Type] = [Photo.self, Video.self, Clip.self]
        let plan = (0..<30).map { _ in (kind: random.pick([0, 1, 2]), post: Int.random(in: 0...5, using: &random)) }
        let pins = (0..<5).map { _ in random.chance(0.2) ? nil : Int.random(in: 0..<30, using: &random) }
        try await writer.perform {
            let posts = (0..<5).map { i -> Post in let p = writer.insert(Post.self); p.title = "p\(i)"; return p }
            let attachments = plan.enumerated().map { i, row -> Attachment in
                let object = writer.insert(kinds[row.kind])
                object.name = String(format: "a%02d", i)
                if row.post < 5 { object.note = posts[row.post] }
                return object
            }
            for (post, pin) in zip(posts, pins) { post.pinned = pin.map { attachments[$0] } }
            try writer.save()
        }
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        try await reader.perform {
            let posts = try reader.fetch(FetchRequest<Post>(sortKeys: [SortKey("title")]))
            let attachments = try reader.fetch(FetchRequest<Attachment>(sortKeys: [SortKey("name")]))
            func id(_ object: ManagedObject?) -> PropertyValue { object.map { .objectID($0.objectID) } ?? .null }
            var request = FetchRequest<ManagedObject>(entityName: "Post", sortKeys: [SortKey("title")])
            request.propertiesToFetch = ["pinned"]
            #expect(try reader.fetchDictionaries(request).map { $0["pinned"] } == posts.map { id($0.pinned) }, "seed \(seed)")
            request.propertiesToGroupBy = ["pinned"]
            request.expressionsToFetch = [ExpressionDescription(name: "n", function: .count, keyPath: "title")]
            request.sortKeys = []
            let grouped = try reader.fetchDictionaries(request).map { [$0["pinned"], $0["n"]] }
            let expected = Dictionary(grouping: posts, by: { id($0.pinned) }).map { [$0.key, .integer(Int64($0.value.count))] }
            #expect(Set(grouped) == Set(expected), "seed \(seed)")
            var paths = FetchRequest<ManagedObject>(entityName: "Attachment", sortKeys: [SortKey("name")])
            paths.propertiesToFetch = ["note.pinned"]
            #expect(try reader.fetchDictionaries(paths).map { $0["note.pinned"] } == attachments.map { id($0.note?.pinned) }, "seed \(seed)")
            paths.propertiesToGroupBy = ["note.pinned"]
            paths.expressionsToFetch = [ExpressionDescription(name: "n", function: .count, keyPath: "name")]
            paths.sortKeys = []
            let groupedPaths = try reader.fetchDictionaries(paths).map { [$0["note.pinned"], $0["n"]] }
            let expectedPaths = Dictionary(grouping: attachments, by: { id($0.note?.pinned) }).map { [$0.key, .integer(Int64($0.value.count))] }
            #expect(Set(groupedPaths) == Set(expectedPaths), "seed \(seed)")
        }
    }
}
