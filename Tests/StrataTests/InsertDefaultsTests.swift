import Foundation
import Testing
@testable import Strata

/// Inserted objects get their wrappers' initial values, evaluated per object, also when an
/// insert happens inside another object's `awakeFromInsert()` (the construction record that
/// collects defaults is reused between inserts, so a nested insert must not see or spill the
/// outer object's values).
@Suite struct InsertDefaultsTests {
    final class Shelf: ManagedObject {
        @Attribute("label") var label = "shelf"
        @Attribute("capacity") var capacity: Int64 = 12
        @Attribute("stamp") var stamp = UUID()
        @Attribute("note") var note = "n"   // one attribute more than Item: a stale default would land outside Item's storage
        @Relationship("items", inverse: "shelf") var items: Set<Item>
        override func awakeFromInsert() {
            guard let context else { return }
            context.insert(Item.self).shelf = self   // a nested insert of another entity
        }
    }

    final class Item: ManagedObject {
        @Attribute("name") var name = "item"
        @Attribute("weight") var weight = 0.5
        @Attribute("stamp") var stamp = UUID()
        @Relationship("shelf", inverse: "items") var shelf: Shelf?
    }

    @Test func nestedInsertsKeepTheirOwnDefaults() async throws {
        let dir = TemporaryDirectory()
        let model = try ObjectModel(Shelf.self, Item.self)
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(dir.url.appendingPathComponent("defaults.sqlite")))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            var stamps = Set<UUID>()
            for _ in 0..<3 {
                let shelf = context.insert(Shelf.self)
                #expect(shelf.label == "shelf" && shelf.capacity == 12 && shelf.note == "n")
                #expect(shelf.items.count == 1)
                let item = try #require(shelf.items.first)
                #expect(item.name == "item" && item.weight == 0.5)
                stamps.insert(shelf.stamp)
                stamps.insert(item.stamp)
                let loose = context.insert(Item.self)
                #expect(loose.name == "item" && loose.weight == 0.5 && loose.shelf == nil)
                stamps.insert(loose.stamp)
            }
            #expect(stamps.count == 9)   // every object got its own initial value
            try context.save()
        }
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        let counts = try await reader.perform { () throws -> (Int, Int, Set<String>) in
            let shelves = try reader.fetch(FetchRequest<Shelf>())
            let items = try reader.fetch(FetchRequest<Item>())
            return (shelves.count, items.count, Set(shelves.map(\.label) + items.map(\.name)))
        }
        #expect(counts.0 == 3 && counts.1 == 6)
        #expect(counts.2 == ["shelf", "item"])
    }
}
