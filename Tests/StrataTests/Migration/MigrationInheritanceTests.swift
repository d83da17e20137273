import Foundation
import GRDB
import Testing
@testable import Strata

/// Lightweight migration of models with entity inheritance (issue 13): every case migrates a
/// store written with the old model, then compares its schema with a store created fresh with
/// the new model (``HierarchyFixture/expectSchemaLikeFresh(_:_:)``) and reads the objects back
/// through a context.
@Suite struct MigrationInheritanceTests {
    typealias H = HierarchyFixture

    @Test func propertiesOfEveryEntityAreAddedRemovedAndRenamed() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        try await H.seed(url)
        var v2 = H.base()
        v2["Attachment"] = H.attachment(extra: [AttributeDescription("rating", type: .int64, isOptional: false, defaultValue: .integer(5))],
                                        size: AttributeDescription("bytes", type: .int64, defaultValue: .integer(0), renamingIdentifier: "size"),
                                        labels: "tags")
        v2["Photo"] = EntityDescription("Photo", attributes: [
            AttributeDescription("caption", type: .string, isSearchable: true), AttributeDescription("iso", type: .int64),
        ], relationships: [RelationshipDescription("collection", destination: "Album", inverse: "photos", renamingIdentifier: "album")],
                                        superentity: "Attachment")
        v2["Video"] = EntityDescription("Video", attributes: [AttributeDescription("duration", type: .double, defaultValue: .double(0), isIndexed: true)],
                                        superentity: "Attachment")
        v2["Clip"] = EntityDescription("Clip", attributes: [AttributeDescription("origin", type: .string, renamingIdentifier: "source")], superentity: "Video")
        v2["Album"] = EntityDescription("Album", attributes: [Fixture.string("title")], relationships: [
            RelationshipDescription("photos", destination: "Photo", inverse: "collection", isToMany: true)])
        v2["Badge"] = EntityDescription("Badge", attributes: [Fixture.string("text")], relationships: [
            RelationshipDescription("attachments", destination: "Attachment", inverse: "tags", isToMany: true)])
        let model = try H.model(v2)
        try await H.expectSchemaLikeFresh(url, model)
        let objects = try await H.read(url, model, ["name", "bytes", "rating", "width", "iso", "duration", "origin", "source"],
                                       relationships: ["note", "collection", "tags", "pinnedBy"])
        #expect(objects == [
            "Photo photo-0": "bytes=10 collection=[holiday] name=photo-0 note=[trip] rating=5",
            "Video video-1": "bytes=20 duration=1.0 name=video-1 note=[trip] rating=5 tags=[loud]",
            "Clip clip-2": "bytes=30 duration=2.0 name=clip-2 note=[trip] origin=camera 2 pinnedBy=[trip] rating=5 tags=[loud]",
            "Photo photo-3": "bytes=40 collection=[holiday] name=photo-3 note=[trip] rating=5",
        ])
        // The searchable columns kept their index, and it follows new rows.
        #expect(try await H.search(url, model, "Photo", "sunset") == ["photo-0", "photo-3"])
        let changes = try #require(try Fixture.rows(url, "SELECT changes FROM _strata_migrations ORDER BY id DESC LIMIT 1").first?["changes"] as String?)
        #expect(changes.contains("rename Attachment.size to bytes") && changes.contains("rename Clip.source to origin")
                && changes.contains("remove Photo.width") && changes.contains("add Attachment.rating") && !changes.contains("add Photo.rating"), "\(changes)")
    }

    @Test func subentitiesAreAddedAndRemoved() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        try await H.seed(url)
        var v2 = H.base()
        v2["Clip"] = nil
        v2["Audio"] = EntityDescription("Audio", attributes: [AttributeDescription("bitrate", type: .int64, defaultValue: .integer(128), isUnique: true)],
                                        superentity: "Attachment")
        let model = try H.model(v2)
        try await H.expectSchemaLikeFresh(url, model)
        // The clip's row is gone, and so are the references to it: the post's pin, the badge's link.
        #expect(try await H.read(url, model, ["name"], relationships: ["pinnedBy", "labels"]) == [
            "Photo photo-0": "name=photo-0", "Video video-1": "labels=[loud] name=video-1", "Photo photo-3": "name=photo-3",
        ])
        #expect(try Fixture.rows(url, "SELECT COUNT(*) AS n FROM _join_Attachment_labels").first?["n"] == 1)
        #expect(try Fixture.rows(url, "SELECT pinned FROM Post").first?["pinned"] as Int64? == nil)
        // The key counter is the hierarchy's: a new audio takes a key never used, not the clip's.
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(url))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let key = try await context.perform {
            let audio = try context.insert(entityNamed: "Audio")
            audio["name"] = "song"
            try context.save()
            return audio.objectID.key
        }
        try coordinator.close()
        #expect(key == 5)
        #expect(try await H.search(url, model, "Attachment", "song") == ["song"])
        #expect(try Fixture.rows(url, "SELECT max_key FROM _strata_keys WHERE entity = 'Attachment'").first?["max_key"] == 5)
    }

    @Test func entitiesOfAHierarchyAreRenamed() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        try await H.seed(url)
        var v2 = H.base(root: "File")
        v2["Video"] = EntityDescription("Movie", attributes: [AttributeDescription("duration", type: .double, defaultValue: .double(0))],
                                        renamingIdentifier: "Video", superentity: "File")
        v2["Clip"] = EntityDescription("Clip", attributes: [Fixture.string("source")], superentity: "Movie")
        let model = try H.model(v2)
        try await H.expectSchemaLikeFresh(url, model)
        #expect(try Fixture.rows(url, "SELECT _entity FROM File ORDER BY _id").map { $0["_entity"] as String } == ["Photo", "Movie", "Clip", "Photo"])
        #expect(try Fixture.rows(url, "SELECT entity, max_key FROM _strata_keys WHERE entity IN ('File', 'Attachment')").map { "\($0["entity"] as String)=\($0["max_key"] as Int64)" } == ["File=4"])
        #expect(try await H.read(url, model, ["name", "duration"], relationships: ["labels", "note"], root: "File") == [
            "Photo photo-0": "name=photo-0 note=[trip]", "Movie video-1": "duration=1.0 labels=[loud] name=video-1 note=[trip]",
            "Clip clip-2": "duration=2.0 labels=[loud] name=clip-2 note=[trip]", "Photo photo-3": "name=photo-3 note=[trip]",
        ])
        #expect(try await H.search(url, model, "Movie", "clip") == ["clip-2"])
    }

    @Test func aPlainEntityBecomesTheRootOfAHierarchy() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        let shape = EntityDescription("Shape", attributes: [
            Fixture.string("code", unique: true), AttributeDescription("label", type: .string, isSearchable: true),
            AttributeDescription("area", type: .double, defaultValue: .double(0)),
        ])
        try await Fixture.seed(url, try Fixture.model(shape), "Shape", [["code": .string("a"), "label": .string("big one"), "area": .double(4)],
                                                                        ["code": .string("b"), "label": .string("small one"), "area": .double(1)]])
        let circle = EntityDescription("Circle", attributes: [AttributeDescription("radius", type: .double, defaultValue: .double(0))], superentity: "Shape")
        let model = try Fixture.model(shape, circle)
        try await H.expectSchemaLikeFresh(url, model)
        #expect(try Fixture.rows(url, "SELECT _entity FROM Shape").map { $0["_entity"] as String } == ["Shape", "Shape"])
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(url))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let c = try context.insert(entityNamed: "Circle")
            c["code"] = "c"
            c["radius"] = 2.0
            try context.save()
            // The uniqueness spans the new hierarchy.
            let duplicate = try context.insert(entityNamed: "Circle")
            duplicate["code"] = "a"
            #expect(throws: StrataError.self) { try context.save() }
            context.rollback()
        }
        try coordinator.close()
        #expect(try await H.read(url, model, ["code", "area", "radius"], relationships: [], root: "Shape", label: "code") == [
            "Shape a": "area=4.0 code=a", "Shape b": "area=1.0 code=b", "Circle c": "area=0.0 code=c radius=2.0",
        ])
        #expect(try await H.search(url, model, "Shape", "one", label: "code") == ["a", "b"])
    }

    @Test func aPlainEntityCannotBecomeAnAbstractRootOverItsOwnRows() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        let shape = EntityDescription("Shape", attributes: [Fixture.string("code")])
        try await Fixture.seed(url, try Fixture.model(shape), "Shape", [["code": .string("a")]])
        let model = try Fixture.model(EntityDescription("Shape", attributes: [Fixture.string("code")], isAbstract: true),
                                      EntityDescription("Circle", superentity: "Shape"))
        let error = try await Fixture.expectRefusal(url, model, .migrationRequired)
        #expect(error?.entity == "Shape" && error?.message.contains("abstract") == true, "\(String(describing: error))")
    }

    @Test func aRootLosingEverySubentityBecomesAPlainTable() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        let v1 = try Fixture.model(EntityDescription("Shape", attributes: [Fixture.string("code", indexed: true)]),
                                   EntityDescription("Circle", attributes: [AttributeDescription("radius", type: .double)], superentity: "Shape"))
        let coordinator = try await StoreCoordinator(model: v1, store: .sqlite(url))
        _ = try coordinator.execute(BatchInsertRequest(entityName: "Shape", objects: [["code": .string("s")]]))
        _ = try coordinator.execute(BatchInsertRequest(entityName: "Circle", objects: [["code": .string("c"), "radius": .double(1)]]))
        try coordinator.close()
        let model = try Fixture.model(EntityDescription("Shape", attributes: [Fixture.string("code", indexed: true)]))
        try await H.expectSchemaLikeFresh(url, model)
        #expect(try Fixture.columns(url, "Shape") == ["_id", "_version", "code"])
        try await Fixture.objects(url, model, "Shape") { shapes in #expect(shapes.map { $0["code"] as? String } == ["s"]) }
    }

    @Test func wholeHierarchiesAreAddedAndRemoved() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        var v1 = H.base()
        v1["Shape"] = EntityDescription("Shape", attributes: [Fixture.string("code", unique: true)])
        v1["Circle"] = EntityDescription("Circle", attributes: [AttributeDescription("radius", type: .double)], superentity: "Shape")
        try await H.seed(url, model: try H.model(v1))
        let coordinator = try await StoreCoordinator(model: try H.model(v1), store: .sqlite(url))
        _ = try coordinator.execute(BatchInsertRequest(entityName: "Circle", objects: [["code": .string("c")]]))
        try coordinator.close()
        var v2 = H.base()
        v2["Vehicle"] = EntityDescription("Vehicle", attributes: [AttributeDescription("wheels", type: .int64, isSearchable: false)], isAbstract: true)
        v2["Car"] = EntityDescription("Car", attributes: [Fixture.string("plate", unique: true)], superentity: "Vehicle")
        let model = try H.model(v2)
        try await H.expectSchemaLikeFresh(url, model)
        let counters = try Fixture.rows(url, "SELECT entity FROM _strata_keys ORDER BY entity").map { $0["entity"] as String }
        #expect(counters == ["Album", "Attachment", "Badge", "Post"], "\(counters)")
        #expect(try await H.read(url, model, ["name"], relationships: []).count == 4)
    }

    @Test func swappedSubentityNamesKeepTheirRows() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        try await H.seed(url)
        var v2 = H.base()
        v2["Photo"] = EntityDescription("Video", attributes: [
            AttributeDescription("width", type: .int64, defaultValue: .integer(0)), AttributeDescription("caption", type: .string, isSearchable: true),
        ], relationships: [RelationshipDescription("album", destination: "Album", inverse: "photos")], renamingIdentifier: "Photo", superentity: "Attachment")
        v2["Video"] = EntityDescription("Photo", attributes: [AttributeDescription("duration", type: .double, defaultValue: .double(0))],
                                        renamingIdentifier: "Video", superentity: "Attachment")
        v2["Clip"] = EntityDescription("Clip", attributes: [Fixture.string("source")], superentity: "Photo")
        v2["Album"] = EntityDescription("Album", attributes: [Fixture.string("title")], relationships: [
            RelationshipDescription("photos", destination: "Video", inverse: "album", isToMany: true)])
        let model = try H.model(v2)
        try await H.expectSchemaLikeFresh(url, model)
        #expect(try await H.read(url, model, ["name", "width", "duration"], relationships: ["album"]) == [
            "Video photo-0": "album=[holiday] name=photo-0 width=100", "Photo video-1": "duration=1.0 name=video-1",
            "Clip clip-2": "duration=2.0 name=clip-2", "Video photo-3": "album=[holiday] name=photo-3 width=400",
        ])
    }

    @Test func aRequiredToOneToARemovedSubentitysObjectIsRefused() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        try await H.seed(url)
        var v2 = H.base()
        v2["Clip"] = nil
        v2["Post"] = H.post(pinnedIsOptional: false)
        let error = try await Fixture.expectRefusal(url, try H.model(v2), .migrationFailed)
        #expect(error?.entity == "Post" && error?.key == "pinned", "\(String(describing: error))")
    }

    @Test func aUniqueAttributeThatWouldRepeatAcrossTheHierarchyIsRefused() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        let v1 = try Fixture.model(EntityDescription("Shape", attributes: [Fixture.string("code")]),
                                   EntityDescription("Circle", superentity: "Shape"))
        let coordinator = try await StoreCoordinator(model: v1, store: .sqlite(url))
        _ = try coordinator.execute(BatchInsertRequest(entityName: "Shape", objects: [["code": .string("x")]]))
        _ = try coordinator.execute(BatchInsertRequest(entityName: "Circle", objects: [["code": .string("x")]]))
        try coordinator.close()
        let v2 = try Fixture.model(EntityDescription("Shape", attributes: [Fixture.string("code", unique: true)]),
                                   EntityDescription("Circle", superentity: "Shape"))
        let error = try await Fixture.expectRefusal(url, v2, .migrationFailed)
        #expect(error?.key == "code" && error?.message.contains("rows 1 and 2") == true, "\(String(describing: error))")
    }

    @Test func aTableWhoseLayoutAndRowsStayIsLeftInPlace() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        try await H.seed(url)
        let rootPage = { try Fixture.rows(url, "SELECT rootpage FROM sqlite_master WHERE name = 'Attachment'").first?["rootpage"] as Int64? }
        let before = try rootPage()
        // An index on a subentity's attribute, and a subentity without columns of its own.
        var v2 = H.base()
        v2["Video"] = EntityDescription("Video", attributes: [AttributeDescription("duration", type: .double, defaultValue: .double(0), isIndexed: true)],
                                        superentity: "Attachment")
        v2["Sticker"] = EntityDescription("Sticker", superentity: "Attachment")
        let model = try H.model(v2)
        try await H.expectSchemaLikeFresh(url, model)
        #expect(try rootPage() == before)
        #expect(try Fixture.rows(url, "SELECT name FROM sqlite_master WHERE name = '_idx_Attachment_duration'").count == 1)
        #expect(try await H.search(url, model, "Attachment", "sunset").isEmpty)   // captions are Photo's: a search of the root reads names
        #expect(try await H.search(url, model, "Photo", "sunset") == ["photo-0", "photo-3"])
    }

    @Test func siblingsSharingAColumnPartWays() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        let rank = AttributeDescription("rank", type: .int64)
        let v1 = try Fixture.model(EntityDescription("Shape", attributes: [Fixture.string("code")]),
                                   EntityDescription("Circle", attributes: [rank], superentity: "Shape"),
                                   EntityDescription("Square", attributes: [rank], superentity: "Shape"))
        let coordinator = try await StoreCoordinator(model: v1, store: .sqlite(url))
        _ = try coordinator.execute(BatchInsertRequest(entityName: "Circle", objects: [["code": .string("c"), "rank": .integer(1)]]))
        _ = try coordinator.execute(BatchInsertRequest(entityName: "Square", objects: [["code": .string("s"), "rank": .integer(2)]]))
        try coordinator.close()
        // Circle's rank becomes score; Square keeps rank, and it becomes unique.
        let v2 = try Fixture.model(EntityDescription("Shape", attributes: [Fixture.string("code")]),
                                   EntityDescription("Circle", attributes: [AttributeDescription("score", type: .int64, renamingIdentifier: "rank")], superentity: "Shape"),
                                   EntityDescription("Square", attributes: [AttributeDescription("rank", type: .int64, isUnique: true)], superentity: "Shape"))
        try await H.expectSchemaLikeFresh(url, v2)
        let rows = try Fixture.rows(url, "SELECT _entity, rank, score FROM Shape ORDER BY _id")
            .map { "\($0["_entity"] as String) \($0["rank"] as Int64? ?? -1) \($0["score"] as Int64? ?? -1)" }
        #expect(rows == ["Circle -1 1", "Square 2 -1"])
        #expect(try await H.read(url, v2, ["code", "rank", "score"], relationships: [], root: "Shape", label: "code") == [
            "Circle c": "code=c score=1", "Square s": "code=s rank=2",
        ])
    }

    @Test func derivedAttributesOfPlainEntitiesComeOutAsInAFreshStore() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        func withFolders(_ entities: [String: EntityDescription]) -> [String: EntityDescription] {
            var entities = entities
            entities["Folder"] = EntityDescription("Folder", attributes: [
                Fixture.string("name"), AttributeDescription("noteCount", type: .int64, derivationExpression: "notes.@count"),
            ], relationships: [RelationshipDescription("notes", destination: "Memo", inverse: "folder", isToMany: true)])
            entities["Memo"] = EntityDescription("Memo", attributes: [Fixture.string("text")], relationships: [
                RelationshipDescription("folder", destination: "Folder", inverse: "notes")])
            return entities
        }
        try await H.seed(url, model: try H.model(withFolders(H.base())))
        var v2 = withFolders(H.base())
        v2["Clip"] = nil
        v2["Audio"] = EntityDescription("Audio", attributes: [AttributeDescription("bitrate", type: .int64)], superentity: "Attachment")
        let model = try H.model(v2)
        try await H.expectSchemaLikeFresh(url, model)
        // The derived column is still kept by its triggers after the migration.
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(url))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let count = try await context.perform {
            let folder = try context.insert(entityNamed: "Folder")
            let memo = try context.insert(entityNamed: "Memo")
            memo["folder"] = folder
            try context.save()
            context.refresh(folder, mergeChanges: false)
            return folder["noteCount"] as? Int64
        }
        try coordinator.close()
        #expect(count == 1)
    }

    @Test func aConcreteRootRenamedAloneRenamesItsRowsToo() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        let v1 = try Fixture.model(EntityDescription("Shape", attributes: [Fixture.string("code", unique: true)]),
                                   EntityDescription("Circle", superentity: "Shape"))
        let coordinator = try await StoreCoordinator(model: v1, store: .sqlite(url))
        _ = try coordinator.execute(BatchInsertRequest(entityName: "Shape", objects: [["code": .string("s")]]))
        _ = try coordinator.execute(BatchInsertRequest(entityName: "Circle", objects: [["code": .string("c")]]))
        try coordinator.close()
        let v2 = try Fixture.model(EntityDescription("Figure", attributes: [Fixture.string("code", unique: true)], renamingIdentifier: "Shape"),
                                   EntityDescription("Circle", superentity: "Figure"))
        try await H.expectSchemaLikeFresh(url, v2)
        #expect(try Fixture.rows(url, "SELECT _entity FROM Figure ORDER BY _id").map { $0["_entity"] as String } == ["Figure", "Circle"])
        #expect(try Fixture.rows(url, "SELECT entity, max_key FROM _strata_keys").map { "\($0["entity"] as String)=\($0["max_key"] as Int64)" } == ["Figure=2"])
        #expect(try await H.read(url, v2, ["code"], relationships: [], root: "Figure", label: "code") == ["Figure s": "code=s", "Circle c": "code=c"])
    }
}

