import Foundation
import GRDB
import GRDBSQLite
import Logging
import Synchronization

/// The SQL a coordinator's connections execute: recorded for
/// ``StoreCoordinator/recordingSQL(_:)``, logged for ``StoreOptions/logsSQL``.
///
/// It is SQLite's statement trace on every connection of the coordinator, so it runs for every
/// statement; while nothing records and nothing logs it returns after one atomic load. (GRDB's
/// `Database.trace` built an event and called a closure for each statement, about 170
/// instructions, even then.)
///
/// For example (inside the coordinator):
/// ```swift
/// configuration.prepareDatabase { db in recorder.trace(db) }
/// recorder.start(); …; let statements = recorder.stop()
/// ```
final class SQLRecorder: Sendable {
    private let state = Locked<[String]?>(nil)
    private let recording = Atomic<Bool>(false)
    /// Set when the store logs every statement (label `strata.sql`, level `.trace`).
    private let logger: Logger?

    init(logsSQL: Bool) {
        logger = logsSQL ? Logger(label: "strata.sql") : nil
    }

    func start() { state.withLock { $0 = [] }; recording.store(true, ordering: .relaxed) }
    func stop() -> [String] { recording.store(false, ordering: .relaxed); return state.withLock { let s = $0 ?? []; $0 = nil; return s } }

    /// Keeps Strata's own statements; transaction control and GRDB's bookkeeping are left out.
    func record(_ sql: String) {
        for prefix in ["BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "PRAGMA", "SELECT * FROM sqlite_master"] where sql.hasPrefix(prefix) { return }
        state.withLock { $0?.append(sql) }
    }

    /// Traces the statements of `db`'s connection into this recorder. The caller keeps the
    /// recorder alive as long as the connection (SQLite holds an unretained pointer to it): the
    /// coordinator calls this from its `prepareDatabase` closure, which captures the recorder
    /// and which each connection's `Database.configuration` keeps.
    func trace(_ db: Database) {
        sqlite3_trace_v2(db.sqliteConnection, UInt32(SQLITE_TRACE_STMT), { _, context, _, text in
            guard let context, let text else { return 0 }
            Unmanaged<SQLRecorder>.fromOpaque(context).takeUnretainedValue().traced(text)
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// One statement about to run: `text` is its SQL as written (a trigger's program is
    /// announced as a `--` comment naming it).
    private func traced(_ text: UnsafeMutableRawPointer) {
        let recording = recording.load(ordering: .relaxed)
        guard recording || logger != nil else { return }
        var sql = String(cString: text.assumingMemoryBound(to: CChar.self))
        if !sql.hasPrefix("--") { sql = sql.trimmingCharacters(in: Self.separators) }
        if recording { record(sql) }
        logger?.trace("\(sql)")
    }

    /// What GRDB trims from a traced statement's ends.
    private static let separators = CharacterSet(charactersIn: ";").union(.whitespacesAndNewlines)
}
