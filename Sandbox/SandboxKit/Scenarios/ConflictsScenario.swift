import Strata

/// `conflicts`: for each merge policy, two sibling import contexts read the same books; A
/// changes title and rating and saves (to disk), then B, still holding the old rows, changes
/// the title and saves. The detail tells, per policy, whether B's save threw and what the
/// store holds.
///
/// Writers that are root contexts (the hybrid stack's import contexts) meet the store's row
/// versions and the policy decides; writers that are children of main push in memory, where
/// no conflict is detected and the last push wins whatever the policy.
///
/// For example:
/// ```swift
/// let outcome = try await ConflictsScenario().perform(run)
/// print(outcome.detail)
/// ```
public struct ConflictsScenario: Scenario {
    public static let name = "conflicts"
    public static let summary = "sibling writers updating the same rows under each merge policy"

    static let ratingByA: Int64 = 7

    public init() {}

    public func prepare(_ run: ScenarioRun) async throws {
        try await BookSeeder.seed(run, into: try run.requireStack())
    }

    /// The books (by position) each policy's writers fight over.
    static func slices(_ run: ScenarioRun) -> [(MergePolicy, Range<Int64>)] {
        let policies = MergePolicy.allCases
        let per = max(1, run.data.books.count / policies.count)
        return policies.enumerated().map { i, policy in
            let lower = Int64(min(run.data.books.count, i * per))
            let upper = i == policies.count - 1 ? Int64(run.data.books.count) : Int64(min(run.data.books.count, (i + 1) * per))
            return (policy, lower..<upper)
        }
    }

    public func perform(_ run: ScenarioRun) async throws -> ScenarioOutcome {
        let stack = try run.requireStack()
        var threw: [String] = []
        var pushes = 0
        var writersAreRoots = true
        for (index, (policy, slice)) in Self.slices(run).enumerated() {
            let a = stack.newImportContext(), b = stack.newImportContext()
            writersAreRoots = a.parent == nil
            let rating = Self.ratingByA
            let predicate = try ObjectPredicate("position >= %@ AND position < %@", slice.lowerBound, slice.upperBound)
            for writer in [a, b] {
                try await writer.perform {
                    writer.mergePolicy = policy
                    _ = try writer.fetch(FetchRequest<Book>(predicate: predicate))   // kept registered: the rows as read now
                }
            }
            try await a.perform {
                for book in try a.fetch(FetchRequest<Book>(predicate: predicate)) { book.title = "A \(book.position)"; book.rating = rating }
                try a.save()
            }
            if try await run.finishSave(of: a) { pushes += 1 }
            do {
                try await b.perform {
                    for book in try b.fetch(FetchRequest<Book>(predicate: predicate)) { book.title = "B \(book.position)" }
                    try b.save()
                }
                if try await run.finishSave(of: b) { pushes += 1 }
            } catch let error as StrataError where error.code == .conflict {
                threw.append(policy.rawValue)
            }
            run.step(index + 1, of: MergePolicy.allCases.count)
        }
        return ScenarioOutcome(objects: run.data.books.count, pushesThroughMain: pushes,
                               detail: writersAreRoots ? "writers: root contexts; " : "writers: children of main; ",
                               counters: ["conflictErrors": threw.count])
    }

    /// Compares the store with what each policy promises (or, for child writers, with the last push winning).
    public func verify(_ run: ScenarioRun, _ outcome: ScenarioOutcome) async throws -> ScenarioOutcome {
        let stored = try await StoreInspector.books(at: run.storeURL, model: run.model)
        let roots = outcome.detail.hasPrefix("writers: root")
        var parts: [String] = []
        var problems: [String] = []
        for (policy, slice) in Self.slices(run) where !slice.isEmpty {
            guard let first = stored[slice.lowerBound] else { problems.append("\(policy.rawValue): row missing"); continue }
            let winner = first.title.hasPrefix("A ") ? "A" : first.title.hasPrefix("B ") ? "B" : "neither"
            let ratingFromA = first.rating == Self.ratingByA
            parts.append("\(policy.rawValue): title \(winner), rating \(ratingFromA ? "A" : "original")")
            let expected: (String, Bool)
            if !roots {
                expected = ("B", true)
            } else {
                switch policy {
                case .error, .mergeByPropertyStoreTrump, .rollback: expected = ("A", true)
                case .mergeByPropertyObjectTrump: expected = ("B", true)
                case .overwrite: expected = ("B", false)
                }
            }
            if (winner, ratingFromA) != expected {
                problems.append("\(policy.rawValue): expected title \(expected.0), rating \(expected.1 ? "A" : "original")")
            }
        }
        let expectedErrors = roots ? 1 : 0
        if outcome.counters["conflictErrors"] != expectedErrors {
            problems.append("\(outcome.counters["conflictErrors"] ?? 0) conflict errors, expected \(expectedErrors)")
        }
        var result = outcome
        result.detail += parts.joined(separator: "; ")
        result.check = problems.isEmpty ? "ok" : problems.joined(separator: "; ")
        return result
    }
}
