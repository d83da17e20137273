import Foundation
import Testing
@testable import Strata

struct Palette: Codable, Sendable, Equatable { var colors: [String]; var weight: Double }

final class Sketch: ManagedObject {
    @Attribute("name") var name = ""
    @Attribute("palette", transformer: .propertyList) var palette = Palette(colors: [], weight: 0)
    @Attribute("notes", transformer: .json) var notes: [String]? = nil
}

@Suite struct TransformerTests {
    @Test func typedJSONAndPropertyListRoundTrip() async throws {
        let model = try ObjectModel(Sketch.self)
        let dir = TemporaryDirectory()
        do {
            let coordinator = try await StoreCoordinator(model: model, store: .sqlite(dir.file()))
            let context = ObjectContext(.privateQueue, coordinator: coordinator)
            try await context.perform {
                let sketch = context.insert(Sketch.self)
                #expect(sketch.notes == nil)
                sketch.palette = Palette(colors: ["red", "teal"], weight: 0.5)
                sketch.notes = ["first"]
                try context.save()
                let other = context.insert(Sketch.self)
                other.name = "plain"
                try context.save()
            }
        }
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(dir.file()))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let sketches = try context.fetch(FetchRequest<Sketch>(sortKeys: [SortKey("name")]))
            #expect(sketches.count == 2)
            #expect(sketches[0].palette == Palette(colors: ["red", "teal"], weight: 0.5))
            #expect(sketches[0].notes == ["first"])
            #expect(sketches[1].notes == nil)
            #expect(sketches[1].palette == Palette(colors: [], weight: 0))
            sketches[0].notes?.append("second")
            #expect(sketches[0].changedValues().keys.contains("notes"))
        }
    }

    @Test func registeredTransformerServesDynamicModels() async throws {
        struct Reversing: DataTransformer {
            func encode(_ value: Any) throws -> Data {
                guard let text = value as? String else { throw TransformerError.wrongType(expected: "String", got: "\(type(of: value))") }
                return Data(String(text.reversed()).utf8)
            }
            func decode(_ data: Data) throws -> any Sendable { String(String(decoding: data, as: UTF8.self).reversed()) }
        }
        let name = TransformerName(rawValue: "reversing-\(UUID().uuidString)")
        TransformerRegistry.shared.register(Reversing(), as: name)
        let model = try ObjectModel(entities: [EntityDescription("Doc", attributes: [AttributeDescription("body", type: .transformable, transformerName: name)])])
        let dir = TemporaryDirectory()
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(dir.file()))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let doc = try context.insert(entityNamed: "Doc")
            try doc.setValue("hello", forKey: "body")
            #expect(throws: StrataError.self) { try doc.setValue(42, forKey: "body") }
            try context.save()
        }
        let raw = try await coordinator.database.read { try Data.fetchOne($0, sql: "SELECT body FROM Doc") }
        #expect(raw == Data("olleh".utf8))
        let fresh = ObjectContext(.privateQueue, coordinator: coordinator)
        let body = try await fresh.perform { try fresh.fetch(FetchRequest<ManagedObject>(entityName: "Doc")).first?.value(forKey: "body") as? String }
        #expect(body == "hello")
    }

    @Test func jsonTransformerRejectsOtherTypes() {
        #expect(throws: TransformerError.self) { try JSONTransformer<[String]>().encode(3) }
        #expect(throws: (any Error).self) { try JSONTransformer<[String]>().decode(Data("{".utf8)) }
    }
}

@Suite struct MainQueueTests {
    @Test func mainQueueContextRunsInlineOnTheMainQueue() async throws {
        let dir = TemporaryDirectory()
        let coordinator = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file()))
        let main = ObjectContext(.mainQueue, coordinator: coordinator)
        let title = try await MainActor.run {
            try main.performAndWait {       // on the main queue already: runs inline, no deadlock
                let note = main.insert(Note.self)
                note.title = "from main"
                try main.save()
                return main.performAndWait { note.title }   // and re-entrantly
            }
        }
        #expect(title == "from main")
        let count = try await main.perform { try main.count(for: FetchRequest<Note>()) }
        #expect(count == 1)
    }
}

/// A transformable attribute whose Swift type is a plain one: its setter must still encode
/// through the transformer (the wrapper asks the entity, not a per-object copy of its
/// declaration, whether the attribute is transformable).
final class CodedLabel: ManagedObject {
    @Attribute("code", transformer: .json) var code = ""
    @Attribute("count") var count: Int64 = 0
}

@Suite struct TransformablePlainTypeTests {
    @Test func aTransformableStringIsStoredThroughItsTransformer() async throws {
        let model = try ObjectModel(CodedLabel.self)
        let coordinator = try await StoreCoordinator(model: model, store: .inMemory)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let label = context.insert(CodedLabel.self)
            label.code = "abc"
            label.count = 3
            guard case .transformed(let stored) = label.primitiveValue(forKey: "code") else {
                Issue.record("stored as \(label.primitiveValue(forKey: "code")), not transformed")
                return
            }
            #expect(String(decoding: stored.data, as: UTF8.self) == "\"abc\"")
            #expect(label.primitiveValue(forKey: "count") == .integer(3))
            try context.save()
        }
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        try await reader.perform {
            let label = try reader.fetch(FetchRequest<CodedLabel>())[0]
            #expect(label.code == "abc")
            #expect(label.count == 3)
        }
    }

    /// A constructed object's wrappers hold their slot (and an attribute its initial value),
    /// not their declaration: each object would otherwise carry the same key, options and
    /// conversion again (about 240 bytes for the Sandbox's `Book`).
    @Test func wrappersOfObjectsHoldNoDeclaration() {
        #expect(MemoryLayout<Attribute<Int64>>.size <= 24)
        #expect(MemoryLayout<Attribute<String>>.size <= 32)
        #expect(MemoryLayout<Relationship<CodedLabel?>>.size <= 16)
    }
}
