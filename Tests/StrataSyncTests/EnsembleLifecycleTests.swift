import Foundation
import Strata
import StrataStacks
import Synchronization
import Testing
@testable import StrataSync

/// Baselines, forced detach, the settings actions, activity, and stacks.
@Suite struct EnsembleLifecycleTests {
    @Test func aBaselineReplacesEventsAndANewPeerStartsFromIt() async throws {
        let cloud = MemoryCloudFileSystem()
        let model = try SyncTestModel.make()
        var options = EnsembleOptions()
        options.baselineEventThreshold = 3
        let a = try await SyncPeer("a", cloud: cloud, model: model, options: options)
        try await a.ensemble.attach()
        for n in 0..<5 {
            try await a.edit { try $0.make("Book", ["title": "book \(n)", "rating": n]) }
            try await a.ensemble.sync()
        }
        let layout = try EnsembleLayout(identifier: "TestEnsemble")
        let events = try await cloud.contentsOfDirectory(at: layout.events)
        let baselines = try await cloud.contentsOfDirectory(at: layout.baselines)
        #expect(baselines.count == 1)
        #expect(events.count <= 3)

        let c = try await SyncPeer("c", cloud: cloud, model: model, options: options)
        try await c.ensemble.attach()
        let report = try await c.ensemble.sync()
        #expect(report.mergedBaseline)
        #expect(report.mergedFiles < 5)
        #expect(try await c.count("Book") == 5)
        #expect(try await c.dump() == a.dump())
    }

    @Test func olderBaselinesGoOnceANewerOneHoldsThem() async throws {
        let cloud = MemoryCloudFileSystem()
        let model = try SyncTestModel.make()
        var options = EnsembleOptions()
        options.baselineEventThreshold = 1
        let a = try await SyncPeer("a", cloud: cloud, model: model, options: options)
        let b = try await SyncPeer("b", cloud: cloud, model: model, options: options)
        try await a.ensemble.attach()
        try await b.ensemble.attach()
        for n in 0..<6 {
            let peer = n.isMultiple(of: 2) ? a : b
            try await peer.edit { try $0.make("Tag", ["name": "tag \(n)"]) }
            try await peer.ensemble.sync()
        }
        for _ in 0..<2 { try await a.ensemble.sync(); try await b.ensemble.sync() }
        let layout = try EnsembleLayout(identifier: "TestEnsemble")
        #expect(try await cloud.contentsOfDirectory(at: layout.baselines).count <= 2)
        #expect(try await a.count("Tag") == 6)
        #expect(try await a.dump() == b.dump())
    }

    /// Two peers compacting at once each remove the event files their own baseline holds, so
    /// each must merge the other's baseline, though its own has the same count and sorts last;
    /// and a baseline a failed upload cut short is removed by its writer's next sync, not
    /// skipped by every peer for ever. (Found by `SyncFaultTests`, seed 3001.)
    @Test func baselinesWrittenAtOnceAreBothMergedAndACutOneIsRemoved() async throws {
        let cloud = BaselineCuttingCloud(MemoryCloudFileSystem())
        let model = try SyncTestModel.make()
        var options = EnsembleOptions()
        options.baselineEventThreshold = 1
        options.newPeerID = { try! PeerID("peer-z") }   // sorts after b's
        let a = try await SyncPeer("a", cloud: cloud, model: model, options: options)
        options.newPeerID = { try! PeerID("peer-a") }
        let b = try await SyncPeer("b", cloud: cloud, model: model, options: options)
        try await a.ensemble.attach()
        try await b.ensemble.attach()
        try await b.edit { try $0.make("Tag", ["name": "from b"]) }
        try await b.ensemble.sync()

        // a does not list b's file yet (a lagging listing) and compacts, but its baseline is
        // cut short: a holds it as merged, nobody else can read it.
        cloud.hiddenFromListings = "peer-a"
        try await a.edit { try $0.make("Tag", ["name": "first from a"]) }
        try await a.ensemble.sync()
        try await a.edit { try $0.make("Tag", ["name": "second from a"]) }
        cloud.cutsBaselines = true
        await #expect(throws: SyncError.self) { try await a.ensemble.sync() }
        cloud.cutsBaselines = false
        cloud.hiddenFromListings = nil
        // b compacts too, at the same count, and removes its event file, which a never merged.
        let compacted = try await b.ensemble.sync()
        #expect(compacted.wroteBaseline)
        let layout = try EnsembleLayout(identifier: "TestEnsemble")
        let names = try await cloud.contentsOfDirectory(at: layout.baselines).map(\.name.rawValue).sorted()
        #expect(names.count == 2 && names.allSatisfy { $0.hasPrefix(names[0].prefix(20)) }, "two baselines of one count: \(names)")
        #expect(try await cloud.contentsOfDirectory(at: layout.events).isEmpty)

        let report = try await a.ensemble.sync()
        #expect(report.mergedBaseline)
        #expect(try await a.count("Tag") == 3)
        try await b.ensemble.sync()
        #expect(try await a.dump() == b.dump())
        let left = try await cloud.contentsOfDirectory(at: layout.baselines).map(\.name.rawValue)
        #expect(!left.contains { $0.contains("peer-z") }, "a's cut baseline is still there: \(left)")
        #expect(try await b.ensemble.sync().skippedFiles.isEmpty)
    }

