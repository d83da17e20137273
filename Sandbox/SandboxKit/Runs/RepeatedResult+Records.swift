extension RepeatedResult {
    /// One record per run for the table and the report: the repeat whose wall time is nearest
    /// the median (its stall timeline is the one drawn), carrying the medians of every repeat.
    ///
    /// For example:
    /// ```swift
    /// let records = RepeatedResult.medianRecords(passes, runs: RepeatedResult.aggregate(passes.map { $0.map(\.result) }))
    /// ```
    public static func medianRecords(_ passes: [[RunRecord]], runs: [RepeatedResult]) -> [RunRecord] {
        var byKey: [String: [RunRecord]] = [:]
        for record in passes.joined() { byKey[key(of: record.result), default: []].append(record) }
        return runs.compactMap { run in
            let median = run.result.wallSeconds
            guard var record = byKey[run.key]?.min(by: { abs($0.result.wallSeconds - median) < abs($1.result.wallSeconds - median) }) else { return nil }
            record.result = run.result
            return record
        }
    }
}
