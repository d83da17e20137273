import Foundation
import StrataRandom
import Testing
@testable import Strata

/// The context's undo manager: off by default; groups of attribute and relationship edits,
/// inserts and deletes (with their delete rules) undone and redone before a save, inverses
/// included; a bounded number of levels; the history ends at a save.
@Suite struct UndoTests {
    /// A folder with two notes, and an empty folder, saved; the context has an undo manager.
    private func fixture(_ directory: TemporaryDirectory) async throws -> (ObjectContext, Folder, Folder, Note, Note) {
        let (_, context) = try await makeStore(directory)
        return try context.performAndWait {
            let inbox = context.insert(Folder.self), archive = context.insert(Folder.self)
            inbox.name = "inbox"
            archive.name = "archive"
            let a = context.insert(Note.self), b = context.insert(Note.self)
            a.title = "a"
            b.title = "b"
            a.folder = inbox
            b.folder = inbox
            try context.save()
            context.undoManager = ContextUndoManager()
            return (context, inbox, archive, a, b)
        }
    }

    @Test func offByDefaultNothingIsRecorded() async throws {
        let directory = TemporaryDirectory()
        let (_, context) = try await makeStore(directory)
        context.performAndWait {
            #expect(context.undoManager == nil)
            let note = context.insert(Note.self)
            note.title = "kept"
            context.undo()
            #expect(note.title == "kept" && context.insertedObjects.contains(note))
        }
    }

    @Test func attributeEditsUndoToTheSavedStateAndRedo() async throws {
        let directory = TemporaryDirectory()
        let (context, _, _, a, _) = try await fixture(directory)
        try context.performAndWait {
            let undo = try #require(context.undoManager)
            a.title = "one"
            a.title = "two"
            a.rating = 3
            #expect(undo.canUndo && !undo.canRedo)
            context.undo()
            #expect(a.title == "a" && a.rating == 0)
            #expect(!context.hasChanges && !a.hasChanges)        // back to the saved values: nothing to save
            #expect(undo.canRedo && !undo.canUndo)
            context.redo()
            #expect(a.title == "two" && a.rating == 3)
            #expect(context.updatedObjects == [a])
            try context.checkInvariants()
        }
    }

    @Test func explicitGroupsUndoOneAtATimeAndANewChangeDropsTheRedos() async throws {
        let directory = TemporaryDirectory()
        let (context, _, _, a, b) = try await fixture(directory)
        try context.performAndWait {
            let undo = try #require(context.undoManager)
            undo.beginUndoGrouping()
            a.title = "a1"
            undo.beginUndoGrouping()                              // nested: joins the outer group
            b.title = "b1"
            undo.endUndoGrouping()
            undo.endUndoGrouping()
            undo.beginUndoGrouping()
            a.title = "a2"
            undo.endUndoGrouping()
            #expect(undo.undoCount == 2)
            context.undo()
            #expect(a.title == "a1" && b.title == "b1")
            context.undo()
            #expect(a.title == "a" && b.title == "b")
            context.redo()
            #expect(a.title == "a1" && b.title == "b1")
            b.title = "b2"                                        // a new change: the redo of "a2" is gone
            #expect(!undo.canRedo)
            context.processPendingChanges()                       // closes the implicit group
            #expect(undo.undoCount == 2)
            context.undo()
            #expect(b.title == "b1")
        }
    }

    @Test func anUndoneInsertLeavesTheContextAndItsRelationshipsAndARedoBringsItBack() async throws {
        let directory = TemporaryDirectory()
        let (context, inbox, _, _, _) = try await fixture(directory)
        try context.performAndWait {
            #expect(inbox.notes.count == 2)                       // loaded: the insert edits it
            let note = context.insert(Note.self)
            note.title = "new"
            note.folder = inbox
            #expect(inbox.notes.contains(note))
            context.undo()
            #expect(!context.registeredObjects.contains(note))
            #expect(context.insertedObjects.isEmpty && !context.hasChanges)
            #expect(inbox.notes.count == 2 && !inbox.notes.contains(note))
            try context.checkInvariants()
            context.redo()
            #expect(context.insertedObjects == [note])
            #expect(note.title == "new" && note.folder === inbox && inbox.notes.contains(note))
            try context.checkInvariants()
            try context.save()
            #expect(try context.count(for: FetchRequest<Note>()) == 3)
            #expect(!(context.undoManager?.canUndo ?? true))     // a save ends the history
        }
    }

    @Test func anUndoneDeleteBringsBackWhatItsCascadeAndNullifyRulesRemoved() async throws {
        let directory = TemporaryDirectory()
        let (context, inbox, _, a, b) = try await fixture(directory)
        try context.performAndWait {
            let tag = context.insert(Tag.self)
            tag.label = "t"
            a.tags = [tag]
            try context.save()
            context.undoManager = ContextUndoManager()
            context.delete(inbox)                                 // cascades to a and b; a leaves tag.notes
            #expect(a.isDeleted && b.isDeleted && inbox.isDeleted)
            #expect(tag.notes.isEmpty)
            context.undo()
            #expect(!a.isDeleted && !b.isDeleted && !inbox.isDeleted)
            #expect(context.deletedObjects.isEmpty && !context.hasChanges)
            #expect(inbox.notes == [a, b] && a.folder === inbox && tag.notes == [a] && a.tags == [tag])
            try context.checkInvariants()
            context.redo()
            #expect(Set(context.deletedObjects) == [inbox, a, b])
            try context.save()
            #expect(try context.count(for: FetchRequest<Note>()) == 0)
            #expect(try context.count(for: FetchRequest<Tag>()) == 1)
        }
    }

