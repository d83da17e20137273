import Foundation
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
}
