import Dispatch

/// Frees a large save's values (its change batch and change set) on a utility queue when the
/// save ran on the main queue, so that committing thousands of changes there does not also
/// spend the frame freeing them: at 20 000 edited objects that is about 28 M instructions,
/// some 9 % of a main context's save (docs/performance.md, "Editor commits").
///
/// Other queues free their values where they are: nobody waits for them, and freeing on a
/// third thread would compete with them for the cores and the allocator. Below ``threshold``
/// changes, queueing costs more than freeing.
///
/// For example (inside the engine, at the end of a save):
/// ```swift
/// let count = batch.changeCount
/// LargeValueRelease.release((consume batch, consume changes), changes: count)
/// ```
enum LargeValueRelease {
    /// The number of changes from which a main-queue save's values are freed elsewhere.
    static let threshold = 1_000

    /// The utility queue the values are freed on (tests suspend it to hold the freeing back).
    static let queue = DispatchQueue(label: "strata.large-value-release", qos: .utility)

    /// Drops `value`, which holds `changes` changes: on the utility queue when called on the
    /// main queue with ``threshold`` changes or more, here otherwise. The caller passes its
    /// last reference (`consume`), so the utility queue's is the one that frees.
    static func release<Value: Sendable>(_ value: consuming Value, changes: Int) {
        guard changes >= threshold, MainQueue.isCurrent else { return }
        let moved = Box(consume value)
        queue.async { moved.value = nil }
    }

    /// Holds the value until the utility queue drops it.
    private final class Box<Value: Sendable>: @unchecked Sendable {   // written once, by the utility queue, after the saving queue let go of it
        var value: Value?
        init(_ value: consuming Value) { self.value = value }
    }
}