    @Test func relationshipEditsUndoWithTheirInverses() async throws {
        let directory = TemporaryDirectory()
        let (context, inbox, archive, a, _) = try await fixture(directory)
        try context.performAndWait {
            _ = inbox.notes
            _ = archive.notes
            a.folder = archive
            #expect(archive.notes == [a] && !inbox.notes.contains(a))
            context.undo()
            #expect(a.folder === inbox && inbox.notes.contains(a) && archive.notes.isEmpty)
            #expect(!context.hasChanges)
            try context.checkInvariants()
            context.redo()
            #expect(a.folder === archive && archive.notes == [a] && !inbox.notes.contains(a))
            try context.checkInvariants()
        }
    }

    @Test func levelsBoundTheHistory() async throws {
        let directory = TemporaryDirectory()
        let (context, _, _, a, _) = try await fixture(directory)
        try context.performAndWait {
            let undo = try #require(context.undoManager)
            undo.levelsOfUndo = 2
            for title in ["1", "2", "3"] {
                a.title = title
                context.processPendingChanges()
            }
            #expect(undo.undoCount == 2)
            context.undo()
            context.undo()
            #expect(a.title == "1")                               // the oldest group was dropped
            #expect(!undo.canUndo)
            context.undo()                                        // nothing left: no change
            #expect(a.title == "1")
        }
    }

    @Test func rollbackAndResetEndTheHistory() async throws {
        let directory = TemporaryDirectory()
        let (context, _, _, a, _) = try await fixture(directory)
        try context.performAndWait {
            let undo = try #require(context.undoManager)
            a.title = "x"
            context.rollback()
            #expect(!undo.canUndo)
            a.title = "y"
            context.reset()
            #expect(!undo.canUndo && !undo.canRedo)
        }
    }

    /// Seeded random groups of edits (attributes, to-ones, to-manys, inserts, deletes with
    /// cascades): undoing every group gives the saved graph back, redoing every group gives
    /// the edited graph back, and the context's invariants hold after every step.
    @Test(arguments: Array(1...(ProcessInfo.processInfo.environment["STRATA_LONG"] == "1" ? 400 : 12)).map(UInt64.init))
    func randomGroupsUndoAndRedoToTheSameGraphs(seed: UInt64) async throws {
        let directory = TemporaryDirectory()
        let (context, _, _, _, _) = try await fixture(directory)
        try context.performAndWait {
            var random = SplitMix64(seed: seed)
            func roll(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
            for i in 0..<3 {
                let tag = context.insert(Tag.self)
                tag.label = "tag\(i)"
            }
            try context.save()
            let undo = try #require(context.undoManager)
            undo.levelsOfUndo = 100
            let saved = try Self.graph(context)
            let groups = 4 + roll(5)
            for _ in 0..<groups {
                undo.beginUndoGrouping()
                for _ in 0..<(1 + roll(4)) {
                    let notes = try context.fetch(FetchRequest<Note>()), folders = try context.fetch(FetchRequest<Folder>())
                    let tags = try context.fetch(FetchRequest<Tag>())
                    switch roll(7) {
                    case 0:
                        let note = context.insert(Note.self)
                        note.title = "n\(roll(100))"
                        if !folders.isEmpty { note.folder = folders[roll(folders.count)] }
                    case 1 where !notes.isEmpty: notes[roll(notes.count)].title = "t\(roll(100))"
                    case 2 where !notes.isEmpty && !folders.isEmpty: notes[roll(notes.count)].folder = folders[roll(folders.count)]
                    case 3 where !notes.isEmpty && !tags.isEmpty:
                        let note = notes[roll(notes.count)], tag = tags[roll(tags.count)]
                        if note.tags.contains(tag) { note.tags.remove(tag) } else { note.tags.insert(tag) }
                    case 4 where !notes.isEmpty: context.delete(notes[roll(notes.count)])
                    case 5 where !folders.isEmpty && roll(3) == 0: context.delete(folders[roll(folders.count)])
                    default:
                        let folder = context.insert(Folder.self)
                        folder.name = "f\(roll(100))"
                    }
                }
                undo.endUndoGrouping()
                try context.checkInvariants()
            }
            let edited = try Self.graph(context)
            #expect(edited != saved || !context.hasChanges, "seed \(seed): the groups changed something")
            while undo.canUndo {
                context.undo()
                try context.checkInvariants()
            }
            #expect(try Self.graph(context) == saved, "seed \(seed): undoing every group")
            while undo.canRedo {
                context.redo()
                try context.checkInvariants()
            }
            #expect(try Self.graph(context) == edited, "seed \(seed): redoing every group")
            try context.save()
            #expect(try Self.graph(context) == edited, "seed \(seed): saved")
        }
    }

    /// The graph as plain text: every note and folder the context fetches (unsaved changes
    /// included), with its relationships, sorted; inserted objects by title, not by ID.
    private static func graph(_ context: ObjectContext) throws -> [String] {
        let notes = try context.fetch(FetchRequest<Note>()).map { note in
            "note \(note.title) in \(note.folder?.name ?? "-") tags \(note.tags.map(\.label).sorted())"
        }
        let folders = try context.fetch(FetchRequest<Folder>()).map { folder in
            "folder \(folder.name) holds \(folder.notes.map(\.title).sorted())"
        }
        let tags = try context.fetch(FetchRequest<Tag>()).map { tag in "tag \(tag.label) on \(tag.notes.map(\.title).sorted())" }
        return (notes + folders + tags).sorted()
    }
}