    @Test func aBaselineClaimingLaterFilesIsRefusedAndHidesNothing() async throws {
        let cloud = MemoryCloudFileSystem()
        let model = try SyncTestModel.make()
        let a = try await SyncPeer("a", cloud: cloud, model: model)
        let b = try await SyncPeer("b", cloud: cloud, model: model)
        try await a.ensemble.attach()
        try await b.ensemble.attach()
        try await a.edit { try $0.make("Tag", ["name": "real"]) }
        try await a.ensemble.sync()
        // A forged baseline at count 2 claims every file of a up to count 1 000.
        let aPeer = try #require(await a.ensemble.peerID)
        let forger = PeerID.random()
        let header = try ChangeFileHeader(lamport: 2, peer: forger, kind: .baseline, modelVersion: String(model.versionHash.prefix(64)))
        let payload = EventPayload(sequence: 0, coverage: [EventCoverage(peer: aPeer.rawValue, sequence: 1_000, lamport: 1_000)], records: [])
        let layout = try EnsembleLayout(identifier: "TestEnsemble")
        try await cloud.upload(ChangeFile(header: header, payload: payload.encoded()).encoded(), to: layout.baselines.appending(header.fileName.cloudName))
        let report = try await b.ensemble.sync()
        #expect(report.skippedFiles.map(\.error.code) == [.corruptFile])
        #expect(try await b.count("Tag") == 1)
    }

    @Test func aRemovedRegistrationDetachesByForceAndAttachingAgainResumes() async throws {
        let cloud = MemoryCloudFileSystem()
        let (a, b) = try await SyncPeer.pair(cloud)
        try await a.ensemble.attach()
        try await b.ensemble.attach()
        let reasons = Locked<[ForcedDetach.Reason]>([])
        await b.ensemble.onForcedDetach { detach in reasons.withLock { $0.append(detach.reason) } }
        let peer = try #require(await b.ensemble.peerID)
        try await cloud.removeItem(at: EnsembleLayout(identifier: "TestEnsemble").registration(of: peer))
        #expect(await syncErrorCode { try await b.ensemble.sync() } == .forcedDetach)
        #expect(reasons.withLock { $0 } == [.registrationRemoved])
        #expect(await b.ensemble.isAttached == false)

        try await a.edit { try $0.make("Tag", ["name": "after"]) }
        try await a.ensemble.sync()
        try await b.ensemble.attach()
        try await b.ensemble.sync()
        try await a.ensemble.sync()
        #expect(try await b.count("Tag") == 1)
        #expect(try await a.dump() == b.dump())
    }

    @Test func deleteEverythingDetachesTheOtherPeersByForce() async throws {
        let cloud = MemoryCloudFileSystem()
        let (a, b) = try await SyncPeer.pair(cloud)
        try await a.edit { try $0.make("Tag", ["name": "kept"]) }
        try await a.ensemble.attach()
        try await b.ensemble.attach()
        try await b.ensemble.sync()
        try await a.ensemble.deleteEverything()
        #expect(await a.ensemble.isAttached == false)
        #expect(try await cloud.fileExists(at: EnsembleLayout(identifier: "TestEnsemble").root).exists == false)
        let reasons = Locked<[ForcedDetach.Reason]>([])
        await b.ensemble.onForcedDetach { detach in reasons.withLock { $0.append(detach.reason) } }
        #expect(await syncErrorCode { try await b.ensemble.sync() } == .forcedDetach)
        #expect(reasons.withLock { $0 } == [.cloudIdentityChanged])
        #expect(try await a.count("Tag") == 1)
        #expect(try await b.count("Tag") == 1)
    }

