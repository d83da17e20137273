import Foundation
import Strata
import Synchronization
import Testing
@testable import StrataSync

/// A sync downloads and checks the next event file while the state merges the one before
/// (`Ensemble.mergeEvents`). When the merge fails, the sync waits for that download before it
/// throws: nothing it started outlives it.
@Suite struct SyncDownloadAsideTests {
    /// A cloud whose event downloads take `delay`, however the caller cancels them, and which
    /// counts the downloads under way and those finished.
    final class SlowDownloadCloud: CloudFileSystem {
        let inner: any CloudFileSystem
        let delay: Duration
        let active = Atomic<Int>(0)
        let finished = Atomic<Int>(0)
        private let slow = Atomic<Bool>(false)
        /// Whether event downloads are slow (off while the test sets up).
        var isSlow: Bool {
            get { slow.load(ordering: .relaxed) }
            set { slow.store(newValue, ordering: .relaxed) }
        }

        init(_ inner: any CloudFileSystem, delay: Duration) {
            self.inner = inner
            self.delay = delay
        }

        var limits: CloudLimits { inner.limits }
        func connect() async throws { try await inner.connect() }
        func fileExists(at path: CloudPath) async throws -> (exists: Bool, isDirectory: Bool) { try await inner.fileExists(at: path) }
        func contentsOfDirectory(at path: CloudPath) async throws -> [CloudItem] { try await inner.contentsOfDirectory(at: path) }
        func createDirectory(at path: CloudPath) async throws { try await inner.createDirectory(at: path) }
        func removeItem(at path: CloudPath) async throws { try await inner.removeItem(at: path) }
        func upload(_ data: Data, to path: CloudPath) async throws { try await inner.upload(data, to: path) }
        func download(from path: CloudPath) async throws -> Data {
            guard isSlow, path.rawValue.contains("/events/") else { return try await inner.download(from: path) }
            active.add(1, ordering: .relaxed)
            defer { active.subtract(1, ordering: .relaxed); finished.add(1, ordering: .relaxed) }
            // Not cancellable: a sleep that a cancelled task would cut short would hide a sync that does not wait.
            let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
            await withCheckedContinuation { done in DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { done.resume() } }
            return try await inner.download(from: path)
        }
    }

    @Test func aSyncWhoseMergeFailsWaitsForTheNextFilesDownload() async throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Kettle", attributes: [
                AttributeDescription("uniqueIdentifier", type: .string), AttributeDescription("kind", type: .string),
            ]),
        ])
        let memory = MemoryCloudFileSystem()
        let cloud = SlowDownloadCloud(memory, delay: .milliseconds(300))
        let b = try await SyncPeer("b", cloud: cloud, model: model)
        try await b.ensemble.attach()
        let k1 = GlobalObjectKey(entity: "Kettle", gid: "k1"), k2 = GlobalObjectKey(entity: "Kettle", gid: "k2")
        func value(_ text: String) -> [UInt8] { CellValue.attribute(.string(text)).encoded }
        let events = try CloudPath("TestEnsemble/events")
        func upload(_ peer: String, _ lamport: UInt64, _ records: [EventRecord]) async throws {
            let (name, data) = try SyncHostileFileTests.file(peer, lamport, model, payload: SyncHostileFileTests.payload(stampedBy: peer, Int64(lamport), records))
            try await memory.upload(data, to: events.appending(name.cloudName))
        }
        try await upload("first", 900, [.insert(k1), .cell(k1, property: "kind", value: value("tea"))])
        #expect(try await b.ensemble.sync().mergedFiles == 1)
        // The state's cells of k1 are damaged: merging the next file's change to k1 throws.
        let state = try #require(await b.ensemble.state)
        try state.write { tx in try tx.db.execute(sql: "UPDATE objects SET cells = x'05FF' WHERE gid = 'k1'") }
        try await upload("second", 901, [.cell(k1, property: "kind", value: value("coffee"))])
        try await upload("third", 902, [.insert(k2), .cell(k2, property: "kind", value: value("water"))])
        cloud.isSlow = true
        let code = await syncErrorCode { try await b.ensemble.sync() }
        #expect(code == .corruptState)
        // The second file's download, and the third's, started before the second's merge failed
        // and lasting past it: both ended before the sync threw.
        #expect(cloud.finished.load(ordering: .relaxed) == 2)
        #expect(cloud.active.load(ordering: .relaxed) == 0)
    }
}
