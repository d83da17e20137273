import Foundation
import Testing
@testable import Strata

@Suite struct InheritanceTests {
    /// Inserts two photos, two videos and two clips (sizes 10…60 interleaved by kind) on a
    /// post, saves, and returns the post's ID.
    @discardableResult
    private func seed(_ context: ObjectContext) async throws -> ObjectID {
        try await context.perform {
            let post = context.insert(Post.self)
            post.title = "trip"
            let kinds: [Attachment.Type] = [Photo.self, Video.self, Clip.self, Photo.self, Video.self, Clip.self]
            for (i, kind) in kinds.enumerated() {
                let attachment = context.insert(kind)
                attachment.name = "\(kind)-\(i)"
                attachment.size = Int64(10 * (i + 1))
                attachment.note = post
                if let photo = attachment as? Photo { photo.width = 100 * Int64(i + 1); photo.caption = "beach sunset \(i)" }
                if let video = attachment as? Video { video.duration = Double(i) }
                if let clip = attachment as? Clip { clip.source = "camera \(i)" }
            }
            try context.save()
            return post.objectID
        }
    }

    @Test func theModelKnowsTheHierarchy() throws {
        let attachment = try #require(inheritanceModel.entity(named: "Attachment"))
        let photo = try #require(inheritanceModel.entity(named: "Photo"))
        let video = try #require(inheritanceModel.entity(named: "Video"))
        let clip = try #require(inheritanceModel.entity(named: "Clip"))
        #expect(attachment.isAbstract && !photo.isAbstract && !video.isAbstract && !clip.isAbstract)
        #expect(attachment.superentityName == nil && photo.superentityName == "Attachment" && clip.superentityName == "Video")
        #expect(clip.isKind(of: attachment) && clip.isKind(of: video) && !photo.isKind(of: video) && !attachment.isKind(of: photo))
        // Inherited properties come first, in the superentity's slots.
        #expect(Array(photo.attributes.prefix(attachment.attributes.count).map(\.name)) == attachment.attributes.map(\.name))
        #expect(Array(clip.relationships.prefix(attachment.relationships.count).map(\.name)) == attachment.relationships.map(\.name))
        #expect(clip.attributes.map(\.name).suffix(2) == ["duration", "source"])
        #expect(photo.tableName == "Attachment" && clip.tableName == "Attachment")
    }

