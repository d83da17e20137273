import Foundation
import Testing
@testable import Strata

/// The registry finds each object under exactly its ID (entity, key, temporary or not) from
/// tables of keyed pages (`KeyedTable`), and lets pages go once they are empty.
@Suite struct ObjectRegistryTests {
    /// Keys on both sides of page boundaries, negative keys, the extremes, and one key under a
    /// permanent and a temporary ID at once: each finds its own object, and the registry lists
    /// every entry under the ID it was registered with.
    @Test func objectsAreFoundUnderTheirIDsWhereverTheirKeysFall() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        try await context.perform {
            let note = try #require(testModel.entity(named: "Note"))
            let folder = try #require(testModel.entity(named: "Folder"))
            let keys: [Int64] = [.min, -65, -64, -63, -1, 0, 1, 63, 64, 65, 127, 128, 1_000_000, .max]
            var ids: [ObjectID] = []
            for key in keys {
                ids.append(ObjectID(entity: note, key: key))
                ids.append(ObjectID(entity: note, key: key, isTemporary: true))
                ids.append(ObjectID(entity: folder, key: key))
            }
            var registry = ObjectRegistry()
            var objects: [ObjectID: ManagedObject] = [:]
            for id in ids {
                let object = context.insert(Note.self)
                objects[id] = object
                registry[id] = object
            }
            #expect(registry.count == ids.count)
            for id in ids { #expect(registry[id] === objects[id], "\(id)") }
            #expect(registry[ObjectID(entity: note, key: 2)] == nil)
            #expect(registry[ObjectID(entity: note, key: 2, isTemporary: true)] == nil)
            let entries = registry.entries
            #expect(Set(entries.map(\.id)) == Set(ids))
            #expect(entries.allSatisfy { objects[$0.id] === $0.object })
            #expect(Set(registry.all.map(ObjectIdentifier.init)) == Set(objects.values.map(ObjectIdentifier.init)))
            #expect(registry.ids(ofEntities: [folder.index]) == Set(ids.filter { $0.entity.index == folder.index }))

            // Replacing and removing keep the count.
            let other = context.insert(Note.self)
            registry[ids[0]] = other
            #expect(registry[ids[0]] === other && registry.count == ids.count)
            for id in ids { registry[id] = nil }
            #expect(registry.count == 0 && registry.entries.isEmpty)
            #expect(!registry.holds(entityAt: note.index) && !registry.holds(entityAt: folder.index))
        }
        try coordinator.close()
    }

    /// A save's rename files the object under its permanent ID and remembers the pair: the
    /// temporary ID still finds the object until the registry forgets temporary IDs.
    @Test func aRenamedObjectIsFoundUnderBothIDsUntilTemporaryIDsAreForgotten() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        try await context.perform {
            let note = try #require(testModel.entity(named: "Note"))
            var registry = ObjectRegistry()
            let object = context.insert(Note.self)
            let temporary = ObjectID(entity: note, key: 1_000, isTemporary: true)
            let permanent = ObjectID(entity: note, key: 7)
            registry[temporary] = object
            registry.rename(object, from: temporary, to: permanent)
            #expect(registry[temporary] == nil && registry[permanent] === object && registry.count == 1)
            #expect(registry.current(temporary) == permanent && registry.object(named: temporary) === object)
            #expect(registry.rememberedCount == 1)
            let other = ObjectID(entity: note, key: 1_001, isTemporary: true)
            #expect(registry.unknown([temporary: permanent, other: ObjectID(entity: note, key: 8)]) == [other: ObjectID(entity: note, key: 8)])
            registry.forgetTemporaryIDs()
            #expect(registry.current(temporary) == temporary && registry.object(named: temporary) == nil)
            #expect(registry.rememberedCount == 0 && registry[permanent] === object)
        }
        try coordinator.close()
    }

    /// An emptied page goes once another page is used; the page in use stays while it is
    /// emptied and filled again in turn (a loop of one insert and one save).
    @Test func emptiedPagesGo() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        try await context.perform {
            let note = try #require(testModel.entity(named: "Note"))
            let table = KeyedTable<ManagedObject>(entity: note, isTemporary: true)
            let object = context.insert(Note.self)
            for key in Int64(0)..<200 {
                _ = table.set(object, at: key)
                #expect(table.set(nil, at: key) === object)
                #expect(table.pageCount == 1, "key \(key): only the page in use is held")
            }
            for key in Int64(1_000)..<1_200 { _ = table.set(object, at: key) }
            #expect(table.count == 200 && table.pageCount == 4)
            for key in Int64(1_000)..<1_200 { _ = table.set(nil, at: key) }
            _ = table.set(object, at: 5_000)
            #expect(table.count == 1 && table.pageCount == 1)
        }
        try coordinator.close()
    }
}
