import Foundation
import Testing
@testable import Strata

/// A context's loaded graph stays inverse-consistent when relationship values arrive from
/// below rather than from its own edits (docs/concurrency.md, rule 4): one deterministic test
/// per way state loaded at different moments used to disagree. Each ends with
/// `checkInvariants()`, which fails on any inverse mismatch.
///
/// The fixture: folders `one` and `two`, a tag, notes `note` and `other`, both in `one`.
/// Context `a` holds a view; context `b` (or a parent) changes the store underneath it.
@Suite struct InverseConsistencyTests {
    private struct Fixture {
        let coordinator: StoreCoordinator
        let one: ObjectID, two: ObjectID, tag: ObjectID, note: ObjectID, other: ObjectID
    }

    private func fixture(_ directory: TemporaryDirectory) async throws -> Fixture {
        let (coordinator, seeder) = try await makeStore(directory)
        let ids = try seeder.performAndWait { () throws -> [ObjectID] in
            let one = seeder.insert(Folder.self), two = seeder.insert(Folder.self), tag = seeder.insert(Tag.self)
            one.name = "one"
            two.name = "two"
            let note = seeder.insert(Note.self), other = seeder.insert(Note.self)
            note.title = "note"
            other.title = "other"
            note.folder = one
            other.folder = one
            try seeder.save()
            return [one, two, tag, note, other].map(\.objectID)
        }
        return Fixture(coordinator: coordinator, one: ids[0], two: ids[1], tag: ids[2], note: ids[3], other: ids[4])
    }

    /// Another context on the same coordinator runs `edit` and saves; returns its change set.
    @discardableResult
    private func saveElsewhere(_ fixture: Fixture, _ edit: @escaping @Sendable (ObjectContext) throws -> Void) async throws -> ChangeSet? {
        let b = ObjectContext(.privateQueue, coordinator: fixture.coordinator, name: "b")
        let received = Locked<ChangeSet?>(nil)
        let token = b.observeChanges { changes in received.withLock { $0 = changes } }
        defer { token.cancel() }
        try b.performAndWait {
            try edit(b)
            try b.save()
        }
        return received.withLock { $0 }
    }

    @Test func aFaultFiredLaterLeavesTheToManyItWasLoadedInto() async throws {
        let directory = TemporaryDirectory()
        let f = try await fixture(directory)
        let a = ObjectContext(.privateQueue, coordinator: f.coordinator, name: "a")
        try a.performAndWait {
            let one = try object(a, f.one, Folder.self), two = try object(a, f.two, Folder.self)
            #expect(one.notes.count == 2 && two.notes.isEmpty)
            #expect(a.object(with: f.note).isFault)          // a member, not read yet
        }
        try await saveElsewhere(f) { b in try object(b, f.note, Note.self).folder = try object(b, f.two, Folder.self) }
        try a.performAndWait {
            let note = try object(a, f.note, Note.self), one = try object(a, f.one, Folder.self), two = try object(a, f.two, Folder.self)
            #expect(note.title == "note")                    // fires the fault: the row says `two`
            #expect(note.folder === two)
            #expect(!one.notes.contains(note))
            #expect(two.notes.contains(note))
            try a.checkInvariants()
        }
    }

    @Test func aMergeMovesAFaultMemberBetweenLoadedToManysWithoutFiringIt() async throws {
        let directory = TemporaryDirectory()
        let f = try await fixture(directory)
        let a = ObjectContext(.privateQueue, coordinator: f.coordinator, name: "a")
        try a.performAndWait {
            let one = try object(a, f.one, Folder.self), two = try object(a, f.two, Folder.self)
            #expect(one.notes.count == 2 && two.notes.isEmpty)
        }
        let changes = try #require(try await saveElsewhere(f) { b in try object(b, f.note, Note.self).folder = try object(b, f.two, Folder.self) })
        try a.performAndWait {
            a.merge(changes)
            let one = try object(a, f.one, Folder.self), two = try object(a, f.two, Folder.self)
            #expect(a.object(with: f.note).isFault)          // not read by the merge
            #expect(one.notes.map(\.objectID) == [f.other])
            #expect(two.notes.map(\.objectID) == [f.note])
            #expect(!a.hasChanges)
            try a.checkInvariants()
        }
    }

