public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// nginx with its WebDAV modules on a loopback port, for tests: configured from the repo's
/// `scripts/servers/nginx-webdav.conf`, serving `/dav/` from a temporary folder with Basic
/// auth, started lazily and stopped when the test process exits.
///
/// Most tests share one server (``shared()``) and each works in its own random folder
/// (``makeFolder()``); a test that stops or restarts the server starts its own
/// (``start()``).
///
/// For example:
/// ```swift
/// let server = try WebDAVTestServer.shared()
/// let cloud = WebDAVCloudFileSystem(baseURL: try server.makeFolder(),
///                                   username: server.username, password: server.password)
/// ```
public final class WebDAVTestServer: Sendable {
    /// The Debian module that adds PROPFIND and OPTIONS to nginx's WebDAV.
    public static let davExtModule = "/usr/lib/nginx/modules/ngx_http_dav_ext_module.so"
    /// What to run when nginx or its module is missing.
    public static let installHint = "install nginx with WebDAV: `sudo apt-get install -y nginx-light libnginx-mod-http-dav-ext` (Debian/Ubuntu), or run scripts/servers/install.sh; scripts/servers/webdav.sh start runs one by hand"

    /// The user name the server accepts.
    public let username = "strata"
    /// The password the server accepts (random per server).
    public let password: String
    /// The loopback port.
    public let port: Int
    /// The server's temporary folder: configuration, logs, and the served files under `root/`.
    public let directory: URL
    /// The nginx process.
    public let process: ServerProcess

    /// The WebDAV root every folder lives under: `http://127.0.0.1:<port>/dav/`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/dav/") ?? URL(fileURLWithPath: "/") }
    /// The local folder nginx serves as ``baseURL``.
    public var davDirectory: URL { directory.appendingPathComponent("root/dav", isDirectory: true) }

    private static let sharedServer = Locked<WebDAVTestServer?>(nil)

    /// The server shared by every test of this process, started on first use.
    public static func shared() throws -> WebDAVTestServer {
        try sharedServer.withLock { server in
            if let server, server.process.isRunning { return server }
            let started = try start()
            server = started
            return started
        }
    }

    /// A private server (for tests that stop or restart it), running on return.
    public static func start() throws -> WebDAVTestServer {
        try ensureInstalled()
        let server = try WebDAVTestServer(port: LoopbackPort.free())
        try server.process.start()
        return server
    }

    private init(port: Int) throws {
        self.port = port
        password = "pw-" + UUID().uuidString.prefix(12).lowercased()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-webdav-\(UUID().uuidString)", isDirectory: true)
        // Removed by `deinit`, or at exit for a server still held then (the shared one) or
        // one whose set-up below fails (no `deinit` then).
        ServerRegistry.shared.removeAtExit(directory)
        let fileManager = FileManager.default
        for sub in ["root/dav", "temp"] {
            try fileManager.createDirectory(at: directory.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        let htpasswd = directory.appendingPathComponent("htpasswd")
        try "\(username):{PLAIN}\(password)\n".write(to: htpasswd, atomically: true, encoding: .utf8)
        let conf = directory.appendingPathComponent("nginx.conf")
        try Self.renderConfiguration(port: port, prefix: directory, htpasswd: htpasswd).write(to: conf, atomically: true, encoding: .utf8)
        process = ServerProcess(name: "nginx-webdav", port: port,
                                arguments: [try Self.nginxPath(), "-e", directory.appendingPathComponent("error.log").path,
                                            "-p", directory.path, "-c", conf.path],
                                directory: directory)
    }

    deinit {
        process.stop(grace: 2)
        try? FileManager.default.removeItem(at: directory)
    }

    /// A new, empty folder on the server with a random name; returns its URL (ending in `/`).
    public func makeFolder(_ label: String = "t") throws -> URL {
        let name = "\(label)-\(UUID().uuidString.prefix(8).lowercased())"
        try FileManager.default.createDirectory(at: davDirectory.appendingPathComponent(name), withIntermediateDirectories: true)
        return baseURL.appendingPathComponent(name, isDirectory: true)
    }

    /// Stops nginx (the port refuses connections until ``restart()``).
    public func stop() { process.stop() }

    /// Starts nginx again on the same port, with the same files.
    public func restart() throws { try process.restart() }

    /// The configuration template, filled in.
    static func renderConfiguration(port: Int, prefix: URL, htpasswd: URL) throws -> String {
        let template = TestServers.repositoryRoot.appendingPathComponent("scripts/servers/nginx-webdav.conf")
        guard var text = try? String(contentsOf: template, encoding: .utf8) else {
            throw TestServerError("cannot read the nginx template at \(template.path)")
        }
        // nginx refuses `user` unless it runs as root; as root, serve files as root so the
        // test's own folders stay writable.
        let userDirective = getuid() == 0 ? "user root root;" : ""
        let values = ["@DAV_EXT_MODULE@": davExtModule, "@USER_DIRECTIVE@": userDirective, "@PREFIX@": prefix.path,
                      "@PORT@": String(port), "@ROOT@": prefix.appendingPathComponent("root").path, "@HTPASSWD@": htpasswd.path]
        for (key, value) in values { text = text.replacingOccurrences(of: key, with: value) }
        return text
    }

    /// Checks nginx and the dav-ext module are installed; runs scripts/servers/install.sh once
    /// when they are not; throws with ``installHint`` when that does not help.
    static func ensureInstalled() throws {
        if (try? nginxPath()) != nil, FileManager.default.fileExists(atPath: davExtModule) { return }
        let installed = installOnce.withLock { attempted -> Bool in
            if attempted == nil { attempted = runInstallScript() }
            return attempted ?? false
        }
        if installed, (try? nginxPath()) != nil, FileManager.default.fileExists(atPath: davExtModule) { return }
        throw TestServerError("nginx with its WebDAV modules is not installed (need the nginx binary and \(davExtModule)): \(installHint)")
    }

    private static let installOnce = Locked<Bool?>(nil)

    private static func runInstallScript() -> Bool {
        let script = TestServers.repositoryRoot.appendingPathComponent("scripts/servers/install.sh")
        guard let install = try? ChildProcess(["/bin/bash", script.path]) else { return false }
        return install.waitUntilExit().succeeded
    }

    static func nginxPath() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { "\($0)/nginx" } + ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/bin/nginx"]
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) { return found }
        throw TestServerError("nginx is not installed: \(installHint)")
    }
}
