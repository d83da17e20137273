import Foundation
import GRDB
import Testing
@testable import Strata

/// A card that counts how many are constructed as faults and how many are alive.
final class PreparedCard: ManagedObject {
    @Attribute("title") var title = ""
    @Attribute("rating") var rating: Int64 = 0
    @Attribute("notes", transformer: .json) var notes: [String] = []
    @Relationship("deck", inverse: "cards") var deck: PreparedDeck?

    /// Cards constructed, those of them constructed as faults (as a context does for an object
    /// it must read), and cards alive.
    static let counts = Locked((made: 0, faults: 0, alive: 0))
    var awakeFromFetchCount = 0
    /// When set, `awakeFromFetch()` sets the rating to it (a hook that changes the object).
    static let ratingSetAtAwake = Locked<Int64?>(nil)
    /// The title `awakeFromFetch()` last saw.
    var titleAtAwake: String?

    required init(_ creation: ObjectCreation) {
        Self.counts.withLock { $0.made += 1; $0.alive += 1; if creation.isFault { $0.faults += 1 } }
        super.init(creation)
    }
    deinit { Self.counts.withLock { $0.alive -= 1 } }
    /// How many objects its context held as faults when `awakeFromFetch()` last ran.
    var faultsHeldAtAwake = -1
    override func awakeFromFetch() {
        awakeFromFetchCount += 1
        faultsHeldAtAwake = (storageOwner as? ObjectContext)?.registry.all.filter(\.lifecycle.isFault).count ?? -1
        titleAtAwake = title
        if let rating = Self.ratingSetAtAwake.withLock({ $0 }) { self.rating = rating }
    }
}

final class PreparedDeck: ManagedObject {
    @Attribute("name") var name = ""
    @Relationship("cards", inverse: "deck") var cards: Set<PreparedCard>
}

/// A large push from a child into a main-queue context: the objects main does not hold are
/// made on the child's queue and adopted by main (`PreparedObjects`).
@Suite(.serialized) struct PreparedObjectsTests {
    static let model: ObjectModel = {
        do { return try ObjectModel(PreparedCard.self, PreparedDeck.self) }
        catch { preconditionFailure("prepared objects model: \(error)") }  // programmer error: the model is valid
    }()

    /// A store with `count` saved cards in one deck, a main-queue context holding none of
    /// them, and a private child of it.
    private func makeStack(_ dir: TemporaryDirectory, count: Int = 300)
        async throws -> (coordinator: StoreCoordinator, main: ObjectContext, child: ObjectContext, ids: [ObjectID], deck: ObjectID) {
        var options = StoreOptions()
        options.rowCacheCapacity = 50   // fewer rows than the push: the cache cannot answer for main
        let coordinator = try await StoreCoordinator(model: Self.model, store: .sqlite(dir.file(), options: options))
        let writer = ObjectContext(.privateQueue, coordinator: coordinator)
        let (ids, deck) = try await writer.perform { () throws -> ([ObjectID], ObjectID) in
            let deck = writer.insert(PreparedDeck.self)
            deck.name = "deck"
            for i in 0..<count {
                let card = writer.insert(PreparedCard.self)
                card.title = "c\(i)"
                card.deck = deck
            }
            try writer.save()
            return (try writer.fetchObjectIDs(FetchRequest<PreparedCard>()), deck.objectID)
        }
        let main = ObjectContext(.mainQueue, coordinator: coordinator)
        let child = ObjectContext(.privateQueue, parent: main)
        return (coordinator, main, child, ids, deck)
    }

    /// The child edits every card's title and saves into main.
    private func editAndSave(_ child: ObjectContext) async throws {
        try await child.perform {
            for card in try child.fetch(FetchRequest<PreparedCard>()) { card.title += " edited" }
            try child.save()
        }
    }