    @Test func aRowReadForTheFirstTimeJoinsTheLoadedToManyItNames() async throws {
        let directory = TemporaryDirectory()
        let f = try await fixture(directory)
        let a = ObjectContext(.privateQueue, coordinator: f.coordinator, name: "a")
        try a.performAndWait {
            let two = try object(a, f.two, Folder.self)
            #expect(two.notes.isEmpty)
        }
        try await saveElsewhere(f) { b in try object(b, f.note, Note.self).folder = try object(b, f.two, Folder.self) }
        try a.performAndWait {
            let notes = try a.fetch(FetchRequest<Note>())
            let note = try #require(notes.first { $0.objectID == f.note })
            let two = try object(a, f.two, Folder.self)
            #expect(two.notes == [note])
            try a.checkInvariants()
        }
    }

    @Test func aToManyLoadedLaterAgreesWithTheLoadedToOnes() async throws {
        let directory = TemporaryDirectory()
        let f = try await fixture(directory)
        let a = ObjectContext(.privateQueue, coordinator: f.coordinator, name: "a")
        try a.performAndWait {
            let note = try object(a, f.note, Note.self)
            #expect(note.title == "note")                    // loaded: its folder is `one`
            _ = try object(a, f.one, Folder.self).name
            _ = try object(a, f.two, Folder.self).name        // both folders loaded, their notes not
        }
        try await saveElsewhere(f) { b in try object(b, f.note, Note.self).folder = try object(b, f.two, Folder.self) }
        try a.performAndWait {
            // `a` merged nothing: its note still says `one`, so the folders' notes, read now
            // from a store that says `two`, follow the note.
            let note = try object(a, f.note, Note.self), one = try object(a, f.one, Folder.self), two = try object(a, f.two, Folder.self)
            #expect(!two.notes.contains(note))
            #expect(one.notes.contains(note))
            #expect(note.folder === one)
            try a.checkInvariants()
        }
    }

    @Test func aMergedToOneMovesTheLoadedInversesOfBothPartners() async throws {
        let directory = TemporaryDirectory()
        let f = try await fixture(directory)
        let a = ObjectContext(.privateQueue, coordinator: f.coordinator, name: "a")
        try a.performAndWait {
            let note = try object(a, f.note, Note.self), one = try object(a, f.one, Folder.self), two = try object(a, f.two, Folder.self)
            #expect(note.title == "note" && one.notes.contains(note) && two.notes.isEmpty)   // all loaded
            // A change set that names only the to-one side (as a batch update or a cleared key reports it).
            a.merge(ChangeSet(updated: [f.note: ["folder": .objectID(f.two)]]))
            #expect(note.folder === two)
            #expect(!one.notes.contains(note))
            #expect(two.notes == [note])
            try a.checkInvariants()
        }
    }

    @Test func aMergeKeepsALocalToManyEditAndStillMovesTheMergedMember() async throws {
        let directory = TemporaryDirectory()
        let f = try await fixture(directory)
        let a = ObjectContext(.privateQueue, coordinator: f.coordinator, name: "a")   // .error: keeps local edits
        try a.performAndWait {
            let other = try object(a, f.other, Note.self), note = try object(a, f.note, Note.self)
            other.folder = try object(a, f.two, Folder.self)   // a local edit of both folders' notes
            #expect(note.folder?.objectID == f.one)
        }
        let changes = try #require(try await saveElsewhere(f) { b in try object(b, f.note, Note.self).folder = try object(b, f.two, Folder.self) })
        #expect(changes.updated[f.one]?["notes"] != nil)     // the folders' notes are in the change set too
        try a.performAndWait {
            a.merge(changes)
            let note = try object(a, f.note, Note.self), other = try object(a, f.other, Note.self)
            let one = try object(a, f.one, Folder.self), two = try object(a, f.two, Folder.self)
            #expect(note.folder === two)                      // merged
            #expect(other.folder === two && other.isUpdated)  // the local edit is kept
            #expect(one.notes.isEmpty)
            #expect(two.notes == [note, other] || two.notes == [other, note])
            try a.checkInvariants()
        }
    }

