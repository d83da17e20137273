import Foundation
import GRDB
import Testing
@testable import Strata

/// A rack of discs with every kind of derivation: to-many aggregates (through a foreign key and
/// through a join table) and a string function of its own key.
final class Rack: ManagedObject {
    @Attribute("name") var name = ""
    @Relationship("discs", inverse: "rack") var discs: Set<Disc>
    @Relationship("stickers", inverse: "racks") var stickers: Set<Sticker>
    @Derived("discCount", .indexed, from: "discs.@count") var discCount = 0
    @Derived("totalMinutes", from: "discs.@sum.minutes") var totalMinutes: Int64 = 0
    @Derived("shortest", from: "discs.@min.minutes") var shortest: Int64? = nil
    @Derived("longest", from: "discs.@max.minutes") var longest: Int64? = nil
    @Derived("averageMinutes", from: "discs.@avg.minutes") var averageMinutes: Double? = nil
    @Derived("stickerCount", from: "stickers.@count") var stickerCount = 0
    @Derived("stickerWeight", from: "stickers.@sum.weight") var stickerWeight: Int64 = 0
    @Derived("nameKey", from: "canonical:(name)") var nameKey = ""
}

/// A disc with a to-one key path and the case functions.
final class Disc: ManagedObject {
    @Attribute("title") var title = ""
    @Attribute("minutes") var minutes: Int64 = 0
    @Relationship("rack", inverse: "discs") var rack: Rack?
    @Derived("rackName", from: "rack.name") var rackName: String? = nil
    @Derived("lowerTitle", from: "lowercase:(title)") var lowerTitle = ""
    @Derived("upperTitle", from: "uppercase:(title)") var upperTitle = ""
}

/// The other side of a many-to-many.
final class Sticker: ManagedObject {
    @Attribute("text") var text = ""
    @Attribute("weight") var weight: Int64 = 0
    @Relationship("racks", inverse: "stickers") var racks: Set<Rack>
}

@Suite struct DerivedAttributeTests {
    static let model: ObjectModel = {
        do { return try ObjectModel(Rack.self, Disc.self, Sticker.self) }
        catch { preconditionFailure("derived model: \(error)") }  // programmer error: the model is valid
    }()

    /// The derived values of a rack, as one comparable value.
    struct RackValues: Equatable, CustomStringConvertible {
        var count: Int, total: Int64, shortest: Int64?, longest: Int64?, average: Double?, stickers: Int, weight: Int64, key: String
        init(_ rack: Rack) {
            (count, total, shortest, longest, average) = (rack.discCount, rack.totalMinutes, rack.shortest, rack.longest, rack.averageMinutes)
            (stickers, weight, key) = (rack.stickerCount, rack.stickerWeight, rack.nameKey)
        }
        init(count: Int, total: Int64, shortest: Int64?, longest: Int64?, average: Double?, stickers: Int = 0, weight: Int64 = 0, key: String) {
            (self.count, self.total, self.shortest, self.longest, self.average) = (count, total, shortest, longest, average)
            (self.stickers, self.weight, self.key) = (stickers, weight, key)
        }
        var description: String { "count \(count) total \(total) min \(String(describing: shortest)) max \(String(describing: longest)) avg \(String(describing: average)) stickers \(stickers)/\(weight) key \(key)" }
    }

    /// A store with one rack ("Été Rack") holding discs of 30 and 50 minutes and two stickers.
    func seeded(_ dir: TemporaryDirectory) async throws -> (StoreCoordinator, ObjectContext, ObjectID) {
        let coordinator = try await StoreCoordinator(model: Self.model, store: .sqlite(dir.file()))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let rackID = try await context.perform {
            let rack = context.insert(Rack.self)
            rack.name = "Été Rack"
            for (title, minutes) in [("Blue Train", Int64(30)), ("Kind Of Blue", 50)] {
                let disc = context.insert(Disc.self)
                disc.title = title
                disc.minutes = minutes
                disc.rack = rack
            }
            for (text, weight) in [("jazz", Int64(2)), ("vinyl", 5)] {
                let sticker = context.insert(Sticker.self)
                sticker.text = text
                sticker.weight = weight
                rack.stickers.insert(sticker)
            }
            try context.save()
            return rack.objectID
        }
        return (coordinator, context, rackID)
    }

