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

    /// A default that its attribute cannot hold would be given to every insert, written by
    /// every save and fail every later read of the row: the model refuses it, naming the key.
    @Test(arguments: [
        (AttributeType.int64, PropertyValue.string("3")),
        (.int16, .integer(70_000)),
        (.string, .integer(1)),
        (.date, .date(Date(timeIntervalSince1970: .nan))),
        (.bool, .double(1)),
        (.uuid, .data(Data([1, 2]))),
        (.int64, .objectID(ObjectID(entity: EntityDescription("X"), key: 1))),
    ])
    func aDefaultItsAttributeCannotHoldIsRejected(type: AttributeType, value: PropertyValue) {
        let model = Result { () throws(StrataError) in
            try ObjectModel(entities: [EntityDescription("E", attributes: [AttributeDescription("a", type: type, defaultValue: value)])])
        }
        guard case .failure(let error) = model else { Issue.record("accepted \(value) for \(type)"); return }
        #expect(error.code == .invalidModel)
        #expect(error.entity == "E" && error.key == "a")
    }

    /// Defaults of the attribute's own kind are kept as they are; an integer for a double is
    /// kept as that double (a batch insert's rule), so an insert holds what a fetch would read.
    @Test func fittingDefaultsAreKeptAndAnIntegerForADoubleBecomesADouble() throws {
        let model = try ObjectModel(entities: [EntityDescription("E", attributes: [
            AttributeDescription("d", type: .double, defaultValue: .integer(2)),
            AttributeDescription("i", type: .int16, defaultValue: .integer(-5)),
            AttributeDescription("s", type: .string, defaultValue: .string("x")),
            AttributeDescription("n", type: .date),
        ])])
        let entity = try #require(model.entity(named: "E"))
        #expect(entity.attribute(named: "d")?.defaultValue == .double(2))
        #expect(entity.attribute(named: "i")?.defaultValue == .integer(-5))
        #expect(entity.attribute(named: "s")?.defaultValue == .string("x"))
        #expect(entity.attribute(named: "n")?.defaultValue == .null)
    }
}
