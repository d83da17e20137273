import Foundation
import Synchronization
@testable import Strata

/// One context of the stress test and the seeded script its worker thread runs on it.
///
/// Objects are looked up by fetch at every step and never kept between steps: only IDs
/// cross a step, as they would cross contexts.
final class StressWorker: Sendable {
    let context: ObjectContext
    let parent: StressWorker?
    /// Bumped when this context resets after a failed save; a child resets when its
    /// parent's generation moved (its objects may name objects the parent forgot).
    let generation = Atomic<Int>(0)
    /// The pending changes the context's last save was about to write (roots only).
    let pending = Locked<ChangeBatch?>(nil)
    /// The change set the context published last (roots: the save's, read right after it).
    let published = Locked<ChangeSet?>(nil)
    private let tokens: [ChangeObservation]

    init(_ context: ObjectContext, parent: StressWorker? = nil) {
        self.context = context
        self.parent = parent
        let pending = self.pending, published = self.published
        tokens = [
            context.observeWillSave { changes in pending.withLock { $0 = changes } },
            context.observeChanges { changes in published.withLock { $0 = changes } },
        ]
    }

    var isRoot: Bool { context.parent == nil }

    /// Whether child contexts delete folders too (a cascading delete pushed into a parent).
    /// On by default; `STRATA_STRESS_CHILD_CASCADE=0` turns it off.
    static let childrenCascade = ProcessInfo.processInfo.environment["STRATA_STRESS_CHILD_CASCADE"] != "0"

    /// Runs one seeded step on the context's queue (call inside `performAndWait`) and returns
    /// its name.
    func step(_ random: inout SeededRandom, number: Int, ledger: SaveLedger) throws -> String {
        let notes = try context.fetch(FetchRequest<Note>())
        let folders = try context.fetch(FetchRequest<Folder>())
        let tags = try context.fetch(FetchRequest<Tag>())
        let value = "\(context.name)#\(number)"
        let roll = Int.random(in: 0..<100, using: &random)
        switch roll {
        case 0..<12:
            let note = context.insert(Note.self)
            note.title = value
            note.rating = Int16.random(in: 0..<100, using: &random)
            note.folder = folders.isEmpty ? nil : random.pick(folders)
            return "insert note"
        case 12..<30 where !notes.isEmpty:
            random.pick(notes).title = value
            return "retitle note"
        case 30..<42 where !notes.isEmpty:
            random.pick(notes).rating = Int16.random(in: 0..<100, using: &random)
            return "rate note"
        case 42..<50 where !notes.isEmpty:
            random.pick(notes).folder = folders.isEmpty || random.chance(0.1) ? nil : random.pick(folders)
            return "move note"
        case 50..<58 where !notes.isEmpty && !tags.isEmpty:
            let note = random.pick(notes), tag = random.pick(tags)
            if note.tags.contains(tag) { note.tags.remove(tag) } else { note.tags.insert(tag) }
            return "toggle tag"
        case 58..<63 where !folders.isEmpty:
            random.pick(folders).name = value
            return "rename folder"
        case 63..<67 where !tags.isEmpty:
            random.pick(tags).label = value
            return "relabel tag"
        case 67..<69:
            context.insert(Folder.self).name = value
            return "insert folder"
        case 69..<71:
            context.insert(Tag.self).label = value
            return "insert tag"
        case 71..<76 where !notes.isEmpty:
            context.delete(random.pick(notes))
            return "delete note"
        case 76..<77 where folders.count > 2 && (isRoot || Self.childrenCascade):
            context.delete(random.pick(folders))
            return "delete folder (cascade)"
        case 77..<78 where tags.count > 2:
            context.delete(random.pick(tags))
            return "delete tag"
        case 78..<80 where !notes.isEmpty && !folders.isEmpty && !tags.isEmpty:
            // Re-read one object: its relationships must come back consistent with the loaded
            // partners (a fault again, or fresh values under the unsaved edits).
            let objects: [ManagedObject] = [random.pick(notes), random.pick(folders), random.pick(tags)]
            let object = random.pick(objects), keepEdits = random.chance(0.5)
            context.refresh(object, mergeChanges: keepEdits)
            return keepEdits ? "refresh keeping edits" : "refresh"
        case 80..<81:
            context.rollback()
            return "rollback"
        default:
            save(ledger)
            return "save"
        }
    }

    /// Saves; a root's successful save goes into the ledger. A failed save is recorded and
    /// the context starts over (reset), as an app would after reporting the conflict.
    private func save(_ ledger: SaveLedger) {
        if isRoot {
            pending.withLock { $0 = nil }
            published.withLock { $0 = nil }
        }
        do {
            try context.save()
            if isRoot, let changes = published.withLock({ $0 }) {
                ledger.recordSave(changes, pending: pending.withLock { $0 })
            }
        } catch {
            ledger.recordFailure(error)
            context.reset()
            generation.add(1, ordering: .sequentiallyConsistent)
        }
    }
}
