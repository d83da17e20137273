import Foundation
import Testing
@testable import Strata

@Suite struct ModelTests {
    @Test func typedModelDescribesEntities() throws {
        let note = try #require(testModel.entity(named: "Note"))
        #expect(note.attribute(named: "title")?.type == .string)
        #expect(note.attribute(named: "rating")?.type == .int16)
        #expect(note.attribute(named: "subtitle")?.isOptional == true)
        #expect(note.attribute(named: "title")?.isOptional == false)
        #expect(note.attribute(named: "uniqueIdentifier")?.isUnique == true)
        #expect(note.attribute(named: "metadata")?.type == .transformable)
        #expect(note.relationship(named: "folder")?.isToMany == false)
        #expect(note.relationship(named: "tags")?.isToMany == true)
        let person = try #require(testModel.entity(named: "Person"))
        #expect(person.relationship(named: "playlist")?.isOrdered == true)
        #expect(testModel.entity(named: "Folder")?.relationship(named: "notes")?.deleteRule == .cascade)
    }

    @Test func versionHashIsStableAndSensitive() throws {
        let again = try ObjectModel(Note.self, Folder.self, Tag.self, Person.self, Track.self)
        #expect(again.versionHash == testModel.versionHash)
        #expect(testModel.versionHash.count == 32)
        let a = try ObjectModel(entities: [EntityDescription("Item", attributes: [AttributeDescription("name", type: .string)])])
        let b = try ObjectModel(entities: [EntityDescription("Item", attributes: [AttributeDescription("name", type: .int64)])])
        #expect(a.versionHash != b.versionHash)
    }

    @Test func missingInverseIsATypedError() {
        let entities = [
            EntityDescription("A", relationships: [RelationshipDescription("b", destination: "B", inverse: "a")]),
            EntityDescription("B", attributes: [AttributeDescription("x", type: .string)]),
        ]
        #expect(throws: StrataError.self) { try ObjectModel(entities: entities) }
        do { _ = try ObjectModel(entities: entities) } catch { #expect(error.code == .invalidModel); #expect(error.key == "b") }
    }

    @Test func inverseThatDoesNotPointBackIsRejected() {
        let entities = [
            EntityDescription("A", relationships: [RelationshipDescription("b", destination: "B", inverse: "a")]),
            EntityDescription("B", relationships: [RelationshipDescription("a", destination: "A", inverse: "other"),
                                                   RelationshipDescription("other", destination: "A", inverse: "b")]),
        ]
        do { _ = try ObjectModel(entities: entities); Issue.record("expected an error") } catch { #expect(error.code == .invalidModel) }
    }

    @Test func illegalAndDuplicateNamesAreRejected() {
        for bad in ["_hidden", "9lives", "has space", ""] {
            do { _ = try ObjectModel(entities: [EntityDescription("E", attributes: [AttributeDescription(bad, type: .string)])]); Issue.record("\(bad) accepted") }
            catch { #expect(error.code == .invalidModel) }
        }
        do {
            _ = try ObjectModel(entities: [EntityDescription("E", attributes: [AttributeDescription("a", type: .string), AttributeDescription("a", type: .int64)])])
            Issue.record("duplicate accepted")
        } catch { #expect(error.code == .invalidModel) }
        // SQLite ignores the case of table and column names: names that differ only in case
        // would be one table or one column, so the model refuses them.
        #expect(throws: StrataError.self) {
            try ObjectModel(entities: [EntityDescription("Novel"), EntityDescription("novel")])
        }
        #expect(throws: StrataError.self) {
            try ObjectModel(entities: [EntityDescription("E", attributes: [AttributeDescription("title", type: .string), AttributeDescription("Title", type: .string)])])
        }
        #expect(throws: Never.self) {
            try ObjectModel(entities: [EntityDescription("E", attributes: [AttributeDescription("title", type: .string), AttributeDescription("subtitle", type: .string)])])
        }
    }

    @Test func transformableWithoutRegisteredTransformerIsRejected() {
        do {
            _ = try ObjectModel(entities: [EntityDescription("E", attributes: [AttributeDescription("t", type: .transformable, transformerName: TransformerName(rawValue: "nope-\(UUID())"))])])
            Issue.record("accepted")
        } catch { #expect(error.code == .invalidModel) }
    }

    @Test func orderedToOneIsRejected() {
        let entities = [
            EntityDescription("A", relationships: [RelationshipDescription("b", destination: "B", inverse: "a", isOrdered: true)]),
            EntityDescription("B", relationships: [RelationshipDescription("a", destination: "A", inverse: "b", isToMany: true)]),
        ]
        do { _ = try ObjectModel(entities: entities); Issue.record("accepted") } catch { #expect(error.code == .invalidModel) }
    }
}
