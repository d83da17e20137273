import Foundation
import Strata
import Testing
@testable import StrataSync

/// A sync after a successful one skips `connect()`; when the identity is then missing, it
/// connects before it decides anything, so a cloud folder that is not there (an unmounted
/// drive) is `notConnected` and the peer stays attached, never a forced detach.
@Suite struct SyncUnmountedCloudTests {
    @Test func aMissingCloudFolderIsNotConnectedAndDetachesNobody() async throws {
        let folder = TemporaryFolder("unmounted")
        let root = folder.url.appendingPathComponent("cloud", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let (a, b) = try await SyncPeer.pair(LocalCloudFileSystem(rootDirectory: root))
        let detaches = Locked(0)
        await a.ensemble.onForcedDetach { _ in detaches.withLock { $0 += 1 } }
        try await a.edit { try $0.make("Author", ["uniqueIdentifier": "u", "name": "U"]) }
        try await a.ensemble.attach()
        try await b.ensemble.attach()
        try await a.ensemble.sync()                       // a success: the next sync skips connect()

        let away = folder.url.appendingPathComponent("away", isDirectory: true)
        try FileManager.default.moveItem(at: root, to: away)
        #expect(await syncErrorCode { try await a.ensemble.sync() } == .notConnected)
        #expect(await a.ensemble.isAttached)
        #expect(detaches.withLock { $0 } == 0)

        try FileManager.default.moveItem(at: away, to: root)
        try await a.ensemble.sync()
        try await b.ensemble.sync()
        #expect(try await b.count("Author") == 1)
        #expect(detaches.withLock { $0 } == 0)
    }
}
