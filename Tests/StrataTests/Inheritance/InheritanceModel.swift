import Foundation
@testable import Strata

/// A model with a three-level hierarchy: `Attachment` (abstract) above `Photo` and `Video`,
/// and `Clip` below `Video`. Notes hold attachments of every kind (cascade), pin one (a
/// to-one to the abstract entity), tags hold them many-to-many, albums hold photos only.
class Attachment: ManagedObject {
    override class var isAbstractEntity: Bool { true }
    @Attribute("name", .searchable) var name = ""
    @Attribute("size") var size: Int64 = 0
    @Attribute("checksum", .unique) var checksum: String? = nil
    @Relationship("note", inverse: "attachments") var note: Post?
    @Relationship("pinnedBy", inverse: "pinned") var pinnedBy: Set<Post>
    @Relationship("labels", inverse: "attachments") var labels: Set<Badge>
}

final class Photo: Attachment {
    @Attribute("width") var width: Int64 = 0
    @Attribute("caption", .searchable) var caption = ""
    @Relationship("album", inverse: "photos") var album: Album?
}

class Video: Attachment {
    @Attribute("duration") var duration: Double = 0
}

final class Clip: Video {
    @Attribute("source") var source = ""
}

final class Post: ManagedObject {
    @Attribute("title") var title = ""
    @Relationship("attachments", inverse: "note", deleteRule: .cascade) var attachments: Set<Attachment>
    @Relationship("pinned", inverse: "pinnedBy") var pinned: Attachment?
}

final class Album: ManagedObject {
    @Attribute("title") var title = ""
    @Relationship("photos", inverse: "album", deleteRule: .deny) var photos: Set<Photo>
}

final class Badge: ManagedObject {
    @Attribute("text") var text = ""
    @Relationship("attachments", inverse: "labels") var attachments: Set<Attachment>
}

let inheritanceModel: ObjectModel = {
    do { return try ObjectModel(Attachment.self, Photo.self, Video.self, Clip.self, Post.self, Album.self, Badge.self) }
    catch { preconditionFailure("inheritance test model: \(error)") }  // programmer error: the test model is valid
}()

func makeInheritanceStore(_ directory: TemporaryDirectory) async throws -> (StoreCoordinator, ObjectContext) {
    try await makeInheritanceStore(file: directory.file("store.sqlite"))
}

/// The same on the SQLite file `url` (an exit test's child, whose directory the parent owns).
func makeInheritanceStore(file url: URL) async throws -> (StoreCoordinator, ObjectContext) {
    let coordinator = try await StoreCoordinator(model: inheritanceModel, store: .sqlite(url))
    return (coordinator, ObjectContext(.privateQueue, coordinator: coordinator))
}
