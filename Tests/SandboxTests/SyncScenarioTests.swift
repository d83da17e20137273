import Foundation
import SandboxKit
import StrataStacks
import Testing

/// The `sync` scenario at small N: the peers converge (the scenario compares every peer's
/// canonical dump with peer 0's and a new peer's), and its counts add up. Timings are only
/// checked to be measured, never against a target.
@Suite struct SyncScenarioTests {
    static func run(_ kind: StackKind, objects: Int, peers: Int, backend: SyncBackend = .local, probeExecutable: URL? = nil) async throws -> RunResult {
        var options = SandboxOptions()
        options.probeExecutable = probeExecutable
        options.syncBackend = backend
        options.objects = objects
        options.batch = 100
        options.peers = peers
        options.scenarios = [SyncScenario.name]
        options.stacks = [kind]
        let records = try await SandboxRunner(options: options).run()
        return try #require(records.first?.result)
    }

    @Test(arguments: [StackKind.hybrid, .asyncSaving])
    func peersConvergeAndTheCountsAddUp(_ kind: StackKind) async throws {
        // 2 other peers insert 150 books each: author 1 has books in both shares, so both insert it.
        let result = try await Self.run(kind, objects: 300, peers: 3)
        #expect(result.check == "ok", "\(result.check)")
        let counters = result.counters
        #expect(counters["peers"] == 3)
        // 300 books and 3 authors, not 4: the author both peers inserted is one object.
        #expect(counters["backlogChanges"] == 303)
        #expect(counters["backlogFiles"] == 2)
        #expect(counters["updateChanges"] == 300)
        #expect(counters["firstSyncBooks"] == 300)
        #expect(counters["noOpSyncs"] == SyncScenario.noOpSyncs)
        #expect((1...4).contains(counters["noOpListingsMax"] ?? 0))
        #expect((counters["cloudBytes"] ?? 0) > 0 && (counters["cloudFiles"] ?? 0) > 0)
        // The baseline replaced the event files it holds (the inserts, the updates).
        #expect((counters["eventFiles"] ?? 0) >= 3)
        #expect(counters["eventFilesAfterBaseline"] == 0)
        #expect((counters["firstSyncPeakRSSMB"] ?? 0) > 0)
        for key in ["saveInsertMicrosHistoryOff", "saveInsertMicrosHistoryOn", "noOpMaxMicros", "firstSyncMillis"] {
            #expect((counters[key] ?? 0) > 0, "\(key)")
        }
        #expect((counters["noOpP50Micros"] ?? 0) <= (counters["noOpMaxMicros"] ?? 0))
        #expect(result.objects == 300)
        #expect(result.objectsPerSecond > 0 && result.objectsPerSecond.isFinite)
        #expect(result.detail.contains("backlog: 303 objects from 2 files"))
    }

    /// The same run over each backend: the peers converge and the traffic is counted (calls
    /// for every backend; HTTP requests and wire bytes for the servers).
    @Test(arguments: SyncBackend.allCases)
    func everyBackendConvergesAndCountsItsTraffic(_ backend: SyncBackend) async throws {
        let result = try await Self.run(.hybrid, objects: 120, peers: 2, backend: backend)
        #expect(result.check == "ok", "\(result.check)")
        let counters = result.counters
        #expect(counters["backlogChanges"] == 122)
        #expect((counters["backlogCalls"] ?? 0) > 0)
        #expect((counters["backlogBytesDown"] ?? 0) > 0)
        #expect((counters["noOpCallsMax"] ?? 0) >= 1)
        #expect((counters["cloudFiles"] ?? 0) > 0)
        if backend == .local {
            #expect(counters["backlogRequests"] == 0)
        } else {
            #expect((counters["backlogRequests"] ?? 0) > 0)
            #expect((counters["noOpRequestsMax"] ?? 0) >= 1)
        }
        #expect(result.detail.contains("over \(backend.rawValue)"))
    }

    /// The Sandbox executable `swift build` made next to the test bundle, or under `.build/debug`.
    static func sandboxExecutable(filePath: String = #filePath) throws -> URL {
        let packageRoot = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL,
            Bundle.main.bundleURL.deletingLastPathComponent(),
            packageRoot.appendingPathComponent(".build/debug"),
        ].map { $0.appendingPathComponent("Sandbox") }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw SandboxError("the Sandbox executable is not built, so its child process cannot be tested: `swift build` first. Looked in: \(candidates.map(\.path).joined(separator: ", "))")
        }
        return found
    }

    /// As the Sandbox command runs it: the new device syncs in a child process of the Sandbox
    /// executable, over a folder and over a server (its address crosses the process boundary),
    /// and its figures come back.
    @Test(arguments: [SyncBackend.local, .webdav])
    func theNewDeviceSyncsInItsOwnProcess(_ backend: SyncBackend) async throws {
        let result = try await Self.run(.hybrid, objects: 120, peers: 2, backend: backend, probeExecutable: try Self.sandboxExecutable())
        #expect(result.check == "ok", "\(result.check)")
        #expect(result.counters["firstSyncBooks"] == 120)
        #expect((result.counters["firstSyncPeakRSSMB"] ?? 0) > 0)
        #expect((result.counters["firstSyncMillis"] ?? 0) > 0)
        #expect(result.detail.contains("(its own process;"), "\(result.detail)")
    }

    /// A child that fails is the run's error, with its status: never a figure read from nothing.
    @Test func aFailingChildProcessFailsTheRun() async throws {
        let error = await #expect(throws: SandboxError.self) {
            _ = try await Self.run(.hybrid, objects: 20, peers: 2, probeExecutable: URL(fileURLWithPath: "/bin/false"))
        }
        #expect(error?.description.contains("exited with status 1") == true, "\(String(describing: error))")
    }

    @Test func twoPeersAreEnough() async throws {
        let result = try await Self.run(.mainContext, objects: 120, peers: 2)
        #expect(result.check == "ok", "\(result.check)")
        #expect(result.counters["backlogChanges"] == 122)
        #expect(result.counters["backlogFiles"] == 1)
        #expect(result.detail.contains("automaticallyMergesChangesFromParent"))
    }

    @Test func onePeerIsRefused() async throws {
        await #expect(throws: (any Error).self) { _ = try await Self.run(.hybrid, objects: 10, peers: 1) }
    }
}