    @Test func aManyToManyLoadedLaterBringsTheLoadedInverseAlong() async throws {
        let directory = TemporaryDirectory()
        let f = try await fixture(directory)
        let a = ObjectContext(.privateQueue, coordinator: f.coordinator, name: "a")
        try a.performAndWait {
            let tag = try object(a, f.tag, Tag.self), note = try object(a, f.note, Note.self)
            #expect(tag.notes.isEmpty)
            #expect(note.title == "note")                      // loaded; its tags are not
        }
        try await saveElsewhere(f) { b in try object(b, f.note, Note.self).tags.insert(try object(b, f.tag, Tag.self)) }
        try a.performAndWait {
            let note = try object(a, f.note, Note.self), tag = try object(a, f.tag, Tag.self)
            #expect(note.tags == [tag])                        // read now: the store's pairs
            #expect(tag.notes == [note])                       // the loaded inverse follows
            try a.checkInvariants()
        }
    }

    @Test func aManyToManyLoadKeepsPairsEditedHere() async throws {
        let directory = TemporaryDirectory()
        let f = try await fixture(directory)
        let a = ObjectContext(.privateQueue, coordinator: f.coordinator, name: "a")
        try a.performAndWait {
            let tag = try object(a, f.tag, Tag.self), other = try object(a, f.other, Note.self)
            other.tags.insert(tag)                             // unsaved here
            #expect(tag.notes == [other])
        }
        try await saveElsewhere(f) { b in try object(b, f.note, Note.self).tags.insert(try object(b, f.tag, Tag.self)) }
        try a.performAndWait {
            let tag = try object(a, f.tag, Tag.self), note = try object(a, f.note, Note.self), other = try object(a, f.other, Note.self)
            #expect(note.tags == [tag])
            #expect(tag.notes.contains(note) && tag.notes.contains(other))
            #expect(other.tags == [tag] && other.isUpdated)
            try a.checkInvariants()
        }
    }

