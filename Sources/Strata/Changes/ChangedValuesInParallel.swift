import Dispatch
import Foundation   // sched_yield
import Synchronization

/// Makes the changed-values dictionaries of a large save on the main queue on a second core
/// while the main thread writes the save to SQLite, so the report of what changed does not add
/// to main's block.
///
/// The updates are split into chunks. A helper on a global queue takes chunks one by one;
/// when the store has written, the main thread takes what is left, then waits only for the
/// chunk the helper is on (a few hundred dictionaries). A helper that never got a core leaves
/// every chunk to the main thread: the save never waits for it to start.
///
/// Below ``threshold`` updates, or off the main queue (a private context's save blocks nobody),
/// the dictionaries are made as the change set is built.
///
/// For example (inside the engine's save):
/// ```swift
/// let values = ChangedValuesInParallel.start(for: batch.updated)
/// let outcome = try coordinator.save(batch, …)
/// let changes = outcome.changeSet(for: batch, updatedValues: values?.finish())
/// ```
final class ChangedValuesInParallel: @unchecked Sendable {   // each slot is written by the one thread that claimed its chunk, and read by `finish()` only after every chunk's completion was published (`done`, release/acquire)
    /// The updates from which a main-queue save makes its dictionaries in parallel.
    static let threshold = 2_000
    /// Updates per chunk.
    static let chunkSize = 256

    private let changes: [ObjectChange]
    private let slots: UnsafeMutablePointer<[String: PropertyValue]>
    private let chunkCount: Int
    /// The next chunk to claim, and the chunks made.
    private let next = Atomic<Int>(0)
    private let done = Atomic<Int>(0)
    /// Whether `finish()` moved the dictionaries out (else `deinit` frees them).
    private var handedOver = false

    private init(_ changes: [ObjectChange]) {
        self.changes = changes
        slots = .allocate(capacity: changes.count)
        chunkCount = (changes.count + Self.chunkSize - 1) / Self.chunkSize
    }

    deinit {
        // The last reference is gone: every chunk was claimed and made, by the helper or by
        // `finish()` (the helper claims until none is left).
        if !handedOver { slots.deinitialize(count: changes.count) }
        slots.deallocate()
    }

    /// Starts making the dictionaries of `changes` on a helper when the save is large and
    /// runs on the main queue; `nil` otherwise.
    static func start(for changes: [ObjectChange]) -> ChangedValuesInParallel? {
        guard changes.count >= threshold, MainQueue.isCurrent else { return nil }
        let work = ChangedValuesInParallel(changes)
        DispatchQueue.global(qos: .userInteractive).async { work.makeChunks() }
        return work
    }

    /// Claims and makes chunks until none is left.
    private func makeChunks() {
        while true {
            let chunk = next.add(1, ordering: .relaxed).oldValue
            guard chunk < chunkCount else { return }
            var maker = ChangedValuesMaker()
            let start = chunk * Self.chunkSize
            for i in start..<min(changes.count, start + Self.chunkSize) {
                (slots + i).initialize(to: maker.values(of: changes[i]))
            }
            done.add(1, ordering: .releasing)
        }
    }

    /// The dictionaries, in the order of the changes: makes the chunks nobody claimed yet, then
    /// waits for the one the helper may be making.
    func finish() -> [[String: PropertyValue]] {
        makeChunks()
        while done.load(ordering: .acquiring) < chunkCount { sched_yield() }
        handedOver = true
        let count = changes.count
        return [[String: PropertyValue]](unsafeUninitializedCapacity: count) { buffer, initialized in
            buffer.baseAddress?.moveInitialize(from: slots, count: count)
            initialized = count
        }
    }
}