    /// A save that changes a derived value of a row it did not write (a disc's minutes change
    /// its rack's total) evicts that row from the coordinator's row cache too: another context
    /// faulting the rack sees the new values, not the cached old ones.
    @Test func aDerivedValueChangedBySavingAnotherRowIsNotServedFromTheRowCache() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, writer, rackID) = try await seeded(dir)   // two contexts: the cache is shared
        defer { try? coordinator.close() }
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        let before = try await reader.perform { try reader.fetch(FetchRequest<Rack>()).map(\.totalMinutes) }
        #expect(before == [80])
        #expect(coordinator.rowCache.count == 1, "the rack's row is cached")
        try await writer.perform {
            let disc = try #require(try writer.fetch(FetchRequest<Disc>()).first { $0.title == "Blue Train" })
            disc.minutes = 35
            try writer.save()
        }
        let third = ObjectContext(.privateQueue, coordinator: coordinator)
        let total = try await third.perform { try #require(try third.existingObject(with: rackID) as? Rack).totalMinutes }
        #expect(total == 85)
    }

    @Test func everyDerivationIsComputedAtSaveAndShownByTheSavingContext() async throws {
        let dir = TemporaryDirectory()
        let (_, context, rackID) = try await seeded(dir)
        try await context.perform {
            let rack = try #require(context.object(with: rackID) as? Rack)
            #expect(RackValues(rack) == RackValues(count: 2, total: 80, shortest: 30, longest: 50, average: 40, stickers: 2, weight: 7, key: "ete rack"))
            let discs = rack.discs.sorted { $0.title < $1.title }
            #expect(discs.map(\.rackName) == ["Été Rack", "Été Rack"])
            #expect(discs.map(\.lowerTitle) == ["blue train", "kind of blue"])
            #expect(discs.map(\.upperTitle) == ["BLUE TRAIN", "KIND OF BLUE"])
            // Unicode case mapping, not SQLite's ASCII-only lower()/upper().
            discs[0].title = "ÉTÉ Straße"
            try context.save()
            #expect(discs[0].lowerTitle == "été straße")
            #expect(discs[0].upperTitle == "ÉTÉ STRASSE")
            #expect(!context.hasChanges, "derived values taken after a save are not edits")
        }
    }

    @Test func anEmptyRackHasZeroCountsAndNilAggregates() async throws {
        let dir = TemporaryDirectory()
        let coordinator = try await StoreCoordinator(model: Self.model, store: .sqlite(dir.file()))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let rack = context.insert(Rack.self)
            rack.name = "Empty"
            let loose = context.insert(Disc.self)
            loose.title = "Loose"
            try context.save()
            #expect(RackValues(rack) == RackValues(count: 0, total: 0, shortest: nil, longest: nil, average: nil, key: "empty"))
            #expect(loose.rackName == nil)
        }
    }

    @Test func valuesFollowChangesMadeFromTheOtherSide() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context, rackID) = try await seeded(dir)
        // A second context moves, edits and deletes discs, adds a rack, and renames the rack:
        // it never touches the first rack's own keys except its name.
        let other = ObjectContext(.privateQueue, coordinator: coordinator)
        let changes = Locked<[ChangeSet]>([])
        let token = other.observeChanges { set in changes.withLock { $0.append(set) } }
        defer { token.cancel() }
        let secondID = try await other.perform {
            let discs = try other.fetch(FetchRequest<Disc>(sortKeys: [SortKey("title")]))
            let second = other.insert(Rack.self)
            second.name = "Second"
            discs[0].rack = second           // "Blue Train" moves: set from the disc's side
            discs[1].minutes = 70            // "Kind Of Blue" grows
            let third = other.insert(Disc.self)
            third.title = "Giant Steps"
            third.minutes = 40
            third.rack = try #require(other.object(with: rackID) as? Rack)
            try other.save()
            return second.objectID
        }
        try await other.perform {
            let second = try #require(other.object(with: secondID) as? Rack)
            #expect(RackValues(second) == RackValues(count: 1, total: 30, shortest: 30, longest: 30, average: 30, key: "second"))
            let rack = try #require(other.object(with: rackID) as? Rack)
            #expect(RackValues(rack) == RackValues(count: 2, total: 110, shortest: 40, longest: 70, average: 55, stickers: 2, weight: 7, key: "ete rack"))
        }
        // The first context holds the rack loaded and takes the values by merging the change set.
        try await context.perform {
            let rack = try #require(context.object(with: rackID) as? Rack)
            #expect(rack.discCount == 2 && rack.totalMinutes == 80, "not merged yet")
            for set in changes.withLock({ $0 }) { context.merge(set) }
            #expect(RackValues(rack) == RackValues(count: 2, total: 110, shortest: 40, longest: 70, average: 55, stickers: 2, weight: 7, key: "ete rack"))
            #expect(!context.hasChanges)
        }
        // Renaming the rack reaches the discs' key path; deleting a disc reaches the count.
        changes.withLock { $0.removeAll() }
        try await other.perform {
            let rack = try #require(other.object(with: rackID) as? Rack)
            rack.name = "Renamed"
            let giant = try #require(try other.fetch(FetchRequest<Disc>(predicate: try ObjectPredicate("title == %@", "Giant Steps"))).first)
            other.delete(giant)
            try other.save()
            #expect(RackValues(rack) == RackValues(count: 1, total: 70, shortest: 70, longest: 70, average: 70, stickers: 2, weight: 7, key: "renamed"))
            let kind = try #require(try other.fetch(FetchRequest<Disc>(predicate: try ObjectPredicate("title == %@", "Kind Of Blue"))).first)
            #expect(kind.rackName == "Renamed")
        }
        try await context.perform {
            let discs = try context.fetch(FetchRequest<Disc>(sortKeys: [SortKey("title")]))
            for set in changes.withLock({ $0 }) { context.merge(set) }
            #expect(discs.map(\.rackName) == ["Second", "Renamed"])
        }
    }

    @Test func manyToManyMembershipChangesFromEitherSide() async throws {
        let dir = TemporaryDirectory()
        let (_, context, rackID) = try await seeded(dir)
        try await context.perform {
            let rack = try #require(context.object(with: rackID) as? Rack)
            let stickers = try context.fetch(FetchRequest<Sticker>(sortKeys: [SortKey("text")]))
            stickers[0].racks.remove(rack)   // from the sticker's side
            stickers[1].weight = 11           // a member's value
            try context.save()
            #expect(rack.stickerCount == 1 && rack.stickerWeight == 11)
            let sticker = context.insert(Sticker.self)
            sticker.weight = 4
            sticker.racks.insert(rack)
            try context.save()
            #expect(rack.stickerCount == 2 && rack.stickerWeight == 15)
        }
    }

    @Test func valuesSurviveReopeningTheStore() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, _, rackID) = try await seeded(dir)
        try coordinator.close()
        let reopened = try await StoreCoordinator(model: Self.model, store: .sqlite(dir.file()))
        let context = ObjectContext(.privateQueue, coordinator: reopened)
        try await context.perform {
            let rack = try #require(try context.existingObject(with: rackID) as? Rack)
            #expect(RackValues(rack) == RackValues(count: 2, total: 80, shortest: 30, longest: 50, average: 40, stickers: 2, weight: 7, key: "ete rack"))
            let titles = try context.fetch(FetchRequest<Disc>(sortKeys: [SortKey("title")])).map(\.lowerTitle)
            #expect(titles == ["blue train", "kind of blue"])
        }
    }

    @Test func predicatesAndSortKeysUseTheColumn() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context, _) = try await seeded(dir)
        try await context.perform {
            for (name, count) in [("Small", 1), ("Big", 3)] {
                let rack = context.insert(Rack.self)
                rack.name = name
                for n in 0..<count {
                    let disc = context.insert(Disc.self)
                    disc.title = "\(name) \(n)"
                    disc.minutes = 10
                    disc.rack = rack
                }
            }
            try context.save()
        }
        let (names, sql) = try await coordinator.recordingSQL {
            try await context.perform {
                let request = FetchRequest<Rack>(predicate: try ObjectPredicate("discCount >= 2"), sortKeys: [SortKey("discCount", ascending: false)])
                return try context.fetch(request).map(\.name)
            }
        }
        #expect(names == ["Big", "Été Rack"])
        let index = try await coordinator.database.read { db in try String.fetchOne(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql LIKE '%\"discCount\"%'") }
        #expect(index == "_idx_Rack_discCount", "@Derived(…, .indexed) indexes the column")
        #expect(sql.contains { $0.contains("\"discCount\" >=") && $0.contains("ORDER BY") }, "one SQL query filters and sorts on the column: \(sql)")
        // Swift's own predicates and sort descriptors reach the derived keys too.
        let swift = try await context.perform {
            let request = try FetchRequest<Rack>(predicate: #Predicate { $0.discCount >= 2 }, sortBy: [SortDescriptor(\Rack.discCount, order: .reverse)])
            return try context.fetch(request).map(\.name)
        }
        #expect(swift == ["Big", "Été Rack"])
        let lowered = try await context.perform {
            try context.fetch(FetchRequest<Disc>(predicate: try ObjectPredicate("lowerTitle BEGINSWITH %@", "big"), sortKeys: [SortKey("lowerTitle")])).map(\.title)
        }
        #expect(lowered == ["Big 0", "Big 1", "Big 2"])
        let dictionaries = try await context.perform {
            var request = FetchRequest<Rack>(sortKeys: [SortKey("totalMinutes")])
            request.propertiesToFetch = ["name", "totalMinutes"]
            return try context.fetchDictionaries(request)
        }
        #expect(dictionaries.map { $0["totalMinutes"] } == [.integer(10), .integer(30), .integer(80)])
    }

    @Test func settingADerivedAttributeIsRefused() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context, rackID) = try await seeded(dir)
        try await context.perform {
            let rack = try #require(context.object(with: rackID) as? Rack)
            let error = #expect(throws: StrataError.self) { try rack.setValue(9, forKey: "discCount") }
            #expect(error?.code == .invalidRequest && error?.key == "discCount")
            #expect(rack.discCount == 2 && !context.hasChanges)
        }
        let update = #expect(throws: StrataError.self) {
            try coordinator.execute(BatchUpdateRequest(entityName: "Rack", propertiesToUpdate: ["discCount": .integer(9)]))
        }
        #expect(update?.code == .invalidRequest)
        let insert = #expect(throws: StrataError.self) {
            try coordinator.execute(BatchInsertRequest(entityName: "Rack", objects: [["name": .string("x"), "nameKey": .string("y")]]))
        }
        #expect(insert?.code == .invalidRequest)
    }

    @Test func batchRequestsKeepValuesCurrentAndReportThem() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context, rackID) = try await seeded(dir)
        let inserted = try coordinator.execute(BatchInsertRequest(entityName: "Disc", objects: [
            ["title": .string("Batch One"), "minutes": .integer(5), "rack": .objectID(rackID)],
        ]))
        #expect(inserted.count == 1)
        let updated = try coordinator.execute(BatchUpdateRequest(entityName: "Disc", predicate: try ObjectPredicate("minutes == 5"), propertiesToUpdate: ["minutes": .integer(15), "title": .string("BATCH")]))
        #expect(updated.updated[rackID]?["totalMinutes"] == .integer(95), "the rack's new total is reported: \(updated)")
        try await context.perform {
            let rack = try #require(context.object(with: rackID) as? Rack)
            context.merge(updated)
            #expect(rack.discCount == 3 && rack.totalMinutes == 95 && rack.shortest == 15)
            let batch = try #require(try context.fetch(FetchRequest<Disc>(predicate: try ObjectPredicate("minutes == 15"))).first)
            #expect(batch.lowerTitle == "batch" && batch.rackName == "Été Rack")
        }
        let deleted = try coordinator.execute(BatchDeleteRequest(entityName: "Disc", predicate: try ObjectPredicate("minutes >= 30")))
        #expect(deleted.updated[rackID]?["discCount"] == .integer(1))
        try await context.perform {
            let rack = try #require(context.object(with: rackID) as? Rack)
            context.merge(deleted)
            #expect(RackValues(rack) == RackValues(count: 1, total: 15, shortest: 15, longest: 15, average: 15, stickers: 2, weight: 7, key: "ete rack"))
        }
        let log = try await coordinator.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM _strata_derived_changes") }
        #expect(log == 0, "every write empties the log")
    }

    @Test func aChildSaveLeavesValuesToTheStoreSave() async throws {
        let dir = TemporaryDirectory()
        let (_, parent, rackID) = try await seeded(dir)
        let child = ObjectContext(.privateQueue, parent: parent)
        try await child.perform {
            let rack = try #require(child.object(with: rackID) as? Rack)
            let disc = child.insert(Disc.self)
            disc.title = "Child"
            disc.minutes = 20
            disc.rack = rack
            try child.save()
            #expect(rack.discCount == 2, "a child's save is not a store save: nothing is computed")
        }
        try await parent.perform {
            let rack = try #require(parent.object(with: rackID) as? Rack)
            #expect(rack.discCount == 2)
            try parent.save()
            #expect(rack.discCount == 3 && rack.shortest == 20)
        }
    }

    @Test func aModelWithoutDerivedAttributesHasNoTriggersAndSavesAsBefore() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let (_, sql) = try await coordinator.recordingSQL {
            try await context.perform {
                let folder = context.insert(Folder.self)
                folder.name = "Inbox"
                let note = context.insert(Note.self)
                note.folder = folder
                try context.save()
                note.title = "Edited"
                try context.save()
            }
        }
        #expect(!sql.contains { $0.contains("_derived") }, "\(sql)")
        let objects = try await coordinator.database.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' OR name LIKE '\\_strata\\_derived%' ESCAPE '\\'")
        }
        #expect(objects.isEmpty, "\(objects)")
    }

    @Test func theModelRefusesDerivationsItCannotResolve() throws {
        func model(_ expression: String, type: AttributeType = .int64) throws -> ObjectModel {
            try ObjectModel(entities: [
                EntityDescription("Box", attributes: [
                    AttributeDescription("name", type: .string),
                    AttributeDescription("value", type: type, derivationExpression: expression),
                ], relationships: [RelationshipDescription("items", destination: "Thing", inverse: "box", isToMany: true)]),
                EntityDescription("Thing", attributes: [AttributeDescription("size", type: .double), AttributeDescription("label", type: .string)],
                                  relationships: [RelationshipDescription("box", destination: "Box", inverse: "items")]),
            ])
        }
        #expect(try model("items.@count").entity(named: "Box")?.attribute(named: "value")?.isDerived == true)
        #expect(try model("items.@avg.size", type: .double).entity(named: "Box")?.attribute(named: "value")?.isOptional == true)
        for (expression, type) in [
            ("items.@median.size", AttributeType.double), ("items", .int64), ("items.label", .string), ("box.@count", .int64),
            ("missing.@count", .int64), ("items.@sum.missing", .int64), ("items.@sum.label", .int64), ("items.@count", .string),
            ("lowercase:(value)", .string), ("trim:(name)", .string), ("lowercase:(name)", .int64), ("now()", .date),
        ] {
            let error = #expect(throws: StrataError.self, "\(expression)") { try model(expression, type: type) }
            #expect(error?.code == .invalidModel, "\(expression)")
        }
    }

    /// A one-to-one read from both sides (one holds the foreign key, the other does not) and a
    /// self-referencing to-many, in a dynamic model.
    @Test func oneToOnesFromBothSidesAndSelfReferencingToManys() async throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Agent", attributes: [
                AttributeDescription("name", type: .string),
                AttributeDescription("badgeCode", type: .string, derivationExpression: "badge.code"),
                AttributeDescription("reportCount", type: .int64, derivationExpression: "reports.@count"),
                AttributeDescription("bossName", type: .string, derivationExpression: "boss.name"),
            ], relationships: [
                RelationshipDescription("badge", destination: "Badge", inverse: "holder"),
                RelationshipDescription("boss", destination: "Agent", inverse: "reports"),
                RelationshipDescription("reports", destination: "Agent", inverse: "boss", isToMany: true),
            ]),
            EntityDescription("Badge", attributes: [
                AttributeDescription("code", type: .string),
                AttributeDescription("holderName", type: .string, derivationExpression: "holder.name"),
            ], relationships: [RelationshipDescription("holder", destination: "Agent", inverse: "badge")]),
        ])
        // The agent's side holds the key ("Agent"."badge" sorts before "Badge"."holder").
        guard case .foreignKey? = model.entity(named: "Agent")?.relationship(named: "badge")?.storage,
              case .inverseForeignKey? = model.entity(named: "Badge")?.relationship(named: "holder")?.storage else {
            Issue.record("the one-to-one is not stored as this test expects")
            return
        }
        let dir = TemporaryDirectory()
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(dir.file()))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let boss = try context.insert(entityNamed: "Agent"), smith = try context.insert(entityNamed: "Agent")
            let badge = try context.insert(entityNamed: "Badge")
            try boss.setValue("Boss", forKey: "name")
            try smith.setValue("Smith", forKey: "name")
            try smith.setValue(boss, forKey: "boss")
            try badge.setValue("B-7", forKey: "code")
            try badge.setValue(smith, forKey: "holder")   // set from the side without the key
            try context.save()
            #expect(smith.value(forKey: "badgeCode") as? String == "B-7")
            #expect(badge.value(forKey: "holderName") as? String == "Smith")
            #expect(boss.value(forKey: "reportCount") as? Int64 == 1 && smith.value(forKey: "reportCount") as? Int64 == 0)
            #expect(smith.value(forKey: "bossName") as? String == "Boss")
            try smith.setValue("Agent Smith", forKey: "name")
            try badge.setValue("B-8", forKey: "code")
            try context.save()
            #expect(badge.value(forKey: "holderName") as? String == "Agent Smith")
            #expect(smith.value(forKey: "badgeCode") as? String == "B-8")
            try smith.setValue(nil, forKey: "badge")
            try smith.setValue(nil, forKey: "boss")
            try context.save()
            #expect(badge.value(forKey: "holderName") == nil && smith.value(forKey: "badgeCode") == nil)
            #expect(boss.value(forKey: "reportCount") as? Int64 == 0 && smith.value(forKey: "bossName") == nil)
        }
    }

    @Test func migrationFillsANewDerivedAttributeAndKeepsItCurrent() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        func entities(derived: Bool, sized: Bool = true) -> [EntityDescription] {
            var box = [AttributeDescription("name", type: .string)]
            if derived {
                box.append(AttributeDescription("thingCount", type: .int64, derivationExpression: "things.@count"))
                box.append(AttributeDescription("lowerName", type: .string, derivationExpression: "lowercase:(name)"))
            }
            return [
                EntityDescription("Box", attributes: box, relationships: [RelationshipDescription("things", destination: "Thing", inverse: "box", isToMany: true)]),
                EntityDescription("Thing", attributes: sized ? [AttributeDescription("size", type: .int64)] : [AttributeDescription("weight", type: .int64)],
                                  relationships: [RelationshipDescription("box", destination: "Box", inverse: "things")]),
            ]
        }
        let v1 = try ObjectModel(entities: entities(derived: false))
        let first = try await StoreCoordinator(model: v1, store: .sqlite(url))
        let context = ObjectContext(.privateQueue, coordinator: first)
        try await context.perform {
            let box = try context.insert(entityNamed: "Box")
            try box.setValue("Crate", forKey: "name")
            for _ in 0..<3 {
                let thing = try context.insert(entityNamed: "Thing")
                try thing.setValue(box, forKey: "box")
            }
            try context.save()
        }
        try first.close()

        let v2 = try ObjectModel(entities: entities(derived: true))
        let second = try await StoreCoordinator(model: v2, store: .sqlite(url))
        let reader = ObjectContext(.privateQueue, coordinator: second)
        try await reader.perform {
            let box = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Box")).first)
            #expect(box.value(forKey: "thingCount") as? Int64 == 3)
            #expect(box.value(forKey: "lowerName") as? String == "crate")
            let thing = try reader.insert(entityNamed: "Thing")
            try thing.setValue(box, forKey: "box")
            try reader.save()
            #expect(box.value(forKey: "thingCount") as? Int64 == 4)
        }
        let history = try await second.database.read { db in try String.fetchOne(db, sql: "SELECT changes FROM _strata_migrations ORDER BY id DESC LIMIT 1") }
        #expect(history?.contains("compute derived Box.thingCount, Box.lowerName") == true, "\(history ?? "")")
        try second.close()

        // On to a model without them (and another change: going back to v1 itself would be a
        // downgrade, refused): the triggers and the log go, writes still work.
        let v3 = try ObjectModel(entities: entities(derived: false, sized: false))
        let third = try await StoreCoordinator(model: v3, store: .sqlite(url))
        let triggers = try await third.database.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' OR name LIKE '\\_strata\\_derived%' ESCAPE '\\'")
        }
        #expect(triggers.isEmpty, "\(triggers)")
        _ = try third.execute(BatchDeleteRequest(entityName: "Thing"))
        try third.close()
    }
}
