public import Foundation

/// moto's S3 server (PyPI `moto[server]`) on a loopback port, for tests.
///
/// Most tests share one server (``shared()``), started on first use and stopped when the test
/// process exits, and each test works in its own bucket or under its own key prefix. A test
/// that stops or restarts the server starts a private one (``start(authentication:recording:)``);
/// with `recording` it keeps a journal of every request and replays it after a restart (moto
/// keeps its data in memory), so its buckets survive the restart as a real server's would.
///
/// **Signatures.** With `authentication`, `scripts/servers/s3-setup.py` creates an IAM user
/// with an access key and turns moto's IAM authentication on: every request must then carry a
/// valid Signature V4 of that key, and a wrong key or signature is refused as AWS refuses it.
/// moto's check has a limit, though: it recomputes the signature from a re-encoded URL, so a
/// correctly signed request whose query holds a `/` (any listing under a prefix) or whose key
/// holds `$`, `+`, `=` or non-ASCII is refused with `SignatureDoesNotMatch` — boto3's requests
/// get the same answer. The shared server therefore accepts any key, and the tests of
/// signatures against moto use a private authenticating server with plain names; the signer
/// itself is checked against AWS's published vectors.
///
/// For example:
/// ```swift
/// let server = try S3TestServer.shared()
/// let s3 = S3CloudFileSystem(endpoint: server.endpoint, bucket: server.sharedBucket, region: "us-east-1",
///                            accessKeyID: server.accessKeyID, secretAccessKey: server.secretAccessKey)
/// ```
public final class S3TestServer: Sendable {
    /// What to run when moto is missing.
    public static let installHint = "install moto's S3 server: `python3 -m pip install 'moto[server]'` (add `--break-system-packages` if pip refuses to touch the system Python); scripts/servers/s3.sh start runs one by hand"
    /// The bucket the setup creates on every server, shared by tests that use a key prefix each.
    public static let sharedBucketName = "strata-shared"

    /// The loopback port.
    public let port: Int
    /// The server's temporary folder (its log and request recording).
    public let directory: URL
    /// The moto process.
    public let process: ServerProcess
    /// Whether the server checks signatures (see the type's note on moto's limit).
    public let authenticates: Bool
    /// Whether the server journals requests, so ``restart()`` keeps its data.
    public let records: Bool
    /// The access key the server accepts (any key works when it does not authenticate).
    public let accessKeyID: String
    /// Its secret (a throw-away key of a loopback test server).
    public let secretAccessKey: String

