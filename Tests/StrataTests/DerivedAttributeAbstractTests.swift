import Foundation
import GRDB
import Testing
@testable import Strata

/// Derived attributes declared by abstract entities, which have no rows of their own: the
/// rows of their subentities get the values on insert, on an update of the source from any
/// side and through batch requests, the contexts see them, and a migration keeps them and
/// their triggers. Aggregates over a to-many into an abstract entity count every kind, and a
/// key path into one follows every kind's rows.
@Suite struct DerivedAttributeAbstractTests {
    /// `Gadget` (abstract, the root) derives a string function, a to-one key path and a
    /// to-many aggregate; `Phone` and `Tablet` (abstract too, deriving its own
    /// `canonicalLabel`) are below it, `Slate` and `Reader` below `Tablet`; a `Shelf` counts
    /// its gadgets and their top price; an `Accessory` belongs to a gadget and shows its label.
    /// Version 2 adds a subentity `Watch` and a derived `upperLabel` on `Gadget`.
    static func model(version: Int = 1) throws -> ObjectModel {
        var gadget = [
            AttributeDescription("label", type: .string),
            AttributeDescription("price", type: .int64, defaultValue: .integer(0)),
            AttributeDescription("lowerLabel", type: .string, derivationExpression: "lowercase:(label)"),
            AttributeDescription("shelfName", type: .string, derivationExpression: "shelf.name"),
            AttributeDescription("accessoryCount", type: .int64, derivationExpression: "accessories.@count"),
        ]
        if version > 1 { gadget.append(AttributeDescription("upperLabel", type: .string, derivationExpression: "uppercase:(label)")) }
        var entities = [
            EntityDescription("Gadget", attributes: gadget, relationships: [
                RelationshipDescription("shelf", destination: "Shelf", inverse: "gadgets"),
                RelationshipDescription("accessories", destination: "Accessory", inverse: "gadget", isToMany: true),
            ], isAbstract: true),
            EntityDescription("Phone", attributes: [AttributeDescription("carrier", type: .string)], superentity: "Gadget"),
            EntityDescription("Tablet", attributes: [
                AttributeDescription("inches", type: .int64, defaultValue: .integer(0)),
                AttributeDescription("canonicalLabel", type: .string, derivationExpression: "canonical:(label)"),
            ], superentity: "Gadget", isAbstract: true),
            EntityDescription("Slate", attributes: [AttributeDescription("pen", type: .string)], superentity: "Tablet"),
            EntityDescription("Reader", attributes: [AttributeDescription("format", type: .string)], superentity: "Tablet"),
            EntityDescription("Shelf", attributes: [
                AttributeDescription("name", type: .string),
                AttributeDescription("gadgetCount", type: .int64, derivationExpression: "gadgets.@count"),
                AttributeDescription("topPrice", type: .int64, derivationExpression: "gadgets.@max.price"),
            ], relationships: [RelationshipDescription("gadgets", destination: "Gadget", inverse: "shelf", isToMany: true)]),
            EntityDescription("Accessory", attributes: [
                AttributeDescription("name", type: .string),
                AttributeDescription("gadgetLabel", type: .string, derivationExpression: "gadget.label"),
            ], relationships: [
                RelationshipDescription("gadget", destination: "Gadget", inverse: "accessories"),
            ]),
        ]
        if version > 1 { entities.append(EntityDescription("Watch", attributes: [AttributeDescription("strap", type: .string)], superentity: "Gadget")) }
        return try ObjectModel(entities: entities)
    }

    /// A gadget as "<entity> <lowerLabel> <shelfName> <accessoryCount> <canonicalLabel>" (`-`
    /// for a phone, which has no canonical label).
    static func describe(_ gadget: ManagedObject) -> String {
        let canonical = gadget.entity.attribute(named: "canonicalLabel") == nil ? "-" : gadget["canonicalLabel"] as? String ?? "nil"
        return "\(gadget.entity.name) \(gadget["lowerLabel"] as? String ?? "nil") \(gadget["shelfName"] as? String ?? "nil") \(gadget["accessoryCount"] as? Int64 ?? -1) \(canonical)"
    }

    /// A shelf as "<gadgetCount> <topPrice>".
    static func totals(_ shelf: ManagedObject) -> String {
        "\(shelf["gadgetCount"] as? Int64 ?? -1) \(shelf["topPrice"] as? Int64 ?? -1)"
    }

    /// The store's gadget rows as ``describe(_:)`` writes them, straight from the hierarchy's
    /// table (named after the abstract root), with `upperLabel` last when `upper`.
    static func rows(_ url: URL, upper: Bool = false) throws -> Set<String> {
        let sql = "SELECT _entity, lowerLabel, coalesce(shelfName, 'nil') AS shelf, accessoryCount, coalesce(canonicalLabel, '-') AS canonical"
            + (upper ? ", upperLabel" : "") + " FROM Gadget"
        return Set(try Fixture.rows(url, sql).map { row in
            ([row["_entity"] as String, row["lowerLabel"] as String, row["shelf"] as String, "\(row["accessoryCount"] as Int64)", row["canonical"] as String]
             + (upper ? [row["upperLabel"] as String? ?? "nil"] : [])).joined(separator: " ")
        })
    }