    @Test func anUnreadableLocalStateIsAForcedDetach() async throws {
        let cloud = MemoryCloudFileSystem()
        let model = try SyncTestModel.make()
        let a = try await SyncPeer("a", cloud: cloud, model: model)
        try await a.ensemble.attach()
        let stateURL = await a.ensemble.stateURL
        // Another process damages the file; a new ensemble object (the app relaunched) reads it.
        try Data(repeating: 0x42, count: 4096).write(to: stateURL)
        try? FileManager.default.removeItem(at: URL(filePath: stateURL.path + "-wal"))
        let again = try await Ensemble(identifier: "TestEnsemble", coordinator: a.coordinator, cloudFileSystem: cloud)
        let reasons = Locked<[ForcedDetach.Reason]>([])
        await again.onForcedDetach { detach in reasons.withLock { $0.append(detach.reason) } }
        #expect(await syncErrorCode { try await again.sync() } == .forcedDetach)
        #expect(reasons.withLock { $0 } == [.corruptLocalState])
        try await again.attach()
        #expect(try await again.sync().skippedFiles.isEmpty)
    }

    @Test func deleteLocalDataAndResyncBringsBackTheCloudsObjects() async throws {
        let cloud = MemoryCloudFileSystem()
        let (a, b) = try await SyncPeer.pair(cloud)
        try await a.edit { context in for n in 0..<3 { try context.make("Tag", ["name": "t\(n)"]) } }
        try await a.ensemble.attach()
        try await b.ensemble.attach()
        try await b.ensemble.sync()
        // b's store goes wrong locally (an object lost, one added); the cloud holds the truth.
        _ = try b.coordinator.execute(BatchDeleteRequest(entityName: "Tag", predicate: nil))
        try await b.ensemble.deleteLocalDataAndResync()
        #expect(try await b.count("Tag") == 3)
        try await a.ensemble.sync()
        #expect(try await a.count("Tag") == 3)
        #expect(try await a.dump() == b.dump())
    }

    @Test func activityReportsTheOperationsAndTheirPhases() async throws {
        let a = try await SyncPeer("a", cloud: MemoryCloudFileSystem(), model: try SyncTestModel.make())
        let stream = await a.ensemble.activity()
        try await a.ensemble.attach()
        try await a.ensemble.sync()
        var seen: [SyncActivity] = []
        for await activity in stream {
            seen.append(activity)
            if activity == .ended(.sync, error: nil) { break }
        }
        #expect(seen.first == .began(.attach))
        #expect(seen.contains(.ended(.attach, error: nil)))
        #expect(seen.contains(.progress(.sync, .mergingEvents)))
        #expect(seen.last == .ended(.sync, error: nil))
    }

    @Test func attachingAgainResumesEditsMadeWhileDetachedWinAndOthersArrive() async throws {
        let cloud = MemoryCloudFileSystem()
        let (a, b) = try await SyncPeer.pair(cloud)
        try await a.edit { context in
            try context.make("Author", ["uniqueIdentifier": "edited", "name": "before"])
            try context.make("Author", ["uniqueIdentifier": "untouched", "name": "before"])
        }
        try await a.ensemble.attach()
        try await b.ensemble.attach()
        for _ in 0..<3 { try await a.ensemble.sync(); try await b.ensemble.sync() }   // counts climb
        let peer = await a.ensemble.peerID
        try await a.ensemble.detach()
        // While a is detached: b renames "untouched"; a renames "edited" (its own earlier value
        // was written at a lower count, and must not win over this later edit).
        try await b.edit { try $0.first("Author", "uniqueIdentifier", .string("untouched"))!.setValue("from b", forKey: "name") }
        try await b.ensemble.sync()
        try await a.edit { try $0.first("Author", "uniqueIdentifier", .string("edited"))!.setValue("from a, offline", forKey: "name") }
        try await a.ensemble.attach()
        #expect(await a.ensemble.peerID == peer)
        for _ in 0..<2 { try await a.ensemble.sync(); try await b.ensemble.sync() }
        #expect(try await a.dump() == b.dump())
        let names = try await b.context.perform {
            try ["edited", "untouched"].map { try b.context.first("Author", "uniqueIdentifier", .string($0))?.primitiveValue(forKey: "name") }
        }
        #expect(names == [.string("from a, offline"), .string("from b")])
    }