    @Test func descriptionsInheritTheirSuperentitysProperties() throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Shape", attributes: [AttributeDescription("area", type: .double, defaultValue: .double(0))], isAbstract: true),
            EntityDescription("Circle", attributes: [AttributeDescription("radius", type: .double, defaultValue: .double(0))], superentity: "Shape"),
            EntityDescription("Square", attributes: [AttributeDescription("side", type: .double, defaultValue: .double(0))], superentity: "Shape"),
        ])
        let circle = try #require(model.entity(named: "Circle"))
        #expect(circle.attributes.map(\.name) == ["area", "radius"])
        #expect(model.entity(named: "Shape")?.isAbstract == true)
        // Abstract only with subentities; a hierarchy changes the model's hash.
        let alone = try ObjectModel(entities: [EntityDescription("Shape", attributes: [AttributeDescription("area", type: .double, defaultValue: .double(0))], isAbstract: true)])
        #expect(alone.entity(named: "Shape")?.isAbstract == false)
        #expect(alone.versionHash != model.versionHash)
    }

    @Test func invalidHierarchiesAreRefused() {
        let double = AttributeDescription("value", type: .double, defaultValue: .double(0))
        let text = AttributeDescription("value", type: .string, defaultValue: .string(""))
        let base = EntityDescription("Base", attributes: [AttributeDescription("id", type: .int64, defaultValue: .integer(0))])
        #expect(throws: StrataError.self) {   // siblings sharing a column name with different types
            try ObjectModel(entities: [base, EntityDescription("A", attributes: [double], superentity: "Base"),
                                       EntityDescription("B", attributes: [text], superentity: "Base")])
        }
        #expect(throws: StrataError.self) {   // unknown superentity
            try ObjectModel(entities: [EntityDescription("A", attributes: [double], superentity: "Nowhere")])
        }
        #expect(throws: StrataError.self) {   // a loop
            try ObjectModel(entities: [EntityDescription("A", attributes: [double], superentity: "B"),
                                       EntityDescription("B", attributes: [text], superentity: "A")])
        }
        // A derived attribute in a hierarchy is fine (DerivedAttributeHierarchyTests): the
        // subentity inherits it.
        let lowered = AttributeDescription("lowered", type: .string, derivationExpression: "lowercase:(name)")
        let name = AttributeDescription("name", type: .string, defaultValue: .string(""))
        let inherited = try? ObjectModel(entities: [EntityDescription("Base", attributes: [name, lowered]),
                                                    EntityDescription("A", attributes: [double], superentity: "Base")])
        #expect(inherited?.entity(named: "A")?.attribute(named: "lowered")?.isDerived == true)
        // Declared again in the subentity: the same derivation is the same attribute; another
        // derivation, or a stored attribute of that name, is refused (it was silently ignored).
        let same = try? ObjectModel(entities: [EntityDescription("Base", attributes: [name, lowered]),
                                               EntityDescription("A", attributes: [lowered], superentity: "Base")])
        #expect(same?.entity(named: "A")?.attribute(named: "lowered")?.derivationExpression == "lowercase:(name)")
        for redeclared in [AttributeDescription("lowered", type: .string, derivationExpression: "uppercase:(name)"),
                           AttributeDescription("lowered", type: .string, defaultValue: .string(""))] {
            #expect(throws: StrataError.self) {
                try ObjectModel(entities: [EntityDescription("Base", attributes: [name, lowered]),
                                           EntityDescription("A", attributes: [redeclared], superentity: "Base")])
            }
            #expect(throws: StrataError.self) {   // and the other way round
                try ObjectModel(entities: [EntityDescription("Base", attributes: [name, redeclared]),
                                           EntityDescription("A", attributes: [lowered], superentity: "Base")])
            }
        }
        // The same entity outside a hierarchy is fine.
        #expect(throws: Never.self) { try ObjectModel(entities: [EntityDescription("Base", attributes: [name, lowered])]) }
    }

    /// A dictionary fetch's key path through a to-one into a subentity reads the hierarchy's
    /// table (the subentity has no table of its own).
    /// Faults of several entities from one fetch of a superentity: each fires with its own
    /// entity's columns, whichever fires first (a Clip's firing once read the Videos as Clips).
    @Test func faultsOfSeveralEntitiesFromOneFetchFillWithTheirOwnColumns() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, writer) = try await makeInheritanceStore(dir)
        defer { try? coordinator.close() }
        _ = try await seed(writer)
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        let values = try await reader.perform {
            var request = FetchRequest<Video>(sortKeys: [SortKey("size")])
            request.returnsObjectsAsFaults = true
            let videos = try reader.fetch(request)
            let clips = videos.compactMap { $0 as? Clip }
            _ = try #require(clips.first).source   // a Clip fires first
            return videos.map { "\($0.name) \($0.duration)" + (($0 as? Clip).map { " \($0.source)" } ?? "") }
        }
        #expect(values == ["Video-1 1.0", "Clip-2 2.0 camera 2", "Video-4 4.0", "Clip-5 5.0 camera 5"])
    }

    /// Deleting an object whose to-many points at a subentity clears stale references in the
    /// hierarchy's table (it named the subentity's, which does not exist).
    @Test func deletingAnObjectWhoseToManyPointsAtASubentitySaves() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeInheritanceStore(dir)
        defer { try? coordinator.close() }
        let remaining = try await context.perform {
            let album = context.insert(Album.self)
            album.title = "empty"
            try context.save()
            context.delete(album)
            try context.save()
            return try context.count(for: FetchRequest<Album>())
        }
        #expect(remaining == 0)
    }

    /// Siblings' to-ones of one name share a column: with different inverses each inverse
    /// to-many would read the other's rows, so the model refuses them.
    @Test func siblingsToOnesOfOneNameWithDifferentInversesAreRefused() {
        let base = EntityDescription("Base", attributes: [AttributeDescription("id", type: .int64, defaultValue: .integer(0))])
        #expect(throws: StrataError.self) {
            try ObjectModel(entities: [
                base,
                EntityDescription("A", attributes: [], relationships: [RelationshipDescription("owner", destination: "Person", inverse: "as")], superentity: "Base"),
                EntityDescription("B", attributes: [], relationships: [RelationshipDescription("owner", destination: "Person", inverse: "bs")], superentity: "Base"),
                EntityDescription("Person", attributes: [], relationships: [
                    RelationshipDescription("as", destination: "A", inverse: "owner", isToMany: true),
                    RelationshipDescription("bs", destination: "B", inverse: "owner", isToMany: true),
                ]),
            ])
        }
    }

    @Test func keyPathsIntoASubentityReadTheHierarchysTable() async throws {
        let text = { (name: String) in AttributeDescription(name, type: .string, defaultValue: .string("")) }
        let model = try ObjectModel(entities: [
            EntityDescription("Item", attributes: [text("name")]),
            EntityDescription("Sub", attributes: [text("label")], relationships: [
                RelationshipDescription("holder", destination: "Holder", inverse: "subs"),
                RelationshipDescription("bestOf", destination: "Holder", inverse: "best", isToMany: true),
            ], superentity: "Item"),
            EntityDescription("Holder", attributes: [text("title")], relationships: [
                RelationshipDescription("subs", destination: "Sub", inverse: "holder", isToMany: true),
                RelationshipDescription("best", destination: "Sub", inverse: "bestOf"),
            ]),
        ])
        let dir = TemporaryDirectory()
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(dir.file()))
        defer { try? coordinator.close() }
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let rows = try await context.perform {
            let sub = try context.insert(entityNamed: "Sub")
            try sub.setValue("blue", forKey: "label")
            try sub.setValue("s", forKey: "name")
            let holder = try context.insert(entityNamed: "Holder")
            try holder.setValue("h", forKey: "title")
            try holder.setValue(sub, forKey: "best")
            try context.save()
            var request = FetchRequest<ManagedObject>(entityName: "Holder")
            request.propertiesToFetch = ["title", "best.label", "best.name"]
            let plain = try context.fetchDictionaries(request)
            request.propertiesToGroupBy = ["best.label"]
            request.propertiesToFetch = ["best.label"]
            return (plain, try context.fetchDictionaries(request))
        }
        #expect(rows.0 == [["title": .string("h"), "best.label": .string("blue"), "best.name": .string("s")]])
        #expect(rows.1 == [["best.label": .string("blue")]])
    }

    @Test func aFetchOfTheSuperentityReturnsEverySubentityInOneQuerySortedAndLimitedTogether() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, writer) = try await makeInheritanceStore(dir)
        try await seed(writer)
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        let (names, sql) = try await coordinator.recordingSQL {
            try await reader.perform {
                var request = FetchRequest<Attachment>(sortKeys: [SortKey("size", ascending: false)])
                request.fetchLimit = 4
                request.fetchOffset = 1
                let fetched = try reader.fetch(request)
                #expect(fetched.map { String(describing: type(of: $0)) } == ["Video", "Photo", "Clip", "Video"])
                #expect(fetched.allSatisfy { !$0.isFault })
                // Each object has its own entity's values, read by the same query.
                let clip = try #require(fetched[2] as? Clip)
                #expect(clip.source == "camera 2" && clip.duration == 2 && clip.size == 30)
                return fetched.map(\.name)
            }
        }
        #expect(names == ["Video-4", "Photo-3", "Clip-2", "Video-1"])
        #expect(sql.filter { $0.hasPrefix("SELECT") }.count == 1)
        try await reader.perform {
            #expect(try reader.count(for: FetchRequest<Attachment>()) == 6)
            #expect(try reader.count(for: FetchRequest<Video>()) == 4)   // videos and clips
            #expect(try reader.count(for: FetchRequest<Clip>()) == 2)
            #expect(try reader.count(for: FetchRequest<Photo>()) == 2)
            let ids = try reader.fetchObjectIDs(FetchRequest<Attachment>(sortKeys: [SortKey("size")]))
            #expect(ids.map(\.entity.name) == ["Photo", "Video", "Clip", "Photo", "Video", "Clip"])
            // As faults too: the IDs name each row's entity, and each fault fires as its class.
            var faulting = FetchRequest<Video>(sortKeys: [SortKey("size")])
            faulting.returnsObjectsAsFaults = true
            let videos = try reader.fetch(faulting)
            #expect(videos.map { String(describing: type(of: $0)) } == ["Video", "Clip", "Video", "Clip"])
            #expect((videos[1] as? Clip)?.source == "camera 2")
        }
    }

    @Test func predicatesOnSuperentityAndSubentityKeys() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeInheritanceStore(dir)
        try await seed(context)
        try await context.perform {
            let big = try context.fetch(FetchRequest<Attachment>(predicate: try ObjectPredicate("size >= 30 AND name BEGINSWITH 'V' OR name ENDSWITH '-0'"), sortKeys: [SortKey("size")]))
            #expect(big.map(\.name) == ["Photo-0", "Video-4"])
            let wide = try context.fetch(FetchRequest<Photo>(predicate: try ObjectPredicate("width > 150")))
            #expect(wide.map(\.name) == ["Photo-3"])
            let long = try context.fetch(FetchRequest<Video>(predicate: try ObjectPredicate("duration >= 2"), sortKeys: [SortKey("duration")]))
            #expect(long.map(\.name) == ["Clip-2", "Video-4", "Clip-5"])
            let fromCamera = try context.fetch(FetchRequest<Clip>(predicate: try ObjectPredicate("source CONTAINS '5' AND size > 10")))
            #expect(fromCamera.map(\.name) == ["Clip-5"])
            // Through a relationship to the superentity, and from it.
            let posts = try context.fetch(FetchRequest<Post>(predicate: try ObjectPredicate("ANY attachments.size > 55")))
            #expect(posts.count == 1)
            let onTrip = try context.count(for: FetchRequest<Attachment>(predicate: try ObjectPredicate("note.title == 'trip'")))
            #expect(onTrip == 6)
        }
    }

    @Test func unsavedObjectsOfSubentitiesJoinAFetchOfTheSuperentity() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeInheritanceStore(dir)
        try await seed(context)
        try await context.perform {
            let clip = context.insert(Clip.self)
            clip.name = "new clip"
            clip.size = 25
            let stored = try #require(try context.fetch(FetchRequest<Photo>(sortKeys: [SortKey("size")])).first)
            context.delete(stored)
            var request = FetchRequest<Attachment>(sortKeys: [SortKey("size")])
            request.fetchLimit = 3
            #expect(try context.fetch(request).map(\.name) == ["Video-1", "new clip", "Clip-2"])
            #expect(try context.count(for: FetchRequest<Video>()) == 5)
            #expect(try context.fetch(FetchRequest<Photo>()).count == 1)
        }
    }

    @Test func relationshipsToTheSuperentityHoldEveryKindAcrossAReopen() async throws {
        let dir = TemporaryDirectory()
        do {
            let (_, context) = try await makeInheritanceStore(dir)
            try await context.perform {
                let post = context.insert(Post.self)
                post.title = "mixed"
                let photo = context.insert(Photo.self), video = context.insert(Video.self), clip = context.insert(Clip.self)
                photo.name = "p"; video.name = "v"; clip.name = "c"
                post.attachments = [photo, video, clip]
                post.pinned = clip
                let badge = context.insert(Badge.self)
                badge.text = "favourite"
                badge.attachments = [photo, clip]
                let album = context.insert(Album.self)
                album.photos = [photo]
                #expect(video.note === post && clip.pinnedBy == [post])
                try context.save()
            }
        }
        let (_, context) = try await makeInheritanceStore(dir)
        try await context.perform {
            let post = try #require(try context.fetch(FetchRequest<Post>()).first)
            #expect(Set(post.attachments.map { "\(type(of: $0)):\($0.name)" }) == ["Photo:p", "Video:v", "Clip:c"])
            let pinned = try #require(post.pinned as? Clip)   // a foreign key to the abstract entity
            #expect(pinned.name == "c")
            let badge = try #require(try context.fetch(FetchRequest<Badge>()).first)
            #expect(Set(badge.attachments.map { "\(type(of: $0))" }) == ["Photo", "Clip"])
            let album = try #require(try context.fetch(FetchRequest<Album>()).first)
            #expect(album.photos.first?.labels == [badge])
            // Inverses from the objects' side, read from the shared table.
            let video = try #require(try context.fetch(FetchRequest<Video>(predicate: try ObjectPredicate("name == 'v'"))).first)
            #expect(video.note === post)
            #expect(pinned.pinnedBy == [post] && pinned.labels == [badge])
        }
    }

    @Test func deleteRulesAndInversesThroughTheSuperentity() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeInheritanceStore(dir)
        let postID = try await seed(context)
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        try await reader.perform {
            let post = try #require(try reader.existingObject(with: postID) as? Post)
            let photo = try #require(post.attachments.compactMap { $0 as? Photo }.first)
            let album = reader.insert(Album.self)
            album.photos = [photo]
            try reader.save()
            // Deny from a relationship to a subentity.
            reader.delete(album)
            #expect(throws: StrataError.self) { try reader.save() }
            reader.rollback()
            // Nullify: deleting a photo leaves the post's attachments and the album's photos.
            album.photos = []
            reader.delete(photo)
            #expect(post.attachments.count == 5)
            try reader.save()
            // Cascade: the post takes attachments of every kind with it.
            reader.delete(post)
            try reader.save()
            #expect(try reader.count(for: FetchRequest<Attachment>()) == 0)
        }
        try await context.perform {
            context.refreshAllObjects()
            let attachments = try context.count(for: FetchRequest<Attachment>())
            #expect(attachments == 0)
            #expect(try context.count(for: FetchRequest<Album>()) == 1)
        }
    }

    @Test func objectIDsNameTheirOwnEntity() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeInheritanceStore(dir)
        try await seed(context)
        let uri = try await context.perform {
            let clip = try #require(try context.fetch(FetchRequest<Attachment>(predicate: try ObjectPredicate("name == 'Clip-2'"))).first)
            #expect(clip.objectID.entity.name == "Clip")
            return coordinator.uriRepresentation(for: clip.objectID)
        }
        let id = try #require(coordinator.objectID(forURI: uri))
        #expect(id.entity.name == "Clip")
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        try await reader.perform {
            let object = try reader.existingObject(with: id)
            #expect((object as? Clip)?.source == "camera 2")
            let fault = reader.object(with: id)
            #expect(fault === object)
        }
    }

    @Test func aChildContextPushesSubentitiesIntoItsParent() async throws {
        let dir = TemporaryDirectory()
        let (_, root) = try await makeInheritanceStore(dir)
        let postID = try await seed(root)
        let child = ObjectContext(.privateQueue, parent: root)
        try await child.perform {
            let post = try #require(try child.existingObject(with: postID) as? Post)
            let clip = child.insert(Clip.self)
            clip.name = "child clip"
            clip.size = 5
            clip.note = post
            let photo = child.insert(Photo.self)
            photo.name = "child photo"
            photo.size = 6
            post.pinned = photo
            #expect(try child.fetch(FetchRequest<Attachment>(sortKeys: [SortKey("size")])).prefix(2).map(\.name) == ["child clip", "child photo"])
            try child.save()
        }
        try await root.perform {
            // The root reads its unsaved objects from the child together with the stored rows.
            let first = try root.fetch(FetchRequest<Attachment>(sortKeys: [SortKey("size")])).prefix(3)
            #expect(first.map { "\(type(of: $0))" } == ["Clip", "Photo", "Photo"])
            try root.save()
        }
        let dir2 = dir
        let (_, reopened) = try await makeInheritanceStore(dir2)
        try await reopened.perform {
            let post = try #require(try reopened.fetch(FetchRequest<Post>()).first)
            #expect(post.attachments.count == 7)
            #expect((post.pinned as? Photo)?.name == "child photo")
        }
    }

    @Test func batchRequestsOnAHierarchy() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeInheritanceStore(dir)
        try await seed(context)
        // An update of the superentity touches every kind; one of a subentity only its kinds.
        let all = try coordinator.execute(BatchUpdateRequest(entityName: "Attachment", propertiesToUpdate: ["size": .integer(1)]))
        #expect(Set(all.updated.keys.map(\.entity.name)) == ["Photo", "Video", "Clip"])
        let videos = try coordinator.execute(BatchUpdateRequest(entityName: "Video", predicate: try ObjectPredicate("duration > 1"), propertiesToUpdate: ["size": .integer(2)]))
        #expect(Set(videos.updated.keys.map(\.entity.name)) == ["Video", "Clip"] && videos.updated.count == 3)
        let ids = try coordinator.execute(BatchInsertRequest(entityName: "Photo", objects: [["name": .string("batch"), "width": .integer(7)]]))
        #expect(ids.map(\.entity.name) == ["Photo"])
        #expect(throws: StrataError.self) { try coordinator.execute(BatchInsertRequest(entityName: "Attachment", objects: [["name": .string("x")]])) }
        let deleted = try coordinator.execute(BatchDeleteRequest(entityName: "Video"))
        #expect(deleted.deleted.count == 4 && Set(deleted.deleted.map(\.entity.name)) == ["Video", "Clip"])
        try await context.perform {
            context.refreshAllObjects()
            let left = try context.fetch(FetchRequest<Attachment>(sortKeys: [SortKey("name")]))
            #expect(left.map(\.name) == ["Photo-0", "Photo-3", "batch"])
            #expect((left.last as? Photo)?.width == 7)
            #expect(left.first?.size == 1)
        }
    }

    @Test func abstractEntitiesCannotBeInserted() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeInheritanceStore(dir)
        try await context.perform {
            #expect(throws: StrataError.self) { try context.insert(entityNamed: "Attachment") }
            let clip = try context.insert(entityNamed: "Clip")
            #expect(clip is Clip)
        }
    }

    @Test func insertingAnAbstractClassTraps() async {
        let dir = TemporaryDirectory(), url = dir.file()   // the parent's: the child traps before any deinit
        await #expect(processExitsWith: .failure) { [url = url as URL] in
            let (_, context) = try await makeInheritanceStore(file: url)
            try await context.perform { _ = context.insert(Attachment.self) }
        }
    }

    @Test func uniqueValuesAreUniqueAcrossTheHierarchy() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeInheritanceStore(dir)
        try await context.perform {
            let photo = context.insert(Photo.self)
            photo.checksum = "abc"
            try context.save()
            let clip = context.insert(Clip.self)
            clip.checksum = "abc"
            do {
                try context.save()
                Issue.record("A clip saved with a photo's unique checksum.")
            } catch let error as StrataError {
                #expect(error.code == .conflict)
                #expect(error.conflicts.first?.conflictingObjectID == photo.objectID)
            }
        }
    }

    @Test func textSearchOverAHierarchy() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeInheritanceStore(dir)
        try await context.perform {
            let photo = context.insert(Photo.self)
            photo.name = "harbour"
            photo.caption = "boats at dawn"
            let clip = context.insert(Clip.self)
            clip.name = "harbour walk"
            try context.save()
            var all = FetchRequest<Attachment>()
            all.textSearch = TextSearch("harbour")
            #expect(Set(try context.fetch(all).map { "\(type(of: $0))" }) == ["Photo", "Clip"])
            var photos = FetchRequest<Photo>()
            photos.textSearch = TextSearch("dawn")
            #expect(try context.fetch(photos).map(\.name) == ["harbour"])
            var clips = FetchRequest<Clip>()
            clips.textSearch = TextSearch("harbour")
            #expect(try context.fetch(clips).map(\.name) == ["harbour walk"])
        }
    }

    @Test func aStoreWithAHierarchyRefusesAModelThatMovesAnEntity() async throws {
        let dir = TemporaryDirectory()
        do {
            let (_, context) = try await makeInheritanceStore(dir)
            try await seed(context)
        }
        // Without Video, Clip's nearest superclass in the model is Attachment: Clip would move
        // under another superentity, which is refused, and the file left as it was.
        let changed = try ObjectModel(Attachment.self, Photo.self, Clip.self, Post.self, Album.self, Badge.self)
        #expect(changed.entity(named: "Clip")?.superentityName == "Attachment")
        do {
            _ = try await StoreCoordinator(model: changed, store: .sqlite(dir.file("store.sqlite")))
            Issue.record("A model moving Clip under another superentity opened the store.")
        } catch {
            #expect(error.code == .migrationRequired && error.entity == "Clip")
        }
        let (_, context) = try await makeInheritanceStore(dir)
        let count = try await context.perform { try context.count(for: FetchRequest<Attachment>()) }
        #expect(count == 6)
    }

    @Test func historyNamesEachObjectsOwnEntity() async throws {
        let dir = TemporaryDirectory()
        var options = StoreOptions()
        options.recordsHistory = true
        let coordinator = try await StoreCoordinator(model: inheritanceModel, store: .sqlite(dir.file("store.sqlite"), options: options))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try await seed(context)
        let first = try coordinator.history(after: nil)
        let changes = first.flatMap(\.changes)
        #expect(Set(changes.map(\.objectID.entity.name)) == ["Post", "Photo", "Video", "Clip"])
        // Many-to-many members are recorded by key and read back under their own entity.
        try await context.perform {
            let badge = context.insert(Badge.self)
            badge.attachments = Set(try context.fetch(FetchRequest<Attachment>()).filter { !($0 is Photo) })
            try context.save()
        }
        let later = try coordinator.history(after: first.last?.token).flatMap(\.changes)
        let badge = try #require(later.first { $0.objectID.entity.name == "Badge" })
        let members = badge.addedMembers["attachments"] ?? []
        #expect(members.count == 4 && Set(members.map(\.entity.name)) == ["Video", "Clip"])
    }

    @Test func addingASubentityToAPlainStoreMigratesIt() async throws {
        let dir = TemporaryDirectory()
        let area = AttributeDescription("area", type: .double, defaultValue: .double(0))
        let plain = try ObjectModel(entities: [EntityDescription("Shape", attributes: [area])])
        do {
            let coordinator = try await StoreCoordinator(model: plain, store: .sqlite(dir.file("shapes.sqlite")))
            let context = ObjectContext(.privateQueue, coordinator: coordinator)
            try await context.perform {
                try context.insert(entityNamed: "Shape").setValue(2.0, forKey: "area")
                try context.save()
            }
        }
        let extended = try ObjectModel(entities: [
            EntityDescription("Shape", attributes: [area]),
            EntityDescription("Circle", attributes: [AttributeDescription("radius", type: .double, defaultValue: .double(0))], superentity: "Shape"),
        ])
        // Shape becomes the root of a hierarchy: its row is a Shape, and a Circle joins it.
        do {
            let coordinator = try await StoreCoordinator(model: extended, store: .sqlite(dir.file("shapes.sqlite")))
            let context = ObjectContext(.privateQueue, coordinator: coordinator)
            let kinds = try await context.perform {
                try context.insert(entityNamed: "Circle").setValue(1.0, forKey: "radius")
                try context.save()
                return try context.fetch(FetchRequest<ManagedObject>(entityName: "Shape")).map(\.entity.name).sorted()
            }
            #expect(kinds == ["Circle", "Shape"])
        }
        // The store now holds Circles, which the plain model does not know: it is newer.
        do {
            _ = try await StoreCoordinator(model: plain, store: .sqlite(dir.file("shapes.sqlite")))
            Issue.record("The model without Circle opened a store migrated past it.")
        } catch {
            #expect(error.code == .storeTooNew)
        }
    }

    @Test func aChildSeesItsParentsUnsavedSubentityObjectsThroughARelationship() async throws {
        let dir = TemporaryDirectory()
        let (_, root) = try await makeInheritanceStore(dir)
        let postID = try await seed(root)
        try await root.perform {
            let post = try #require(try root.existingObject(with: postID) as? Post)
            let clip = root.insert(Clip.self)
            clip.name = "unsaved clip"
            clip.note = post
        }
        let child = ObjectContext(.privateQueue, parent: root)
        try await child.perform {
            let post = try #require(try child.existingObject(with: postID) as? Post)
            #expect(post.attachments.count == 7)
            #expect(post.attachments.contains { $0.name == "unsaved clip" && $0 is Clip })
            let clips = try child.fetch(FetchRequest<Video>(predicate: try ObjectPredicate("name == 'unsaved clip'")))
            #expect(clips.count == 1 && clips.first is Clip)
        }
    }

    @Test func swiftPredicatesOnInheritedAndOwnKeys() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeInheritanceStore(dir)
        try await seed(context)
        try await context.perform {
            let photos = try context.fetch(try FetchRequest<Photo>(predicate: #Predicate { $0.size > 10 && $0.width > 100 }, sortBy: [SortDescriptor(\.size)]))
            #expect(photos.map(\.name) == ["Photo-3"])
            let all = try context.fetch(try FetchRequest<Attachment>(predicate: #Predicate { $0.size >= 50 }, sortBy: [SortDescriptor(\.size, order: .reverse)]))
            #expect(all.map(\.name) == ["Clip-5", "Video-4"])
        }
    }
}