    /// The accessories' labels of their gadgets, by name.
    static func accessoryLabels(_ url: URL) throws -> [String: String] {
        Dictionary(uniqueKeysWithValues: try Fixture.rows(url, "SELECT name, coalesce(gadgetLabel, 'nil') AS label FROM Accessory").map {
            ($0["name"] as String, $0["label"] as String)
        })
    }

    /// A shelf "Top" holding a phone (two accessories), a reader and a slate (one accessory).
    static func seed(_ context: ObjectContext) async throws -> (shelf: ObjectID, phone: ObjectID) {
        try await context.perform { () throws -> (ObjectID, ObjectID) in
            let shelf = try context.insert(entityNamed: "Shelf")
            shelf["name"] = "Top"
            var gadgets: [String: ManagedObject] = [:]
            for (kind, label, price) in [("Phone", "Pixel", 5), ("Reader", "Tab", 9), ("Slate", "Écran", 20)] {
                let gadget = try context.insert(entityNamed: kind)
                gadget["label"] = label
                gadget["price"] = Int64(price)
                gadget["shelf"] = shelf
                gadgets[kind] = gadget
            }
            for (name, owner) in [("case", "Phone"), ("cable", "Phone"), ("pen", "Slate")] {
                let accessory = try context.insert(entityNamed: "Accessory")
                accessory["name"] = name
                accessory["gadget"] = gadgets[owner]
            }
            try context.save()
            return (shelf.objectID, try #require(gadgets["Phone"]).objectID)
        }
    }

    @Test func subentityRowsGetTheValuesOnInsertAndWhenASourceChanges() async throws {
        let dir = TemporaryDirectory()
        let model = try Self.model()
        #expect(model.entity(named: "Gadget")?.isAbstract == true && model.entity(named: "Tablet")?.isAbstract == true)
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(dir.file()))
        defer { try? coordinator.close() }
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let (shelfID, _) = try await Self.seed(context)
        let inserted: Set = ["Phone pixel Top 2 -", "Reader tab Top 0 tab", "Slate écran Top 1 ecran"]
        // The saving context shows the values the store computed, for every kind.
        try await context.perform {
            let shelf = context.object(with: shelfID)
            let gadgets = try #require(shelf["gadgets"] as? Set<ManagedObject>)
            #expect(Set(gadgets.map(Self.describe)) == inserted)
            #expect(Self.totals(shelf) == "3 20", "an aggregate over the abstract entity counts every kind")
            #expect(!context.hasChanges)
        }
        #expect(try Self.rows(dir.file()) == inserted)
        #expect(try Self.accessoryLabels(dir.file()) == ["case": "Pixel", "cable": "Pixel", "pen": "Écran"])
        // Another context changes every source: labels, the shelf's name, an accessory's owner, a price.
        let other = ObjectContext(.privateQueue, coordinator: coordinator)
        let changes = Locked<[ChangeSet]>([])
        let token = other.observeChanges { set in changes.withLock { $0.append(set) } }
        defer { token.cancel() }
        let updated: Set = ["Phone pixel 9 Bottom 1 -", "Reader tab Bottom 1 tab", "Slate écran plus Bottom 1 ecran plus"]
        try await other.perform {
            var request = FetchRequest<ManagedObject>(entityName: "Gadget")
            request.sortKeys = [SortKey("price")]
            let gadgets = try other.fetch(request)
            #expect(gadgets.map(\.entity.name) == ["Phone", "Reader", "Slate"], "a fetch of the abstract entity returns its subentities' objects")
            let (phone, reader, slate) = (gadgets[0], gadgets[1], gadgets[2])
            phone["label"] = "PIXEL 9"
            slate["label"] = "Écran Plus"
            let shelf = other.object(with: shelfID)
            shelf["name"] = "Bottom"
            let accessories = try #require(phone["accessories"] as? Set<ManagedObject>)
            try #require(accessories.first { $0["name"] as? String == "cable" })["gadget"] = reader
            slate["price"] = Int64(50)
            try other.save()
            #expect(Set(gadgets.map(Self.describe)) == updated)
            #expect(Self.totals(shelf) == "3 50")
        }
        #expect(try Self.rows(dir.file()) == updated)
        #expect(try Self.accessoryLabels(dir.file()) == ["case": "PIXEL 9", "cable": "Tab", "pen": "Écran Plus"])
        // The first context takes the values from the change sets, under each row's own entity.
        try await context.perform {
            let shelf = context.object(with: shelfID)
            let gadgets = try #require(shelf["gadgets"] as? Set<ManagedObject>)
            for set in changes.withLock({ $0 }) { context.merge(set) }
            #expect(Set(gadgets.map(Self.describe)) == updated)
            #expect(Self.totals(shelf) == "3 50")
            #expect(!context.hasChanges)
        }
        let kinds = Set(changes.withLock { $0.flatMap { $0.updated.keys.map(\.entity.name) } })
        #expect(kinds == ["Phone", "Reader", "Slate", "Shelf", "Accessory"], "no ID names an abstract entity")
    }

