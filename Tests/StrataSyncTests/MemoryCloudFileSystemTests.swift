import Foundation
import Testing
@testable import StrataSync

@Suite("MemoryCloudFileSystem fault injection")
struct MemoryCloudFileSystemTests {
    private func fault(_ body: () async throws -> Void) async -> InjectedFault? {
        do { try await body(); return nil } catch let error as SyncError {
            return error.code == .backendFailure ? error.underlying as? InjectedFault : nil
        } catch { return nil }
    }

    @Test("chosen calls and chosen operations fail, and are counted")
    func plannedFailures() async throws {
        var plan = FaultPlan()
        plan.failingCalls = [2]
        plan.failingOperations = [.remove]
        let cloud = MemoryCloudFileSystem(faults: plan)
        let dir = try path("d")
        try await cloud.createDirectory(at: dir)                                     // call 1
        let failed = await fault { try await cloud.upload(Data("a".utf8), to: try dir.appending("a")) }  // call 2
        #expect(failed == InjectedFault(operation: .upload, call: 2, tookEffect: false))
        #expect(try await cloud.fileExists(at: try dir.appending("a")) == (false, false))  // call 3
        try await cloud.upload(Data("a".utf8), to: try dir.appending("a"))         // call 4: retry succeeds
        #expect(await fault { try await cloud.removeItem(at: dir) }?.operation == .remove)
        #expect(try await cloud.download(from: try dir.appending("a")) == Data("a".utf8))
        let counts = await cloud.operationCounts
        #expect(counts[.upload] == 2 && counts[.remove] == 1 && counts[.createDirectory] == 1 && counts[.download] == 1)
    }

    @Test("a seeded failure rate repeats exactly for one seed and differs for another")
    func seededFailures() async throws {
        func pattern(seed: UInt64) async throws -> [Bool] {
            var plan = FaultPlan(seed: seed)
            plan.failureProbability = 0.3
            let cloud = MemoryCloudFileSystem(faults: plan)
            var outcome: [Bool] = []
            for _ in 0..<200 { outcome.append(await fault { _ = try await cloud.fileExists(at: .root) } != nil) }
            return outcome
        }
        let first = try await pattern(seed: 11), again = try await pattern(seed: 11), other = try await pattern(seed: 12)
        #expect(first == again)
        #expect(first != other)
        let failures = first.filter { $0 }.count
        #expect((30...90).contains(failures), "\(failures) failures of 200 at a rate of 0.3")
    }

    @Test("failures after effect: the write happened although the call threw")
    func lostReplies() async throws {
        var plan = FaultPlan()
        plan.failingOperations = [.upload, .createDirectory]
        plan.failuresAfterEffect = true
        let cloud = MemoryCloudFileSystem(faults: plan)
        let dir = try path("d")
        #expect(await fault { try await cloud.createDirectory(at: dir) }?.tookEffect == true)
        #expect(await fault { try await cloud.upload(Data("v".utf8), to: try dir.appending("f")) }?.tookEffect == true)
        #expect(try await cloud.download(from: try dir.appending("f")) == Data("v".utf8))
    }

    @Test("listings lag writes by the planned number of calls; reads by path do not")
    func listingLag() async throws {
        var plan = FaultPlan()
        plan.listingLag = 3
        let cloud = MemoryCloudFileSystem(faults: plan)
        try await cloud.upload(Data("x".utf8), to: try path("f"))                 // call 1, listed from call 4
        #expect(try await cloud.contentsOfDirectory(at: .root).isEmpty)           // call 2
        #expect(try await cloud.download(from: try path("f")) == Data("x".utf8))  // call 3
        #expect(try await cloud.contentsOfDirectory(at: .root).map(\.name.rawValue) == ["f"])  // call 4
    }

    @Test("partial uploads keep a prefix; the container reports it as truncated", arguments: [false, true])
    func partialUploads(reportSuccess: Bool) async throws {
        var plan = FaultPlan(seed: 3)
        plan.partialUploadProbability = 1
        plan.partialUploadsReportSuccess = reportSuccess
        let cloud = MemoryCloudFileSystem(faults: plan)
        let header = try ChangeFileHeader(lamport: 1, peer: try PeerID("p"), kind: .events, modelVersion: "m")
        let bytes = ChangeFile(header: header, payload: Data(repeating: 7, count: 500)).encoded()
        let target = try path("f.strata")
        let thrown = await syncErrorCode { try await cloud.upload(bytes, to: target) }
        #expect(thrown == (reportSuccess ? nil : .backendFailure))
        let stored = try await cloud.download(from: target)
        #expect(stored.count < bytes.count && bytes.starts(with: stored))
        #expect(syncErrorCode { _ = try ChangeFile.decode(stored) } == .truncated)
    }

    @Test("duplicate directories: listings name each directory twice")
    func duplicateDirectories() async throws {
        var plan = FaultPlan()
        plan.duplicateDirectories = true
        let cloud = MemoryCloudFileSystem(faults: plan)
        try await cloud.createDirectory(at: try path("events"))
        try await cloud.upload(Data(), to: try path("file"))
        let names = try await cloud.contentsOfDirectory(at: .root).map(\.name.rawValue).sorted()
        #expect(names == ["events", "events", "file"])
    }

    @Test("latency: a call waits before running (cancelling the wait cancels the call)")
    func latency() async throws {
        var plan = FaultPlan()
        plan.latency = .seconds(600)
        let cloud = MemoryCloudFileSystem(faults: plan)
        let task = Task { try await cloud.upload(Data("x".utf8), to: try path("f")) }
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        await cloud.setFaults(.none)
        #expect(try await cloud.fileExists(at: try path("f")) == (false, false))
    }

    @Test("an unreachable store answers notConnected; bytes and files are reported")
    func reachability() async throws {
        let cloud = MemoryCloudFileSystem()
        try await cloud.upload(Data(count: 10), to: try path("a"))
        try await cloud.createDirectory(at: try path("d"))
        try await cloud.upload(Data(count: 5), to: try path("d/b"))
        #expect(await cloud.totalBytes == 15)
        #expect(await cloud.allFiles.keys.map(\.rawValue).sorted() == ["a", "d/b"])
        await cloud.setReachable(false)
        #expect(await syncErrorCode { try await cloud.connect() } == .notConnected)
        #expect(await syncErrorCode { _ = try await cloud.download(from: try path("a")) } == .notConnected)
        await cloud.setReachable(true)
        try await cloud.connect()
    }
}
