import Foundation
import Testing
@testable import Strata

/// A total that entries add to from their `willSave()`; its own `willSave()` writes an audit row.
final class Ledger: ManagedObject {
    @Attribute("total") var total: Int64 = 0
    var willSaveCalls = 0
    /// Whether the next `willSave()` inserts an ``AuditNote``.
    var audits = false

    override func willSave() {
        willSaveCalls += 1
        guard audits, let context else { return }
        audits = false
        context.insert(AuditNote.self).text = "total \(total)"
    }
}

/// An amount that, when saved for the first time, adds itself to a ledger it is not related to.
final class LedgerEntry: ManagedObject {
    @Attribute("amount") var amount: Int64 = 0
    /// Not modelled: the ledger this entry's save adds to.
    var ledger: Ledger?
    var willSaveCalls = 0

    override func willSave() {
        willSaveCalls += 1
        if isInserted, let ledger { ledger.total += amount }
    }
}

/// Made by a ledger's `willSave()`.
final class AuditNote: ManagedObject {
    @Attribute("text") var text = ""
    var willSaveCalls = 0
    override func willSave() { willSaveCalls += 1 }
}

/// `willSave()` as Core Data calls it: once per changed object and save, including objects
/// that other objects' `willSave()` changed or inserted, whose changes are saved too.
@Suite struct WillSaveTests {
    private func store(_ dir: TemporaryDirectory) async throws -> (StoreCoordinator, ObjectContext) {
        let coordinator = try await StoreCoordinator(model: try ObjectModel(Ledger.self, LedgerEntry.self, AuditNote.self), store: .sqlite(dir.file()))
        return (coordinator, ObjectContext(.privateQueue, coordinator: coordinator))
    }

    @Test func eachChangedObjectHearsWillSaveOnce() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await store(dir)
        try await context.perform {
            let ledger = context.insert(Ledger.self)
            let entries = (1...3).map { amount in
                let entry = context.insert(LedgerEntry.self)
                entry.amount = Int64(amount)
                return entry
            }
            try context.save()
            #expect(ledger.willSaveCalls == 1)
            #expect(entries.map(\.willSaveCalls) == [1, 1, 1])

            entries[0].amount = 10   // an update
            try context.save()
            #expect(entries.map(\.willSaveCalls) == [2, 1, 1])
            #expect(ledger.willSaveCalls == 1)   // unchanged: not told
        }
    }

    @Test func objectsChangedOrInsertedByWillSaveHearItTooAndAreSaved() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await store(dir)
        try await context.perform {
            let ledger = context.insert(Ledger.self)
            try context.save()
            #expect(ledger.willSaveCalls == 1)

            // The ledger is saved and unchanged; the entries' willSave changes it, and its
            // willSave then inserts an audit note: three rounds in one save.
            ledger.audits = true
            let entries = [4, 5].map { amount in
                let entry = context.insert(LedgerEntry.self)
                entry.amount = Int64(amount)
                entry.ledger = ledger
                return entry
            }
            try context.save()
            #expect(entries.map(\.willSaveCalls) == [1, 1])
            #expect(ledger.willSaveCalls == 2)
            let notes = try context.fetch(FetchRequest<AuditNote>())
            #expect(notes.map(\.text) == ["total 9"])
            #expect(notes.map(\.willSaveCalls) == [1])
            #expect(!context.hasChanges)
        }
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        try await reader.perform {
            let totals = try reader.fetch(FetchRequest<Ledger>()).map(\.total)
            let texts = try reader.fetch(FetchRequest<AuditNote>()).map(\.text)
            #expect(totals == [9])
            #expect(texts == ["total 9"])
        }
    }
}