    /// A batch update of an abstract entity reaches its kinds' rows (and only theirs) and
    /// reports each row's values under its own entity; a batch insert of a subentity gets the
    /// values too.
    @Test func batchRequestsKeepTheValuesOfEveryKind() async throws {
        let dir = TemporaryDirectory()
        let coordinator = try await StoreCoordinator(model: try Self.model(), store: .sqlite(dir.file()))
        defer { try? coordinator.close() }
        let (shelfID, _) = try await Self.seed(ObjectContext(.privateQueue, coordinator: coordinator))
        let renamed = try coordinator.execute(BatchUpdateRequest(entityName: "Gadget", predicate: nil, propertiesToUpdate: ["label": .string("SAME")]))
        let reported = renamed.updated.filter { $0.value["lowerLabel"] == .string("same") }.map(\.key.entity.name).sorted()
        #expect(reported == ["Phone", "Reader", "Slate"], "\(renamed)")
        let flattened = try coordinator.execute(BatchUpdateRequest(entityName: "Tablet", predicate: nil, propertiesToUpdate: ["label": .string("Flat")]))
        let canonical = flattened.updated.filter { $0.value["canonicalLabel"] == .string("flat") }.map(\.key.entity.name).sorted()
        #expect(canonical == ["Reader", "Slate"] && flattened.updated.keys.allSatisfy { $0.entity.name != "Phone" }, "\(flattened)")
        let ids = try coordinator.execute(BatchInsertRequest(entityName: "Slate", objects: [
            ["label": .string("Batch"), "price": .integer(70), "shelf": .objectID(shelfID)]]))
        #expect(ids.map(\.entity.name) == ["Slate"])
        #expect(try Self.rows(dir.file()) == ["Phone same Top 2 -", "Reader flat Top 0 flat", "Slate flat Top 1 flat", "Slate batch Top 0 batch"])
        #expect(try Self.accessoryLabels(dir.file()) == ["case": "SAME", "cable": "SAME", "pen": "Flat"])
        #expect(try Fixture.rows(dir.file(), "SELECT gadgetCount || ' ' || topPrice FROM Shelf").map { $0[0] as String } == ["4 70"])
    }

    /// A migration that adds a subentity and a derived attribute to the abstract entity keeps
    /// the stored values, fills the new one for every kind's rows, and leaves triggers that
    /// keep them all current, as a fresh store's do.
    @Test func aMigrationKeepsTheValuesAndTheTriggers() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        let first = try await StoreCoordinator(model: try Self.model(), store: .sqlite(url))
        let (shelfID, phoneID) = try await Self.seed(ObjectContext(.privateQueue, coordinator: first))
        try first.close()
        let model = try Self.model(version: 2)
        try await HierarchyFixture.expectSchemaLikeFresh(url, model)
        #expect(try Self.rows(url, upper: true) == ["Phone pixel Top 2 - PIXEL", "Reader tab Top 0 tab TAB", "Slate écran Top 1 ecran ÉCRAN"])
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(url))
        defer { try? coordinator.close() }
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let shelf = context.object(with: shelfID)
            let watch = try context.insert(entityNamed: "Watch")
            watch["label"] = "Band"
            watch["price"] = Int64(99)
            watch["shelf"] = shelf
            let strap = try context.insert(entityNamed: "Accessory")
            strap["name"] = "strap"
            strap["gadget"] = watch
            try context.save()
            #expect(Self.describe(watch) == "Watch band Top 1 -" && watch["upperLabel"] as? String == "BAND")
            #expect(strap["gadgetLabel"] as? String == "Band")
            #expect(Self.totals(shelf) == "4 99")
            shelf["name"] = "Moved"
            context.object(with: phoneID)["label"] = "Fold"
            try context.save()
            #expect(context.object(with: phoneID)["upperLabel"] as? String == "FOLD")
        }
        #expect(try Self.rows(url, upper: true) == ["Phone fold Moved 2 - FOLD", "Reader tab Moved 0 tab TAB",
                                                     "Slate écran Moved 1 ecran ÉCRAN", "Watch band Moved 1 - BAND"])
        #expect(try Self.accessoryLabels(url) == ["case": "Fold", "cable": "Fold", "pen": "Écran", "strap": "Band"])
    }
}