    @Test func mainAdoptsTheObjectsMadeOnTheChildsQueue() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, main, child, ids, deckID) = try await makeStack(dir)
        // Main holds the deck, loaded, and no card: every card the push brings is adopted.
        let (deckIsFault, held) = try await main.perform { () throws -> (Bool, Int) in
            let deck = try #require(try main.existingObject(with: deckID) as? PreparedDeck)
            return (deck.isFault, main.registeredObjects.count)
        }
        #expect(!deckIsFault)
        #expect(held == 1)
        try await child.perform {
            for card in try child.fetch(FetchRequest<PreparedCard>()) { card.title += " edited" }
        }
        PreparedCard.counts.withLock { $0.faults = 0 }
        try await child.perform { try child.save() }
        // Main did not make faults to fill (it may run the push on the child's thread, so the
        // thread does not tell).
        #expect(PreparedCard.counts.withLock { $0.faults } == 0, "main made faults for the pushed cards")
        try await main.perform {
            let heldDeck = try #require(main.object(with: deckID) as? PreparedDeck)
            for id in ids {
                let card = try #require(main.registeredObject(for: id) as? PreparedCard)
                #expect(!card.isFault)
                #expect(card.title.hasSuffix(" edited"))
                #expect(card.awakeFromFetchCount == 1)
                #expect(card.changedValues().keys.sorted() == ["title"])
                #expect(card.deck === heldDeck)
                #expect(!card.lifecycle.recordsUndo)
            }
            #expect(main.updatedObjects.count == ids.count)
            try main.save()
        }
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        let titles = try await reader.perform { try reader.fetch(FetchRequest<PreparedCard>()).map(\.title) }
        #expect(titles.count == ids.count && titles.allSatisfy { $0.hasSuffix(" edited") })
        try coordinator.close()
    }

    /// Objects main already holds stay the ones it holds (with their own unsaved changes);
    /// the objects made for them are freed, not registered twice.
    @Test func mainKeepsTheObjectsItHoldsAndTheSpareOnesAreFreed() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, main, child, ids, _) = try await makeStack(dir)
        let held = try await main.perform { () throws -> [ObjectIdentifier] in
            var request = FetchRequest<PreparedCard>()
            request.fetchLimit = 100
            let cards = try main.fetch(request)
            for card in cards { card.rating = 5 }
            return cards.map(ObjectIdentifier.init)
        }
        let aliveBefore = PreparedCard.counts.withLock { $0.alive }
        try await editAndSave(child)
        try await main.perform {
            let registered = ids.compactMap { main.registeredObject(for: $0) as? PreparedCard }
            #expect(registered.count == ids.count)
            let heldNow = registered.filter { held.contains(ObjectIdentifier($0)) }
            #expect(heldNow.count == held.count)
            #expect(heldNow.allSatisfy { $0.rating == 5 && $0.title.hasSuffix(" edited") })
            #expect(registered.allSatisfy { $0.title.hasSuffix(" edited") })
        }
        try await child.perform { child.reset() }   // the child's own cards go
        // Main gained the cards it did not hold; the ones made for the cards it held are gone.
        #expect(PreparedCard.counts.withLock { $0.alive } - aliveBefore == ids.count - held.count)
        try coordinator.close()
    }

    /// Rows read before a commit are not taken: main reads the row as the commit left it.
    @Test func rowsReadBeforeACommitAreNotAdopted() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, main, child, ids, _) = try await makeStack(dir)
        let (batch, rows) = try await child.perform { () throws -> (ChangeBatch, PushRows?) in
            for card in try child.fetch(FetchRequest<PreparedCard>()) { card.title += " edited" }
            let batch = child.changeBatch()
            return (batch, PushRows.read(for: batch, below: main))
        }
        #expect(rows?.rows.count == ids.count)
        let other = ObjectContext(.privateQueue, coordinator: coordinator)
        try await other.perform {
            let card = try #require(try other.existingObject(with: ids[0]) as? PreparedCard)
            card.rating = 7
            try other.save()
        }
        try await child.perform { try child.push(batch, to: main, rows: rows) }
        try await main.perform {
            let card = try #require(main.object(with: ids[0]) as? PreparedCard)
            #expect(card.rating == 7)
            #expect(card.title.hasSuffix(" edited"))
            try main.save()   // the row version main holds is the commit's: no conflict
        }
        try coordinator.close()
    }

    /// Adopted objects record undo when main has an undo manager, and rolling back main puts
    /// their stored values back.
    @Test func adoptedObjectsUndoAndRollBackAsMainsOwn() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, main, child, ids, _) = try await makeStack(dir)
        try await main.perform { main.undoManager = ContextUndoManager(levelsOfUndo: 5) }
        try await editAndSave(child)
        try await main.perform {
            let cards = ids.compactMap { main.registeredObject(for: $0) as? PreparedCard }
            #expect(cards.count == ids.count)
            #expect(cards.allSatisfy { $0.lifecycle.recordsUndo })
            main.rollback()
            #expect(cards.allSatisfy { !$0.title.hasSuffix(" edited") && !$0.hasChanges })
            #expect(!main.hasChanges)
        }
        try coordinator.close()
    }

    /// An adopted object whose `awakeFromFetch()` changes it keeps that change and takes the
    /// push's too: its hook saw the stored values, and the values the child made ahead from
    /// the row (without the hook's change) are not taken whole.
    @Test func anAdoptedObjectChangedWhileWakingKeepsItsChangeAndThePushs() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, main, child, ids, _) = try await makeStack(dir)
        try await child.perform {
            for card in try child.fetch(FetchRequest<PreparedCard>()) { card.title += " edited" }
        }
        // Only main's wakings set the rating: the child read its cards before.
        PreparedCard.ratingSetAtAwake.withLock { $0 = 7 }
        defer { PreparedCard.ratingSetAtAwake.withLock { $0 = nil } }
        try await child.perform { try child.save() }
        try await main.perform {
            let cards = ids.compactMap { main.registeredObject(for: $0) as? PreparedCard }
            #expect(cards.count == ids.count)
            for card in cards {
                #expect(card.titleAtAwake.map { !$0.hasSuffix(" edited") } == true)
                #expect(card.title.hasSuffix(" edited"))
                #expect(card.rating == 7)
                #expect(card.changedValues().keys.sorted() == ["rating", "title"])
            }
            try main.save()
        }
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        let stored = try await reader.perform { try reader.fetch(FetchRequest<PreparedCard>()).map { ($0.title, $0.rating) } }
        #expect(stored.count == ids.count && stored.allSatisfy { $0.0.hasSuffix(" edited") && $0.1 == 7 })
        try coordinator.close()
    }

    /// Faults main holds are filled, not replaced, and every object the push read is woken
    /// only once all of them are in place (a hook finds no fault among them).
    @Test func heldFaultsAreFilledAndEveryObjectWakesAfterAllAreInPlace() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, main, child, ids, _) = try await makeStack(dir)
        let faults = try await main.perform { () throws -> [ObjectIdentifier] in
            var request = FetchRequest<PreparedCard>()
            request.fetchLimit = 100
            request.returnsObjectsAsFaults = true
            let cards = try main.fetch(request)
            #expect(cards.allSatisfy { $0.isFault })
            return cards.map(ObjectIdentifier.init)
        }
        try await editAndSave(child)
        try await main.perform {
            let cards = ids.compactMap { main.registeredObject(for: $0) as? PreparedCard }
            #expect(cards.count == ids.count)
            #expect(cards.filter { faults.contains(ObjectIdentifier($0)) }.count == faults.count)
            for card in cards {
                #expect(!card.isFault && card.title.hasSuffix(" edited"))
                #expect(card.awakeFromFetchCount == 1)
                #expect(card.faultsHeldAtAwake == 0, "a hook ran while \(card.faultsHeldAtAwake) faults were still unfilled")
            }
        }
        try coordinator.close()
    }

    /// A main that never takes rows read elsewhere (staleness 0) gets no objects made for it:
    /// it reads its faults itself.
    @Test func aMainThatNeverTakesReadRowsAdoptsNothing() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, main, child, ids, _) = try await makeStack(dir)
        main.stalenessInterval = 0
        try await child.perform {
            for card in try child.fetch(FetchRequest<PreparedCard>()) { card.title += " edited" }
        }
        PreparedCard.counts.withLock { $0.faults = 0; $0.made = 0 }
        try await child.perform { try child.save() }
        // Main's faults only: the child made nothing main would not take.
        #expect(PreparedCard.counts.withLock { ($0.faults, $0.made) } == (ids.count, ids.count))
        let titles = try await main.perform { ids.map { (main.registeredObject(for: $0) as? PreparedCard)?.title ?? "" } }
        #expect(titles.allSatisfy { $0.hasSuffix(" edited") })
        try coordinator.close()
    }

    /// Main below a writer with unsaved changes of the entity (made after the rows were read)
    /// does not adopt the store's rows: its objects read through the writer.
    @Test func anAncestorsUnsavedChangesWinOverThePreparedRows() async throws {
        let dir = TemporaryDirectory()
        var options = StoreOptions()
        options.rowCacheCapacity = 50
        let coordinator = try await StoreCoordinator(model: Self.model, store: .sqlite(dir.file(), options: options))
        let writer = ObjectContext(.privateQueue, coordinator: coordinator)
        let ids = try await writer.perform { () throws -> [ObjectID] in
            for i in 0..<300 { writer.insert(PreparedCard.self).title = "c\(i)" }
            try writer.save()
            let ids = try writer.fetchObjectIDs(FetchRequest<PreparedCard>())
            writer.reset()
            return ids
        }
        let main = ObjectContext(.mainQueue, parent: writer)
        let child = ObjectContext(.privateQueue, parent: main)
        let (batch, rows) = try await child.perform { () throws -> (ChangeBatch, PushRows?) in
            for card in try child.fetch(FetchRequest<PreparedCard>()) { card.title += " edited" }
            let batch = child.changeBatch()
            return (batch, PushRows.read(for: batch, below: main))
        }
        #expect(rows?.rows.count == ids.count)
        try await writer.perform {
            let card = try #require(try writer.existingObject(with: ids[0]) as? PreparedCard)
            card.rating = 9
        }
        try await child.perform { try child.push(batch, to: main, rows: rows) }
        try await main.perform {
            let card = try #require(main.object(with: ids[0]) as? PreparedCard)
            #expect(card.rating == 9)
            #expect(card.title.hasSuffix(" edited"))
        }
        try coordinator.close()
    }

    /// An adopted object joins the graph main has loaded: a card another context moved into
    /// a deck whose cards main had read before is among that deck's cards once main adopts it.
    @Test func anAdoptedObjectJoinsALoadedToManyOfMain() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, main, child, ids, _) = try await makeStack(dir)
        let other = ObjectContext(.privateQueue, coordinator: coordinator)
        let emptyDeck = try await other.perform { () throws -> ObjectID in
            let deck = other.insert(PreparedDeck.self)
            deck.name = "empty"
            try other.save()
            return deck.objectID
        }
        let loaded = try await main.perform { () throws -> Int in
            let deck = try #require(try main.existingObject(with: emptyDeck) as? PreparedDeck)
            return deck.cards.count   // loaded, empty
        }
        #expect(loaded == 0)
        try await other.perform {
            let card = try #require(try other.existingObject(with: ids[0]) as? PreparedCard)
            card.deck = try #require(try other.existingObject(with: emptyDeck) as? PreparedDeck)
            try other.save()
        }
        try await editAndSave(child)
        try await main.perform {
            let card = try #require(main.registeredObject(for: ids[0]) as? PreparedCard)
            let deck = try #require(main.registeredObject(for: emptyDeck) as? PreparedDeck)
            #expect(card.title.hasSuffix(" edited"))
            #expect(card.deck === deck)
            #expect(deck.cards.contains(card), "the adopted card is not among its deck's loaded cards")
        }
        try coordinator.close()
    }

    /// Objects of subentities are adopted as their own classes, with their own columns.
    /// A card whose stored `notes` do not decode (another program wrote them) is adopted with
    /// that error: main reads the initial value, its save writes the edit, and the stored bytes
    /// stay as they are.
    @Test func anAdoptedObjectKeepsTheErrorOfAValueThatDoesNotDecode() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, main, child, ids, _) = try await makeStack(dir)
        let broken = ids[7]
        let key = try #require(broken.primaryKey)
        let title = try await coordinator.database.write { db in
            try db.execute(sql: "UPDATE PreparedCard SET notes = X'DEADBEEF' WHERE _id = ?", arguments: [key])
            return try String.fetchOne(db, sql: "SELECT title FROM PreparedCard WHERE _id = ?", arguments: [key])
        }
        try await child.perform {
            var faulting = FetchRequest<PreparedCard>()
            faulting.returnsObjectsAsFaults = true   // a full-row fetch would throw the error
            for card in try child.fetch(faulting) { card.title += " edited" }
            try child.save()
        }
        let (notes, code, faults) = try await main.perform { () throws -> ([String], StrataError.Code?, Int) in
            let card = try #require(main.registeredObject(for: broken) as? PreparedCard)
            let slot = try #require(card.entity.attributeNames.firstIndex(of: "notes"))
            let faults = main.registeredObjects.filter(\.isFault).count
            let result = (card.notes, card.valueErrors[slot]?.code, faults)
            try main.save()
            return result
        }
        #expect(faults == 0)   // adopted, not made as a fault and read
        #expect(notes == [])
        #expect(code == .undecodableValue)
        let stored = try await coordinator.database.read { db in
            (try Data.fetchOne(db, sql: "SELECT notes FROM PreparedCard WHERE _id = ?", arguments: [key]),
             try String.fetchOne(db, sql: "SELECT title FROM PreparedCard WHERE _id = ?", arguments: [key]))
        }
        #expect(stored.0 == Data([0xDE, 0xAD, 0xBE, 0xEF]))
        #expect(stored.1 == title.map { $0 + " edited" })
        try coordinator.close()
    }

    @Test func subentityObjectsAreAdoptedAsTheirOwnClasses() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, writer) = try await makeInheritanceStore(dir)
        try await writer.perform {
            for i in 0..<150 { let photo = writer.insert(Photo.self); photo.name = "p\(i)"; photo.width = Int64(i) }
            for i in 0..<100 { writer.insert(Video.self).name = "v\(i)" }
            for i in 0..<50 { let clip = writer.insert(Clip.self); clip.name = "c\(i)"; clip.source = "s\(i)" }
            try writer.save()
        }
        let main = ObjectContext(.mainQueue, coordinator: coordinator)
        let child = ObjectContext(.privateQueue, parent: main)
        let ids = try await child.perform { () throws -> [ObjectID] in
            let all = try child.fetch(FetchRequest<Attachment>())
            for attachment in all { attachment.name += " edited" }
            try child.save()
            return all.map(\.objectID)
        }
        #expect(ids.count == 300)
        try await main.perform {
            var kinds: [String: Int] = [:]
            for id in ids {
                let object = try #require(main.registeredObject(for: id) as? Attachment)
                #expect(!object.isFault && object.name.hasSuffix(" edited"))
                kinds[String(describing: type(of: object)), default: 0] += 1
                if let photo = object as? Photo { #expect(photo.name == "p\(photo.width) edited") }
                if let clip = object as? Clip { #expect(clip.source == "s" + clip.name.dropFirst().prefix { $0 != " " }) }
            }
            #expect(kinds == ["Photo": 150, "Video": 100, "Clip": 50])
        }
        try coordinator.close()
    }
}