    @Test func detachRemovesTheRegistrationAndKeepsTheStateClosed() async throws {
        let cloud = MemoryCloudFileSystem()
        let a = try await SyncPeer("a", cloud: cloud, model: try SyncTestModel.make())
        try await a.ensemble.attach()
        let peer = try #require(await a.ensemble.peerID)
        let stateURL = await a.ensemble.stateURL
        try await a.ensemble.detach()
        #expect(try await cloud.fileExists(at: EnsembleLayout(identifier: "TestEnsemble").registration(of: peer)).exists == false)
        #expect(FileManager.default.fileExists(atPath: stateURL.path))
        #expect(await a.ensemble.isAttached == false)
        #expect(await syncErrorCode { try await a.ensemble.sync() } == .notAttached)
    }

    @Test(arguments: StackKind.allCases)
    func aStacksMainContextShowsWhatASyncMerged(_ kind: StackKind) async throws {
        let cloud = MemoryCloudFileSystem()
        let model = try SyncTestModel.make()
        let a = try await SyncPeer("a", cloud: cloud, model: model)
        try await a.edit { try $0.make("Tag", ["name": "from a"]) }
        try await a.ensemble.attach()
        let folder = TemporaryFolder("stack")
        var options = StackOptions()
        options.storeOptions.recordsHistory = true
        let stack = try await Stacks.open(kind, model: model, storeURL: folder.url.appending(path: "store.sqlite"), options: options)
        let main = stack.mainContext
        let ensemble = try await Ensemble(identifier: "TestEnsemble", stack: stack, cloudFileSystem: cloud)
        try await ensemble.attach()
        try await ensemble.sync()
        var names: [PropertyValue] = []
        for _ in 0..<200 {
            names = try await main.perform { try main.fetch(FetchRequest<ManagedObject>(entityName: "Tag")).map { $0.primitiveValue(forKey: "name") } }
            if !names.isEmpty { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(names == [.string("from a")])
        // An update made by a is merged into main's registered object.
        try await a.edit { try $0.first("Tag", "name", .string("from a"))!.setValue("renamed", forKey: "name") }
        try await a.ensemble.sync()
        let registered = try await main.perform { try main.fetch(FetchRequest<ManagedObject>(entityName: "Tag")).first!.objectID }
        try await ensemble.sync()
        var name: PropertyValue = .null
        for _ in 0..<200 {
            name = try await main.perform { main.object(with: registered).primitiveValue(forKey: "name") }
            if name == .string("renamed") { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(name == .string("renamed"))
    }
}

/// A cloud that, while ``cutsBaselines`` is on, keeps only half of a baseline's upload and
/// throws, as a connection dropped mid-upload does; and lists late what ``hiddenFromListings`` names.
final class BaselineCuttingCloud: CloudFileSystem {
    let inner: any CloudFileSystem
    private let cutting = Atomic<Bool>(false)
    private let hidden = Locked<String?>(nil)
    /// Names holding this text are left out of listings.
    var hiddenFromListings: String? {
        get { hidden.withLock { $0 } }
        set { hidden.withLock { $0 = newValue } }
    }
    var cutsBaselines: Bool {
        get { cutting.load(ordering: .relaxed) }
        set { cutting.store(newValue, ordering: .relaxed) }
    }

    init(_ inner: any CloudFileSystem) { self.inner = inner }

    var limits: CloudLimits { inner.limits }
    func connect() async throws { try await inner.connect() }
    func fileExists(at path: CloudPath) async throws -> (exists: Bool, isDirectory: Bool) { try await inner.fileExists(at: path) }
    func contentsOfDirectory(at path: CloudPath) async throws -> [CloudItem] {
        let items = try await inner.contentsOfDirectory(at: path)
        guard let hidden = hiddenFromListings else { return items }
        return items.filter { !$0.name.rawValue.contains(hidden) }
    }
    func createDirectory(at path: CloudPath) async throws { try await inner.createDirectory(at: path) }
    func download(from path: CloudPath) async throws -> Data { try await inner.download(from: path) }
    func removeItem(at path: CloudPath) async throws { try await inner.removeItem(at: path) }
    func upload(_ data: Data, to path: CloudPath) async throws {
        guard cutsBaselines, path.rawValue.contains("/baselines/") else { return try await inner.upload(data, to: path) }
        try await inner.upload(data.prefix(data.count / 2), to: path)
        throw SyncError(.backendFailure, "the connection dropped mid-upload (test)", path: path.rawValue)
    }
}
