import Foundation
import Synchronization
import Testing
@testable import Strata

/// `ObjectContext.executor`: a task that prefers it runs on the context's queue, where
/// `perform` runs its block at once (Core Data's `.immediate` schedule) instead of queueing it
/// behind the queue's earlier work. From Swift's global executor `perform` runs the block on
/// the calling thread while a private queue is idle; from elsewhere it queues.
@Suite struct ContextExecutorTests {
    /// Code of a task that prefers the executor runs on the context's queue, before and after
    /// each `perform`, and may touch the context directly (the debug check passes).
    @Test func aTaskPreferringTheExecutorRunsOnTheQueue() async throws {
        let dir = TemporaryDirectory()
        let coordinator = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file()))
        let context = ObjectContext(.privateQueue, coordinator: coordinator, checksQueueAccess: true)
        #expect(!context.queue.isCurrent)
        let onQueue = try await withTaskExecutorPreference(context.executor) {
            var every = context.queue.isCurrent
            for i in 0..<5 {
                try await context.perform { context.insert(Note.self).title = "note \(i)" }
                every = every && context.queue.isCurrent
            }
            context.insert(Note.self).title = "outside perform"   // traps if not on the queue
            try context.save()
            return every && context.queue.isCurrent
        }
        #expect(onQueue)
        let count = try await context.perform { try context.count(for: FetchRequest<Note>()) }
        #expect(count == 6)
        try coordinator.close()
    }

    /// On the queue, `perform` runs before a block queued earlier; from a task on the global
    /// executor it runs after it.
    @Test func performOnTheQueueRunsAtOnceAndElsewhereQueues() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let queuedBlockRan = Flag()
        let seenOnQueue = try await withTaskExecutorPreference(context.executor) {
            context.queue.async { queuedBlockRan.set(true) }
            return try await context.perform { queuedBlockRan.isSet }
        }
        #expect(seenOnQueue == false, "perform on the context's queue waited for the queue's earlier work")
        queuedBlockRan.set(false)
        let gate = DispatchSemaphore(value: 0)
        context.queue.async { gate.wait() }   // holds the queue until the next block is queued
        context.queue.async { queuedBlockRan.set(true) }
        gate.signal()
        let seenElsewhere = try await context.perform { queuedBlockRan.isSet }
        #expect(seenElsewhere == true, "perform from elsewhere ran before the queue's earlier work")
        try coordinator.close()
    }

    /// A loop of one-object saves on the executor saves every object, and the time its jobs
    /// spent on the queue counts as the context's busy time.
    @Test func aLoopOfSavesOnTheExecutorSavesEveryObjectAndCountsBusyTime() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        try await withTaskExecutorPreference(context.executor) {
            for i in 0..<200 {
                try await context.perform {
                    context.insert(Note.self).title = "saved \(i)"
                    try context.save()
                }
            }
        }
        // The loop may have run as one job, whose time is added when the job returns: maybe
        // after this task went on elsewhere. A block run after it (it holds the queue until
        // then) makes the figure current.
        try await context.perform {}
        #expect(context.busySeconds > 0)
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        let titles = try await reader.perform { try reader.fetch(FetchRequest<Note>()).map(\.title) }
        #expect(Set(titles) == Set((0..<200).map { "saved \($0)" }))
        try coordinator.close()
    }

    /// From a task on Swift's global executor, `perform` on an idle private context runs its
    /// block in the calling task (no hop), holding the queue: the debug check passes.
    @Test func performFromTheGlobalExecutorOnAnIdleQueueRunsInTheCallingTask() async throws {
        let dir = TemporaryDirectory()
        let coordinator = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file()))
        let context = ObjectContext(.privateQueue, coordinator: coordinator, checksQueueAccess: true)
        let ranInTask = try await Task.detached {
            try await context.perform {
                context.insert(Note.self).title = "inline"   // traps if the queue is not held
                try context.save()
                return withUnsafeCurrentTask { $0 != nil } && context.queue.isCurrent
            }
        }.value
        #expect(ranInTask, "perform hopped to the queue although it was idle")
        try coordinator.close()
    }

    /// From the main actor, a private context's `perform` hands its block to the queue: the main
    /// queue never runs a private context's work.
    @MainActor @Test func performFromTheMainActorHandsTheBlockOver() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let ranInTask = try await context.perform { withUnsafeCurrentTask { $0 != nil } }
        #expect(!ranInTask, "a private context's block ran on the main actor")
        try coordinator.close()
    }

    /// A block queued while `perform` runs on the calling thread waits until that run ends.
    @Test func aBlockQueuedDuringARunOnTheCallersThreadWaitsForIt() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let started = DispatchSemaphore(value: 0)
        let queued = DispatchSemaphore(value: 0)
        let queuedBlockRan = Flag()
        DispatchQueue.global().async {
            started.wait()
            context.queue.async { queuedBlockRan.set(true) }
            queued.signal()
        }
        let (inline, ranDuringRun) = try await Task.detached {
            try await context.perform {
                started.signal()
                queued.wait()
                usleep(50_000)   // time enough for an idle dispatch queue to start the block
                return (withUnsafeCurrentTask { $0 != nil }, queuedBlockRan.isSet)
            }
        }.value
        #expect(inline, "perform hopped to the queue although it was idle")
        #expect(!ranDuringRun, "a queued block ran while perform held the queue on the caller's thread")
        let ranAfter = try await context.perform { queuedBlockRan.isSet }
        #expect(ranAfter)
        try coordinator.close()
    }

    /// While a block holds the queue, `perform` from the global executor does not overtake it:
    /// the block is handed over and runs after it.
    @Test func performFromTheGlobalExecutorWaitsForABlockAlreadyQueued() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let blockFinished = Flag()
        let performing = Flag()
        context.queue.async {
            // Holds the queue until the task is about to call perform (under a loaded test run
            // the task may start seconds later), then until a second block is queued behind
            // this one (perform's hand-over), or 1 s more: a perform that waited for the
            // queue's lock instead would queue nothing. 300 s in all at most.
            let limit = DispatchTime.now() + 300
            while !performing.isSet, DispatchTime.now() < limit { usleep(1_000) }
            let deadline = DispatchTime.now() + 1
            while context.queue.unfinishedBlocks < 2, DispatchTime.now() < deadline { usleep(1_000) }
            blockFinished.set(true)
        }
        let (inTask, sawBlockFinished) = try await Task.detached {
            performing.set(true)
            return try await context.perform { (withUnsafeCurrentTask { $0 != nil }, blockFinished.isSet) }
        }.value
        #expect(!inTask, "perform ran on the caller's thread while the queue was busy")
        #expect(sawBlockFinished, "perform overtook a block queued before it")
        try coordinator.close()
    }

    /// Inside a run on the caller's thread the context is re-entrant (`performAndWait` runs
    /// inline), another context's block does not see it as current, and the run counts as
    /// busy time.
    @Test func aRunOnTheCallersThreadIsReentrantScopedAndTimed() async throws {
        let dir = TemporaryDirectory()
        let coordinator = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file()))
        let context = ObjectContext(.privateQueue, coordinator: coordinator, checksQueueAccess: true)
        let other = ObjectContext(.privateQueue, coordinator: coordinator)
        let busyBefore = context.busySeconds
        let (inTask, nested, currentInOther) = try await Task.detached {
            try await context.perform {
                let nested = context.performAndWait { context.queue.isCurrent }
                let currentInOther = other.performAndWait { context.queue.isCurrent }
                usleep(2_000)
                return (withUnsafeCurrentTask { $0 != nil }, nested, currentInOther)
            }
        }.value
        #expect(inTask)
        #expect(nested, "performAndWait inside the run did not see its own context as current")
        #expect(!currentInOther, "another context's block saw this context as current")
        #expect(context.busySeconds - busyBefore >= 0.002, "the run did not count as busy time")
        try coordinator.close()
    }

    /// A task started at once (`Task.immediate`) inside another context's block, and a child
    /// context's `perform`, hand the block over: neither runs it on a thread that holds, or
    /// may wait on, another queue.
    @Test func performHandsOverInsideAnotherContextsBlockAndForAChild() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let other = ObjectContext(.privateQueue, coordinator: coordinator)
        let task = other.performAndWait {
            Task.immediate { try await context.perform { withUnsafeCurrentTask { $0 != nil } } }
        }
        let ranInTask = try await task.value
        #expect(!ranInTask, "perform ran inside another context's block")
        let child = ObjectContext(.privateQueue, parent: context)
        let childInTask = try await Task.detached { try await child.perform { withUnsafeCurrentTask { $0 != nil } } }.value
        #expect(!childInTask, "a child context's perform ran on the caller's thread")
        try coordinator.close()
    }

    /// A main-queue context's `perform` called on the main actor runs at once too.
    @MainActor @Test func aMainQueueContextsPerformOnTheMainActorRunsAtOnce() async throws {
        let dir = TemporaryDirectory()
        let coordinator = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file()))
        let main = ObjectContext(.mainQueue, coordinator: coordinator)
        try #require(main.queue.isCurrent, "the test's main actor does not run on the main queue")
        let queuedBlockRan = Flag()
        DispatchQueue.main.async { queuedBlockRan.set(true) }
        let seen = try await main.perform { queuedBlockRan.isSet }
        #expect(seen == false)
        try coordinator.close()
    }
}

/// A flag blocks on any queue may set and read.
private final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set(_ newValue: Bool) { value.store(newValue, ordering: .relaxed) }
}