/// Derived attributes inside a hierarchy across a migration that rebuilds its table: the
/// triggers come back as a fresh store has them, and the values are recomputed.
@Suite struct MigrationInheritanceDerivedTests {
    typealias H = HierarchyFixture

    /// `base()` with derived attributes in the hierarchy: every attachment's `upperName`, a
    /// video's `lowerName` (inherited by clips), and the album's photo count.
    static func withDerived(_ entities: [String: EntityDescription]) -> [String: EntityDescription] {
        var entities = entities
        func adding(_ attribute: AttributeDescription, to name: String) {
            guard let e = entities[name] else { return }
            entities[name] = EntityDescription(e.name, attributes: e.attributes + [attribute], relationships: e.relationships,
                                               superentity: e.superentityName, isAbstract: e.isAbstract)
        }
        adding(AttributeDescription("upperName", type: .string, derivationExpression: "uppercase:(name)"), to: "Attachment")
        adding(AttributeDescription("lowerName", type: .string, derivationExpression: "lowercase:(name)"), to: "Video")
        adding(AttributeDescription("photoCount", type: .int64, derivationExpression: "photos.@count"), to: "Album")
        return entities
    }

    @Test func derivedAttributesInAHierarchyComeOutAsInAFreshStore() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        try await H.seed(url, model: try H.model(Self.withDerived(H.base())))
        var v2 = Self.withDerived(H.base())
        v2["Clip"] = EntityDescription("Clip", attributes: [Fixture.string("origin", renamedFrom: "source")], superentity: "Video")
        v2["Audio"] = EntityDescription("Audio", attributes: [AttributeDescription("bitrate", type: .int64)], superentity: "Attachment")
        let model = try H.model(v2)
        try await H.expectSchemaLikeFresh(url, model)
        let stored = try Fixture.rows(url, "SELECT _entity, name, upperName, lowerName FROM Attachment ORDER BY _id")
            .map { "\($0["_entity"] as String) \($0["name"] as String) \($0["upperName"] as String? ?? "-") \($0["lowerName"] as String? ?? "-")" }
        #expect(stored.contains("Clip clip-2 CLIP-2 clip-2") && stored.contains("Photo photo-0 PHOTO-0 -"), "\(stored)")
        #expect(try Fixture.rows(url, "SELECT photoCount FROM Album").map { $0["photoCount"] as Int64? } == [2])
        // The triggers keep the values after the migration, for the new subentity too.
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(url))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let values = try await context.perform { () throws -> [String] in
            let audio = try context.insert(entityNamed: "Audio")
            audio["name"] = "Song"
            let clip = try context.insert(entityNamed: "Clip")
            clip["name"] = "Take"
            try context.save()
            return [audio["upperName"] as? String ?? "nil", clip["upperName"] as? String ?? "nil", clip["lowerName"] as? String ?? "nil"]
        }
        try coordinator.close()
        #expect(values == ["SONG", "TAKE", "take"])
    }
}
