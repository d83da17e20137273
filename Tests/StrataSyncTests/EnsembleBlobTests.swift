import Foundation
import Strata
import Testing
@testable import StrataSync

/// Large values travel as separate files under `blobs/`.
@Suite struct EnsembleBlobTests {
    static let layout = try! EnsembleLayout(identifier: "TestEnsemble")   // a constant, valid name

    static func cover(_ seed: UInt8, size: Int = 200_000) -> Data { Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) ^ seed }) }

    /// Peers a and b, both attached, a holding a book whose cover is above the blob threshold.
    static func peers(_ cloud: any CloudFileSystem) async throws -> (SyncPeer, SyncPeer) {
        let model = try SyncTestModel.make()
        let a = try await SyncPeer("a", cloud: cloud, model: model)
        let b = try await SyncPeer("b", cloud: cloud, model: model)
        try await a.ensemble.attach()
        try await b.ensemble.attach()
        try await a.edit { try $0.make("Book", ["title": "big", "cover": cover(7)]) }
        try await a.ensemble.sync()
        return (a, b)
    }

    @Test func aLargeValueTravelsAsABlobAndArrivesWhole() async throws {
        let cloud = MemoryCloudFileSystem()
        let (a, b) = try await Self.peers(cloud)
        let blobs = try await cloud.contentsOfDirectory(at: Self.layout.blobs)
        #expect(blobs.count == 1)
        #expect(blobs.first?.size == Self.cover(7).count + 4)   // the value: a tag byte, a 3-byte length, the bytes
        let events = try await cloud.contentsOfDirectory(at: Self.layout.events)
        #expect(events.allSatisfy { $0.size < 4_096 })
        try await b.ensemble.sync()
        let cover = try await b.context.perform { try b.context.first("Book", "title", .string("big"))?.primitiveValue(forKey: "cover") }
        #expect(cover == .data(Self.cover(7)))
        #expect(try await a.dump() == b.dump())
    }

    @Test func aMissingBlobHoldsItsFileBackUntilItArrives() async throws {
        let cloud = MemoryCloudFileSystem()
        let (_, b) = try await Self.peers(cloud)
        let blob = try #require(try await cloud.contentsOfDirectory(at: Self.layout.blobs).first)
        let path = try Self.layout.blobs.appending(blob.name)
        let bytes = try await cloud.download(from: path)
        try await cloud.removeItem(at: path)
        let report = try await b.ensemble.sync()
        #expect(report.skippedFiles.map(\.error.code) == [.notFound])
        #expect(try await b.count("Book") == 0)
        try await cloud.upload(bytes, to: path)
        let again = try await b.ensemble.sync()
        #expect(again.skippedFiles.isEmpty)
        #expect(try await b.count("Book") == 1)
    }

    @Test func aBlobThatDoesNotMatchItsReferenceIsRefused() async throws {
        let cloud = MemoryCloudFileSystem()
        let (_, b) = try await Self.peers(cloud)
        let blob = try #require(try await cloud.contentsOfDirectory(at: Self.layout.blobs).first)
        var bytes = try await cloud.download(from: Self.layout.blobs.appending(blob.name))
        bytes[bytes.count / 2] ^= 0x01
        try await cloud.upload(bytes, to: Self.layout.blobs.appending(blob.name))
        let report = try await b.ensemble.sync()
        #expect(report.skippedFiles.map(\.error.code) == [.corruptFile])
        #expect(try await b.count("Book") == 0)
    }

    @Test func compactionKeepsTheBaselinesBlobsAndRemovesTheOldOnes() async throws {
        let cloud = MemoryCloudFileSystem()
        let model = try SyncTestModel.make()
        var options = EnsembleOptions()
        options.baselineEventThreshold = 2
        let a = try await SyncPeer("a", cloud: cloud, model: model, options: options)
        try await a.ensemble.attach()
        for n in 0..<4 {
            try await a.edit { try $0.make("Book", ["title": "b\(n)", "cover": Self.cover(UInt8(n))]) }
            try await a.ensemble.sync()
        }
        let baselines = try await cloud.contentsOfDirectory(at: Self.layout.baselines)
        #expect(baselines.count == 1)
        let events = try await cloud.contentsOfDirectory(at: Self.layout.events)
        let blobs = try await cloud.contentsOfDirectory(at: Self.layout.blobs)
        // Every remaining blob belongs to a remaining file.
        let owners = Set((events + baselines).compactMap { try? ChangeFileName(parsing: $0.name.rawValue) }.map { BlobTransport.prefix(lamport: $0.lamport, peer: $0.peer) })
        #expect(blobs.allSatisfy { item in owners.contains { item.name.rawValue.hasPrefix($0) } })
        let c = try await SyncPeer("c", cloud: cloud, model: model, options: options)
        try await c.ensemble.attach()
        try await c.ensemble.sync()
        #expect(try await c.dump() == a.dump())
    }
}
