import Foundation
import Testing
@testable import Strata

/// A merge whose inserts may have joined loaded to-many relationships: the to-manys that point
/// at the new objects' entity or one of its superentities show them; ones that cannot hold them
/// stay loaded (`invalidateToMany` looks only at relationships towards the inserted entities).
/// That a merge unloads the to-manys that can hold them is checked by
/// `AdoptedOrderedMembersTests.aMergingContextReadsTheSameOrder`.
@Suite struct InheritanceMergeToManyTests {
    @Test func aMergedSubentityInsertJoinsItsSuperentitysToManysAndLeavesOthersLoaded() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, writer) = try await makeInheritanceStore(dir)
        let (postID, badgeID, albumID) = try await writer.perform {
            let post = writer.insert(Post.self)
            post.title = "post"
            let badge = writer.insert(Badge.self)
            badge.text = "badge"
            let album = writer.insert(Album.self)
            album.title = "album"
            let photo = writer.insert(Photo.self)
            photo.name = "photo"
            photo.note = post
            photo.album = album
            photo.labels = [badge]
            try writer.save()
            return (post.objectID, badge.objectID, album.objectID)
        }
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        let albumPhotos = try await reader.perform {
            let post = try #require(try reader.existingObject(with: postID) as? Post)
            let badge = try #require(try reader.existingObject(with: badgeID) as? Badge)
            let album = try #require(try reader.existingObject(with: albumID) as? Album)
            #expect(post.attachments.map(\.name) == ["photo"])
            #expect(badge.attachments.map(\.name) == ["photo"])
            return album.photos.map(\.name)
        }
        #expect(albumPhotos == ["photo"])
        let received = Received<ChangeSet>()
        let token = writer.observeChanges { received.append($0) }
        try await writer.perform {
            let post = try #require(try writer.existingObject(with: postID) as? Post)
            let badge = try #require(try writer.existingObject(with: badgeID) as? Badge)
            let clip = writer.insert(Clip.self)   // two levels below Attachment
            clip.name = "clip"
            clip.note = post
            clip.labels = [badge]
            try writer.save()
        }
        _ = token
        let changes = try #require(received.all.last)
        try await reader.perform {
            reader.merge(changes)
            let post = try #require(try reader.existingObject(with: postID) as? Post)
            let badge = try #require(try reader.existingObject(with: badgeID) as? Badge)
            let album = try #require(try reader.existingObject(with: albumID) as? Album)
            let photos = try #require(album.entity.propertyIndex["photos"].flatMap { index -> Int? in
                if case .relationship(let r) = index { r } else { nil }
            })
            guard case .toMany = album.relationValues[photos] else {
                Issue.record("the album's photos (which a clip cannot join) were unloaded")
                return
            }
            #expect(Set(post.attachments.map(\.name)) == ["photo", "clip"])
            #expect(Set(badge.attachments.map(\.name)) == ["photo", "clip"])
        }
        try coordinator.close()
    }
}