    @Test func aLocalToManyEditKeptByAMergeStillSavesWhatItRemoved() async throws {
        let directory = TemporaryDirectory()
        let f = try await fixture(directory)
        let a = ObjectContext(.privateQueue, coordinator: f.coordinator, name: "a")   // .error: keeps local edits
        try a.performAndWait {
            let note = try object(a, f.note, Note.self)
            note.tags.insert(try object(a, f.tag, Tag.self))
            try a.save()
            note.tags.removeAll()                              // unsaved: the pair (note, tag) goes
        }
        let changes = try #require(try await saveElsewhere(f) { b in
            let label = b.insert(Tag.self)
            label.label = "added elsewhere"
            try object(b, f.note, Note.self).tags.insert(label)
        })
        #expect(changes.updated[f.note]?["tags"] != nil)
        try a.performAndWait {
            a.merge(changes)                                   // note.tags is edited here: kept
            try a.checkInvariants()
            try a.save()
        }
        let reader = ObjectContext(.privateQueue, coordinator: f.coordinator, name: "reader")
        let labels = try reader.performAndWait { Set(try object(reader, f.note, Note.self).tags.map(\.label)) }
        #expect(labels == ["added elsewhere"])                 // our removal and their addition, pair by pair
    }

    @Test func aRollbackDropsInsertedObjectsFromRelationshipsLoadedSince() async throws {
        let directory = TemporaryDirectory()
        let f = try await fixture(directory)
        let a = ObjectContext(.privateQueue, coordinator: f.coordinator, name: "a", mergePolicy: .mergeByPropertyStoreTrump)
        try a.performAndWait {
            let fresh = a.insert(Note.self)
            fresh.folder = try object(a, f.one, Folder.self)   // `one.notes` is edited here
        }
        let changes = try #require(try await saveElsewhere(f) { b in try object(b, f.note, Note.self).folder = try object(b, f.two, Folder.self) })
        try a.performAndWait {
            a.merge(changes)                                   // the edit of `one.notes` is kept (every policy); `note`, a fault here, leaves it and its committed membership
            let one = try object(a, f.one, Folder.self)
            let fresh = try #require(a.insertedObjects.first as? Note)
            #expect(one.notes.contains(fresh))
            #expect(!one.notes.contains(where: { $0.objectID == f.note }))
            try a.checkInvariants()
            a.rollback()
            #expect(one.notes.allSatisfy { $0.context === a })
            #expect(one.notes.map(\.objectID) == [f.other])
            try a.checkInvariants()
        }
    }

    @Test func aRollbackAfterAMergedDeleteLeavesTheDeletedMemberOut() async throws {
        let directory = TemporaryDirectory()
        let f = try await fixture(directory)
        let a = ObjectContext(.privateQueue, coordinator: f.coordinator, name: "a")
        try a.performAndWait {
            let one = try object(a, f.one, Folder.self), note = try object(a, f.note, Note.self)
            #expect(one.notes.contains(note))
            note.folder = try object(a, f.two, Folder.self)   // `one.notes` edited: its committed value lists `note`
        }
        let changes = try #require(try await saveElsewhere(f) { b in b.delete(try object(b, f.note, Note.self)) })
        try a.performAndWait {
            a.merge(changes)                                  // `note` leaves `a`
            a.rollback()                                      // `one.notes` back to what was saved, less `note`
            let one = try object(a, f.one, Folder.self)
            #expect(one.notes.allSatisfy { $0.context === a })
            #expect(one.notes.map(\.objectID) == [f.other])
            try a.checkInvariants()
        }
    }

    @Test func aRollbackAfterAMergeKeptAToOneEditStaysConsistent() async throws {
        let directory = TemporaryDirectory()
        let f = try await fixture(directory)
        let a = ObjectContext(.privateQueue, coordinator: f.coordinator, name: "a")
        try a.performAndWait {
            let one = try object(a, f.one, Folder.self), note = try object(a, f.note, Note.self)
            #expect(one.notes.contains(note))
            note.folder = try object(a, f.two, Folder.self)   // edited here, not saved
        }
        let changes = try #require(try await saveElsewhere(f) { b in try object(b, f.note, Note.self).folder = try object(b, f.two, Folder.self) })
        try a.performAndWait {
            a.merge(changes)                                  // the edit is kept; the store now says `two`
            try a.checkInvariants()
            a.rollback()
            try a.checkInvariants()
        }
    }

    /// One-to-one: a partner read later takes its partner from the loaded object it held.
    @Test func aOneToOneReadLaterTakesThePartnerFromItsLoadedHolder() async throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Desk", attributes: [AttributeDescription("name", type: .string)],
                              relationships: [RelationshipDescription("chair", destination: "Chair", inverse: "desk")]),
            EntityDescription("Chair", attributes: [AttributeDescription("name", type: .string)],
                              relationships: [RelationshipDescription("desk", destination: "Desk", inverse: "chair")]),
        ])
        let directory = TemporaryDirectory()
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(directory.file()))
        let seeder = ObjectContext(.privateQueue, coordinator: coordinator)
        let ids = try seeder.performAndWait { () throws -> [ObjectID] in
            let first = try seeder.insert(entityNamed: "Desk"), second = try seeder.insert(entityNamed: "Desk"), chair = try seeder.insert(entityNamed: "Chair")
            try first.setValue(chair, forKey: "chair")
            try seeder.save()
            return [first, second, chair].map(\.objectID)
        }
        let a = ObjectContext(.privateQueue, coordinator: coordinator, name: "a")
        a.performAndWait {
            let first = a.object(with: ids[0]), chair = a.object(with: ids[2])
            #expect(first.value(forKey: "chair") as? ManagedObject === chair)
            #expect(chair.value(forKey: "desk") as? ManagedObject === first)
        }
        let b = ObjectContext(.privateQueue, coordinator: coordinator, name: "b")
        try b.performAndWait {
            try b.object(with: ids[1]).setValue(b.object(with: ids[2]), forKey: "chair")   // takes the chair from `first`
            try b.save()
        }
        try a.performAndWait {
            let first = a.object(with: ids[0]), second = a.object(with: ids[1]), chair = a.object(with: ids[2])
            #expect(second.value(forKey: "chair") as? ManagedObject === chair)   // read now
            #expect(chair.value(forKey: "desk") as? ManagedObject === second)
            #expect(first.value(forKey: "chair") == nil)
            try a.checkInvariants()
        }
    }

    @Test func aChildThatMergesNothingReadsItsParentsMoveConsistently() async throws {
        let directory = TemporaryDirectory()
        let f = try await fixture(directory)
        let parent = ObjectContext(.privateQueue, coordinator: f.coordinator, name: "parent")
        let child = ObjectContext(.privateQueue, parent: parent, name: "child")   // automaticallyMergesChangesFromParent: false
        try child.performAndWait {
            let one = try object(child, f.one, Folder.self)
            #expect(one.notes.count == 2)
            #expect(child.object(with: f.note).isFault)
        }
        try parent.performAndWait { try object(parent, f.note, Note.self).folder = try object(parent, f.two, Folder.self) }   // unsaved
        try child.performAndWait {
            let note = try object(child, f.note, Note.self), one = try object(child, f.one, Folder.self)
            #expect(note.folder?.objectID == f.two)           // the parent's current state
            #expect(!one.notes.contains(note))
            try child.checkInvariants()
        }
    }

    @Test func aRefreshThatKeepsLocalEditsBringsTheInversesAlong() async throws {
        let directory = TemporaryDirectory()
        let f = try await fixture(directory)
        let a = ObjectContext(.privateQueue, coordinator: f.coordinator, name: "a")
        try a.performAndWait {
            let note = try object(a, f.note, Note.self), one = try object(a, f.one, Folder.self), two = try object(a, f.two, Folder.self)
            #expect(one.notes.contains(note))
            #expect(two.notes.isEmpty)
            note.title = "edited here"
        }
        try await saveElsewhere(f) { b in try object(b, f.note, Note.self).folder = try object(b, f.two, Folder.self) }
        try a.performAndWait {
            let note = try object(a, f.note, Note.self)
            a.refresh(note, mergeChanges: true)
            #expect(note.title == "edited here")
            #expect(note.folder?.objectID == f.two)
            let one = try object(a, f.one, Folder.self), two = try object(a, f.two, Folder.self)
            #expect(!one.notes.contains(note))
            #expect(two.notes.contains(note))
            try a.checkInvariants()
        }
    }

    @Test func aRowNamingAnObjectDeletedHereReadsAsUnrelated() async throws {
        let directory = TemporaryDirectory()
        let f = try await fixture(directory)
        let a = ObjectContext(.privateQueue, coordinator: f.coordinator, name: "a")
        try a.performAndWait {
            a.delete(try object(a, f.two, Folder.self))       // empty: cascades over nothing; not saved
        }
        try await saveElsewhere(f) { b in try object(b, f.note, Note.self).folder = try object(b, f.two, Folder.self) }
        try a.performAndWait {
            let note = try object(a, f.note, Note.self)
            #expect(note.folder == nil)                        // `two` is deleted in this context
            #expect(!note.isDeleted && !note.hasChanges)
            try a.checkInvariants()
        }
    }
    /// A to-many replaced here (as a child's save pushes it into its parent) fires faults on
    /// the way, a whole fetch page at once: a row read meanwhile that names the edited object
    /// joins its to-many quietly, and the replacement must not drop it with its to-one still
    /// pointing here. The replacement is the local edit, so that member leaves both sides.
    @Test func aToManyReplacedWhileAFaultPageFiresKeepsInverses() async throws {
        let directory = TemporaryDirectory()
        let f = try await fixture(directory)
        let a = ObjectContext(.privateQueue, coordinator: f.coordinator, name: "a")
        try a.performAndWait {
            let two = try object(a, f.two, Folder.self)
            #expect(two.notes.isEmpty)                                    // loaded: empty
        }
        try await saveElsewhere(f) { b in try object(b, f.note, Note.self).folder = try object(b, f.two, Folder.self) }
        try a.performAndWait {
            var request = FetchRequest<Note>()
            request.fetchBatchSize = 10
            let notes = try a.fetch(request)                              // one page of faults: `note` and `other`
            #expect(notes.count == 2 && notes.allSatisfy(\.isFault))
            let two = try object(a, f.two, Folder.self), other = try object(a, f.other, Note.self), note = try object(a, f.note, Note.self)
            two.notes = [other]                                           // fires the page: `note`'s row says `two`
            #expect(!note.isFault)
            #expect(two.notes == [other])
            #expect(other.folder === two)
            #expect(note.folder == nil)                                   // the replacement left it out
            try a.checkInvariants()
        }
    }
}

/// The object of `context` for `id`, typed (call on the context's queue).
private func object<T: ManagedObject>(_ context: ObjectContext, _ id: ObjectID, _ type: T.Type) throws -> T {
    guard let object = context.object(with: id) as? T else {
        throw StrataError(.invalidRequest, "\(id) is not a \(T.self).")
    }
    return object
}
