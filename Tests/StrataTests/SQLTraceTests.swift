import Foundation
import Logging
import Testing
@testable import Strata

/// Every statement a coordinator's connections run is traced: recorded while
/// `recordingSQL` runs, logged at `.trace` under `strata.sql` when the store's options ask.
@Suite struct SQLTraceTests {
    /// Collects the messages of the `strata.sql` logger: the process's logging is bootstrapped
    /// once, for every test of the run, and other labels go nowhere.
    final class Collected: LogHandler, @unchecked Sendable {   // `messages` is a Locked; the other properties are only set at bootstrap
        static let shared = Collected()
        static let bootstrapped: Void = LoggingSystem.bootstrap { label in label == "strata.sql" ? Collected.shared as any LogHandler : SwiftLogNoOpLogHandler() }
        let messages = Locked<[String]>([])
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            messages.withLock { $0.append(event.message.description) }
        }
    }

    @Test func aStoreThatLogsSQLLogsEachStatementAndOneThatDoesNotLogsNone() async throws {
        _ = Collected.bootstrapped
        let dir = TemporaryDirectory()
        var options = StoreOptions()
        options.logsSQL = true
        let logging = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file("logged.sqlite"), options: options))
        let quiet = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file("quiet.sqlite")))
        for (coordinator, title) in [(quiet, "quiet-title"), (logging, "logged-title")] {
            let context = ObjectContext(.privateQueue, coordinator: coordinator)
            try await context.perform {
                context.insert(Note.self).title = title
                try context.save()
            }
        }
        let messages = Collected.shared.messages.withLock { $0 }
        let inserts = messages.filter { $0.hasPrefix("INSERT INTO \"Note\"") }
        #expect(inserts.count == 1)   // the logging store's save; the quiet one's logged nothing
        #expect(messages.contains("COMMIT TRANSACTION"))   // every statement, not only Strata's own
        #expect(!messages.contains { $0.hasSuffix(";") || $0.hasPrefix(" ") })   // trimmed, as GRDB trimmed them
    }

    /// Recording keeps Strata's statements, trimmed, without transaction control; a
    /// statement run after `recordingSQL` returns is not recorded.
    @Test func recordingKeepsOnlyWhatRanMeanwhile() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let (_, statements) = try await coordinator.recordingSQL {
            try await context.perform {
                context.insert(Note.self).title = "a"
                try context.save()
            }
        }
        #expect(statements.contains { $0.hasPrefix("INSERT INTO \"Note\"") })
        #expect(!statements.contains { $0.hasPrefix("BEGIN") || $0.hasPrefix("COMMIT") })
        try await context.perform {
            context.insert(Note.self).title = "b"
            try context.save()
        }
        let (_, after) = await coordinator.recordingSQL { () }
        #expect(after.isEmpty)
    }
}
