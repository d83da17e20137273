import Foundation
import Testing
@testable import Strata

/// A store save's change set sums up the keys its updates name (`ChangeSet.updatedKeys`), so
/// that a list reading other keys can pass over its updates without looking at each. The
/// summary may name more keys than the updates do, never fewer.
@Suite struct UpdatedKeysTests {
    /// Saves notes, then renames some and files one in a folder; returns the second save's set.
    private static func savedUpdates(_ editor: ObjectContext) async throws -> ChangeSet {
        let received = Locked<[ChangeSet]>([])
        let token = editor.observeChanges { changes in received.withLock { $0.append(changes) } }
        defer { withExtendedLifetime(token) {} }
        try await editor.perform {
            for i in 0..<4 { let note = editor.insert(Note.self); note.title = "n\(i)" }
            try editor.save()
            let notes = try editor.fetch(FetchRequest<Note>(sortKeys: [SortKey("title")]))
            for note in notes.prefix(3) { note.title += "!" }
            notes[3].rating = 5
            notes[3].folder = editor.insert(Folder.self)
            try editor.save()
        }
        return try #require(received.withLock { $0.last })
    }

    @Test func aStoreSaveNamesEveryKeyItsUpdatesChange() async throws {
        let directory = TemporaryDirectory()
        let (_, editor) = try await makeStore(directory)
        let changes = try await Self.savedUpdates(editor)
        #expect(changes.updated.count == 4)
        let named = Set(changes.updated.values.flatMap(\.keys))
        #expect(changes.updatedKeys == named)
        #expect(named == ["title", "rating", "folder"])
        #expect(changes.updatesNameNone(of: ["created", "subtitle"]))
        #expect(!changes.updatesNameNone(of: ["created", "folder"]))
    }

    /// A child's save applied in its parent reports the keys its updates name, too: to the
    /// parent's observers (a list on the main context) and to the child's own.
    @Test func aPushNamesEveryKeyItsUpdatesChange() async throws {
        let directory = TemporaryDirectory()
        let (_, parent) = try await makeStore(directory)
        try await parent.perform {
            for i in 0..<4 { let note = parent.insert(Note.self); note.title = "n\(i)" }
            try parent.save()
        }
        let received = Locked<[ChangeSet]>([])
        let token = parent.observeChanges { changes in received.withLock { $0.append(changes) } }
        defer { withExtendedLifetime(token) {} }
        let child = ObjectContext(.privateQueue, parent: parent)
        let pushed = Locked<[ChangeSet]>([])
        let childToken = child.observeChanges { changes in pushed.withLock { $0.append(changes) } }
        defer { withExtendedLifetime(childToken) {} }
        try await child.perform {
            let notes = try child.fetch(FetchRequest<Note>(sortKeys: [SortKey("title")]))
            for note in notes.prefix(2) { note.title += "!" }   // a run of the same shape
            notes[2].rating = 3
            notes[2].subtitle = "s"
            notes[3].folder = child.insert(Folder.self)
            try child.save()
        }
        try await parent.perform {}   // a private-queue parent applies the push on its queue, after the save returns
        let changes = try #require(received.withLock { $0.last })
        #expect(changes.updated.count == 4)
        #expect(changes.updatedKeys == Set(changes.updated.values.flatMap(\.keys)))
        #expect(changes.updatedKeys == ["title", "rating", "subtitle", "folder"])
        let childsOwn = try #require(pushed.withLock { $0.last })   // what the child's observers hear
        #expect(childsOwn.updatedKeys == ["title", "rating", "subtitle", "folder"])
    }

    @Test func changingTheUpdatesForgetsTheSummary() async throws {
        let directory = TemporaryDirectory()
        let (_, editor) = try await makeStore(directory)
        var changes = try await Self.savedUpdates(editor)
        let id = try #require(changes.updated.keys.first)
        changes.updated[id]?["subtitle"] = .string("added")
        #expect(changes.updatedKeys == nil)
        #expect(!changes.updatesNameNone(of: ["subtitle"]))   // unknown: never "none"
        changes.summariseUpdatedKeys()
        #expect(changes.updatedKeys?.contains("subtitle") == true)
    }

    @Test func piecesAndMergedSetsKeepTheKeysTheyMayName() async throws {
        let directory = TemporaryDirectory()
        let (_, editor) = try await makeStore(directory)
        let changes = try await Self.savedUpdates(editor)
        let pieces = changes.pieces(of: 2)
        #expect(pieces.count == 3)   // four updates and the new folder
        #expect(pieces.allSatisfy { $0.updatedKeys == changes.updatedKeys })   // the whole set's: a superset of each piece's

        let entity = try #require(testModel.entity(named: "Note"))
        var other = ChangeSet(updated: [ObjectID(entity: entity, primaryKey: 99): ["subtitle": .null]])
        #expect(changes.merging(other).updatedKeys == nil)   // one side never summed up
        other.summariseUpdatedKeys()
        #expect(changes.merging(other).updatedKeys == ["title", "rating", "folder", "subtitle"])
        let insertsOnly = ChangeSet(inserted: [ObjectID(entity: entity, primaryKey: 100)])
        #expect(insertsOnly.merging(changes).updatedKeys == changes.updatedKeys)   // no updates: nothing to add
    }
}