    /// `http://127.0.0.1:<port>`.
    public var endpoint: URL { URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/") }
    /// The bucket every server has from the start.
    public var sharedBucket: String { Self.sharedBucketName }

    private static let sharedServer = Locked<S3TestServer?>(nil)
    private static let sharedAuthenticatingServer = Locked<S3TestServer?>(nil)
    private static let installChecked = Locked<Bool>(false)

    /// The server shared by every test of this process (no signature checks, no
    /// recording), started on first use.
    public static func shared() throws -> S3TestServer {
        try sharedServer.withLock { server in
            if let server, server.process.isRunning { return server }
            let started = try start(authentication: false, recording: false)
            server = started
            return started
        }
    }

    /// A server that checks signatures, shared by the tests of signing (see the type's note
    /// on what moto's check refuses), started on first use.
    public static func sharedAuthenticating() throws -> S3TestServer {
        try sharedAuthenticatingServer.withLock { server in
            if let server, server.process.isRunning { return server }
            let started = try start(authentication: true, recording: false)
            server = started
            return started
        }
    }

    /// A private server, running on return. With `authentication` it checks signatures;
    /// with `recording` (not with `authentication`) it journals requests so ``restart()``
    /// brings its buckets back.
    public static func start(authentication: Bool = false, recording: Bool = true) throws -> S3TestServer {
        try ensureInstalled()
        let port = try LoopbackPort.free()
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-s3-\(UUID().uuidString)", isDirectory: true)
        // Removed by `deinit`, or at exit for a server still held then (the shared ones) or one
        // whose start below fails (no `deinit` then).
        ServerRegistry.shared.removeAtExit(directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let journal = directory.appendingPathComponent("recording.jsonl").path
        var arguments = ["/usr/bin/env"]
        let records = recording && !authentication
        if records { arguments += ["MOTO_ENABLE_RECORDING=True", "MOTO_RECORDER_FILEPATH=\(journal)"] }
        arguments += [try python(), "-m", "moto.server", "-H", "127.0.0.1", "-p", String(port)]
        let process = ServerProcess(name: "moto-s3", port: port, arguments: arguments, directory: directory)
        try process.start(timeout: 60)
        let keys: [String: String]
        do {
            var setup = ["http://127.0.0.1:\(port)"]
            if authentication { setup.append("--auth") }
            keys = try runSetup(setup + [sharedBucketName])
        } catch {
            process.stop()
            throw error
        }
        return S3TestServer(port: port, directory: directory, process: process, authenticates: authentication, records: records,
                            accessKeyID: keys["accessKeyID"] ?? "strata-test",
                            secretAccessKey: keys["secretAccessKey"] ?? "strata-test-secret")
    }

    private init(port: Int, directory: URL, process: ServerProcess, authenticates: Bool, records: Bool,
                 accessKeyID: String, secretAccessKey: String) {
        self.port = port
        self.records = records
        self.directory = directory
        self.process = process
        self.authenticates = authenticates
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
    }

    deinit {
        process.stop(grace: 2)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Stops the server (its port then refuses connections).
    public func stop() { process.stop() }

    /// Starts a stopped server again on the same port and replays its recording, so its
    /// buckets and objects are back. Only for a recording server.
    public func restart() throws {
        guard records else { throw TestServerError("this moto server keeps no journal: it cannot be restarted with its data") }
        process.stop()
        try process.start(timeout: 60)
        _ = try Self.runSetup(["http://127.0.0.1:\(port)", "--replay"])
    }

    /// A bucket name no other test uses: `strata-<label>-<random>`.
    public static func uniqueBucketName(_ label: String) -> String {
        let cleaned = label.lowercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }.prefix(20)
        return "strata-\(cleaned.isEmpty ? "t" : String(cleaned))-\(UUID().uuidString.prefix(8).lowercased())"
    }

    // MARK: Installation

    /// Makes sure `python3` can import moto's server, installing `moto[server]` with pip once
    /// if it cannot; throws with ``installHint`` when that fails.
    static func ensureInstalled() throws {
        try installChecked.withLock { checked in
            if checked { return }
            let python = try python()
            if run(python, ["-c", "import moto.server, boto3"]) == 0 { checked = true; return }
            _ = run(python, ["-m", "pip", "install", "--quiet", "moto[server]"])
            if run(python, ["-c", "import moto.server, boto3"]) != 0 {
                _ = run(python, ["-m", "pip", "install", "--quiet", "--break-system-packages", "moto[server]"])
            }
            guard run(python, ["-c", "import moto.server, boto3"]) == 0 else {
                throw TestServerError("moto's S3 server is not installed and `pip install 'moto[server]'` failed: \(installHint)")
            }
            checked = true
        }
    }

    /// The absolute path of `python3` on the `PATH`.
    static func python() throws -> String {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        for directory in paths {
            let candidate = "\(directory)/python3"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw TestServerError("python3 is not on the PATH: `sudo apt-get install -y python3 python3-pip`, then \(installHint)")
    }

    /// Runs `scripts/servers/s3-setup.py` with `arguments` and reads the JSON line it prints.
    private static func runSetup(_ arguments: [String]) throws -> [String: String] {
        let script = TestServers.repositoryRoot.appendingPathComponent("scripts/servers/s3-setup.py").path
        let output = Pipe(), errors = Pipe()
        let process = try ChildProcess([try python(), script] + arguments,
                                       standardOutput: .descriptor(output.fileHandleForWriting.fileDescriptor),
                                       standardError: .descriptor(errors.fileHandleForWriting.fileDescriptor))
        try output.fileHandleForWriting.close()
        try errors.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        let ended = process.waitUntilExit()
        guard ended.succeeded,
              let line = String(decoding: out, as: UTF8.self).split(separator: "\n").last,
              let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String] else {
            throw TestServerError("setting up moto failed (\(script) \(arguments.first ?? "")): \(String(decoding: err, as: UTF8.self).suffix(2_000))")
        }
        return object
    }

    @discardableResult
    private static func run(_ executable: String, _ arguments: [String]) -> Int32 {
        guard let process = try? ChildProcess([executable] + arguments) else { return -1 }
        switch process.waitUntilExit() {
        case .exited(let status): return status
        case .signalled: return -1
        }
    }
}
