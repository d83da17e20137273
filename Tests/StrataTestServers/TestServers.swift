public import Foundation

/// Real servers the tests talk to, started on loopback and stopped afterwards.
///
/// - ``ServerProcess`` launches any server command on a free loopback port, waits until it
///   accepts connections, stops and restarts it, and never lets it outlive the test process.
/// - ``WebDAVTestServer`` is nginx with its WebDAV modules, configured from
///   `scripts/servers/nginx-webdav.conf`.
/// - ``LoopbackResponder`` answers with scripted raw HTTP (for hostile responses a real server
///   cannot produce); ``FaultProxy`` sits between a client and a real server and injects faults.
public enum TestServers {
    /// The repository's root, found from this file's place in it (`Tests/StrataTestServers/`).
    public static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}