/// A relationship that a save changes as a delete rule's consequence (a track whose person the
/// save deletes, in a context that had not loaded the person's playlist) is named in the
/// store save's summary, from the batch's relationship changes.
@Suite struct NullifiedRelationKeyTests {
    @Test func aRelationshipANullifyRuleClearedIsNamed() async throws {
        let directory = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(directory)
        let ids: (person: ObjectID, track: ObjectID) = try await context.perform {
            let person = context.insert(Person.self)
            let track = context.insert(Track.self)
            track.person = person
            try context.save()
            return (person.objectID, track.objectID)
        }
        // A new context deletes the person without having loaded its playlist.
        let other = ObjectContext(.privateQueue, coordinator: coordinator)
        let received = Locked<[ChangeSet]>([])
        let token = other.observeChanges { changes in received.withLock { $0.append(changes) } }
        defer { withExtendedLifetime(token) {} }
        try await other.perform {
            other.delete(try other.existingObject(with: ids.person))
            try other.save()
        }
        let changes = try #require(received.withLock { $0.last })
        #expect(changes.updated[ids.track]?["person"] == .null)
        let named = Set(changes.updated.values.flatMap(\.keys))
        #expect(named.contains("person"))
        #expect(changes.updatedKeys.map { $0.isSuperset(of: named) } == true)
        #expect(!changes.updatesNameNone(of: ["person"]))
    }
}

/// When the store adds values a save's batch did not name (derived values it recomputed, a
/// row read again after a conflict), a store save sums its keys from every update, so the
/// summary still names every key (`SaveOutcome.changeSet(for:updatedValues:)`).
@Suite struct StoreAddedKeysTests {
    /// A disc's minutes change its rack's derived totals: the rack's keys are in the summary.
    @Test func derivedValuesTheStoreRecomputedAreNamed() async throws {
        let directory = TemporaryDirectory()
        let (coordinator, context, rackID) = try await DerivedAttributeTests().seeded(directory)
        let received = Locked<[ChangeSet]>([])
        let token = context.observeChanges { changes in received.withLock { $0.append(changes) } }
        defer { withExtendedLifetime(token) {} }
        try await context.perform {
            let disc = try #require(try context.fetch(FetchRequest<Disc>(sortKeys: [SortKey("minutes")])).first)
            disc.minutes = 40
            try context.save()
        }
        let changes = try #require(received.withLock { $0.last })
        let named = Set(changes.updated.values.flatMap(\.keys))
        #expect(changes.updated[rackID]?["totalMinutes"] == .integer(90))
        #expect(named.isSuperset(of: ["minutes", "totalMinutes"]))
        #expect(changes.updatedKeys.map { $0.isSuperset(of: named) } == true)
        #expect(!changes.updatesNameNone(of: ["totalMinutes"]))
        try coordinator.close()
    }

    /// A save that loses a conflict under a merge policy reports the row as it now stands,
    /// with keys its own batch did not change; they are in the summary.
    @Test func aRowReadAgainAfterAConflictIsNamed() async throws {
        let directory = TemporaryDirectory()
        let (coordinator, first) = try await makeStore(directory)
        let id = try await first.perform { () throws -> ObjectID in
            let note = first.insert(Note.self)
            note.title = "t"
            try first.save()
            return note.objectID
        }
        let second = ObjectContext(.privateQueue, coordinator: coordinator, mergePolicy: .mergeByPropertyStoreTrump)
        try await second.perform { _ = try second.existingObject(with: id) }   // read before the other save
        try await first.perform {
            (try first.existingObject(with: id) as? Note)?.subtitle = "theirs"
            try first.save()
        }
        let received = Locked<[ChangeSet]>([])
        let token = second.observeChanges { changes in received.withLock { $0.append(changes) } }
        defer { withExtendedLifetime(token) {} }
        try await second.perform {
            (try second.existingObject(with: id) as? Note)?.rating = 4
            try second.save()
        }
        let changes = try #require(received.withLock { $0.last })
        let named = Set(changes.updated.values.flatMap(\.keys))
        #expect(changes.updated[id]?["subtitle"] == .string("theirs"))
        #expect(named.isSuperset(of: ["rating", "subtitle"]))
        #expect(changes.updatedKeys.map { $0.isSuperset(of: named) } == true)
        try coordinator.close()
    }
}
