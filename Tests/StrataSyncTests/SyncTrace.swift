import Foundation
@testable import StrataSync

/// A trace of a random sync run, for finding why a seed diverges: with
/// `STRATA_SYNC_TRACE=<gid>[,<gid>…]` (global identifiers from the failure's dump) the run
/// prints every step, sync and edit, and at the end every device's state records and every
/// change file's records of those objects (files removed since marked "gone"). Runs replay
/// with `SWIFT_DETERMINISTIC_HASHING=1`:
///
/// ```sh
/// SWIFT_DETERMINISTIC_HASHING=1 STRATA_LONG=1 STRATA_SEED=3010 STRATA_SYNC_TRACE=a6 \
///   swift test --filter SyncFaultTests/threePeersOnAFlakyCloudConvergeToTheOracle 2>&1 | grep TRACE
/// ```
enum SyncTrace {
    static let gids = ProcessInfo.processInfo.environment["STRATA_SYNC_TRACE"].map { Set($0.split(separator: ",").map(String.init)) }
    static var isOn: Bool { gids != nil }

    static func log(_ text: @autoclosure () -> String) {
        guard isOn else { return }
        FileHandle.standardError.write(Data(("TRACE " + text() + "\n").utf8))
    }

    /// Prints the records of the traced objects among `records`.
    static func records(_ records: [StampedRecord], where label: String) {
        guard let gids else { return }
        for r in records where gids.contains(r.record.object.gid) {
            log("\(label): \(r.stamp.lamport)/\(r.stamp.milliseconds % 100_000)/\(r.stamp.peer) \(r.record)")
        }
    }
}
