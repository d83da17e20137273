import Foundation
import Synchronization

/// Progress lines on standard error (so `--json` output on standard output stays clean).
///
/// For example:
/// ```swift
/// let log = ProgressLog(enabled: true)
/// log.note("import hybrid: 10000/100000")
/// ```
public final class ProgressLog: Sendable {
    /// Whether lines are written.
    public let enabled: Bool
    private let lastStep = Mutex<[String: Int]>([:])

    /// A log; disabled logs drop everything (tests).
    public init(enabled: Bool) { self.enabled = enabled }

    /// Writes one line.
    public func note(_ line: String) {
        guard enabled else { return }
        FileHandle.standardError.write(Data("[sandbox] \(line)\n".utf8))
    }

    /// Writes `label: done/total` when `done` crosses another tenth of `total`.
    public func step(_ label: String, _ done: Int, of total: Int) {
        guard enabled, total > 0 else { return }
        let tenth = done * 10 / total
        let shouldPrint = lastStep.withLock { steps -> Bool in
            if steps[label] == tenth { return false }
            steps[label] = tenth
            return true
        }
        if shouldPrint { note("\(label): \(done)/\(total)") }
    }
}
