import Foundation
import Strata

/// What recording the change history (the capture a sync exports from) costs a save: the
/// same books inserted, then re-rated, in saves of `--batch` on a private root context, on a
/// store with `recordsHistory` off and on one with it on. Off and on alternate
/// ``repetitions`` times on fresh stores; each side keeps its fastest total (the least
/// disturbed by other work on the machine). Only `save()` is timed.
///
/// For example:
/// ```swift
/// let cost = try await SyncCaptureCost.measure(run)
/// print(cost.insertRatio, cost.updateRatio)
/// ```
struct SyncCaptureCost: Sendable {
    /// Runs of each side.
    static let repetitions = 3

    /// Seconds of the insert saves without and with history.
    var insertOff = Double.infinity, insertOn = Double.infinity
    /// Seconds of the update saves without and with history.
    var updateOff = Double.infinity, updateOn = Double.infinity

    /// `insertOn / insertOff`.
    var insertRatio: Double { insertOn / max(insertOff, 1e-9) }
    /// `updateOn / updateOff`.
    var updateRatio: Double { updateOn / max(updateOff, 1e-9) }

    static func measure(_ run: ScenarioRun) async throws -> SyncCaptureCost {
        var cost = SyncCaptureCost()
        for _ in 0..<repetitions {
            for history in [false, true] {
                let (insert, update) = try await saves(run, history: history)
                if history {
                    cost.insertOn = min(cost.insertOn, insert)
                    cost.updateOn = min(cost.updateOn, update)
                } else {
                    cost.insertOff = min(cost.insertOff, insert)
                    cost.updateOff = min(cost.updateOff, update)
                }
            }
        }
        return cost
    }

    /// One fresh store: the seconds spent in the insert saves and in the update saves.
    private static func saves(_ run: ScenarioRun, history: Bool) async throws -> (Double, Double) {
        var options = StoreOptions()
        options.recordsHistory = history
        let url = run.scratch.newFile(history ? "capture-on" : "capture-off")
        let coordinator = try await StoreCoordinator(model: run.model, store: .sqlite(url, options: options))
        defer {
            try? coordinator.close()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        }
        let context = ObjectContext(.privateQueue, coordinator: coordinator, name: "capture")
        let rows = run.data.books, batch = run.batch
        return try await context.perform {
            let clock = ContinuousClock()
            var insertSeconds = 0.0, updateSeconds = 0.0
            var ids: [ObjectID] = []
            ids.reserveCapacity(rows.count)
            for start in stride(from: 0, to: rows.count, by: batch) {
                let books = rows[start..<min(rows.count, start + batch)].map { context.insertBook($0) }
                let began = clock.now
                try context.save()
                insertSeconds += (clock.now - began).sandboxSeconds
                ids += books.map(\.objectID)
                context.reset()
            }
            for start in stride(from: 0, to: ids.count, by: batch) {
                for case let book as Book in context.objects(with: Array(ids[start..<min(ids.count, start + batch)])) {
                    book.rating = (book.rating + 1) % 6
                }
                let began = clock.now
                try context.save()
                updateSeconds += (clock.now - began).sandboxSeconds
                context.reset()
            }
            return (insertSeconds, updateSeconds)
        }
    }
}
