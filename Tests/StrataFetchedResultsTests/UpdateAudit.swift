import Strata
import StrataFetchedResults

/// What one row of the random test's list shows: every attribute the test changes. The
/// controller reports an object as updated when a change set carries a changed value of any
/// of its keys (not only sort keys), so all of them count as displayed.
struct RowValues: Equatable, CustomStringConvertible {
    var group: String
    var rank: Int64
    var title: String
    var visible: Bool

    init(_ row: Row) {
        group = row.group
        rank = row.rank
        title = row.title
        visible = row.visible
    }

    var description: String { "(\(group), \(rank), \(title), \(visible))" }
}

/// Checks each batch's update reports against values the test reads itself, not against the
/// controller's bookkeeping: every result shown before and after a batch whose values changed
/// must be reported as `.update` or `.move`, and an object reported as `.update` must have
/// changed. "Before" is what the rows showed at the end of the previous batch (or the fetch).
///
/// Rows that were still faults at the end of the previous batch (a batched fetch's unread
/// rows) were never shown, so they are not judged and are not read (which would fault them in).
final class UpdateAudit {
    /// The values each shown row had at the end of the last batch (the row is held so its
    /// identity cannot be reused).
    private var shown: [ObjectIdentifier: (row: Row, values: RowValues)] = [:]
    /// Set by the test before each step; names the seed and step in failures.
    var label = ""
    /// Failures found so far.
    private(set) var failures: [String] = []

    /// Remembers what `objects` (the controller's results) show now.
    func remember(_ objects: [Row]) {
        shown = [:]
        for row in objects where !row.isFault { shown[ObjectIdentifier(row)] = (row, RowValues(row)) }
    }

    /// Checks one batch (the events between `will` and `did`) against `objects`, the results
    /// after it, then remembers them.
    func check(_ events: ArraySlice<Recorder.Event>, results objects: [Row]) {
        var reported: [ObjectIdentifier: FetchedResultsChangeType] = [:]
        for event in events {
            if case .row(let object, _, let type, _) = event, type == .update || type == .move { reported[object] = type }
        }
        for row in objects {
            let key = ObjectIdentifier(row)
            guard let before = shown[key] else { continue }
            let now = RowValues(row)
            if now != before.values, reported[key] == nil {
                failures.append("\(label): \(row.objectID) changed \(before.values) → \(now) but was not reported")
            }
            if now == before.values, reported[key] == .update {
                failures.append("\(label): \(row.objectID) reported as updated but still shows \(now)")
            }
        }
        remember(objects)
    }
}
