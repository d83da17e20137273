public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A server command run on a loopback port for tests: started, waited for until the port
/// accepts TCP, stopped (SIGTERM, then SIGKILL) and restarted on the same port.
///
/// The command runs (a ``ChildProcess``, not Foundation's `Process`, whose exit monitoring is
/// not dependable inside the test runner) under a small `/bin/sh` wrapper with a watchdog that kills the server when
/// the test process is gone (even one killed with SIGKILL), and an `atexit` hook stops every
/// server still running when the test process exits, so no server outlives its tests.
///
/// For example:
/// ```swift
/// let port = try LoopbackPort.free()
/// let server = ServerProcess(name: "echo", port: port, arguments: ["/usr/bin/python3", "-m", "http.server", "\(port)"],
///                            directory: folder)
/// try server.start()
/// defer { server.stop() }
/// ```
public final class ServerProcess: Sendable {
    /// A label used in error messages and the log file's name.
    public let name: String
    /// The loopback port the server listens on.
    public let port: Int
    /// The executable and its arguments.
    public let arguments: [String]
    /// The server's standard output and error, appended across restarts.
    public let logURL: URL
    private let pidURL: URL
    private let state = Locked<ChildProcess?>(nil)

    /// The process whose end ends the server (the test process unless a test says otherwise).
    public let watchedProcess: Int32

    /// Describes a server; nothing runs until ``start(timeout:)``. The server is killed when
    /// `watchedProcess` (by default this process) is gone.
    public init(name: String, port: Int, arguments: [String], directory: URL, watchedProcess: Int32 = getpid()) {
        self.watchedProcess = watchedProcess
        self.name = name
        self.port = port
        self.arguments = arguments
        logURL = directory.appendingPathComponent("\(name).log")
        pidURL = directory.appendingPathComponent("\(name).server-pid")
    }

    deinit { stop(grace: 2) }

    /// Whether the server process is running.
    public var isRunning: Bool {
        state.withLock { wrapper in
            if wrapper?.isRunning == true { return true }
            wrapper = nil
            return false
        }
    }

    /// Launches the server and waits until its port accepts connections; throws with the end
    /// of its log when it exits or does not listen within `timeout` seconds.
    public func start(timeout: TimeInterval = 20) throws {
        if isRunning { return }
        var environment = ProcessInfo.processInfo.environment
        environment["STRATA_SERVER_PARENT"] = String(watchedProcess)
        environment["STRATA_SERVER_LOG"] = logURL.path
        environment["STRATA_SERVER_PIDFILE"] = pidURL.path
        try? FileManager.default.removeItem(at: pidURL)
        let wrapper: ChildProcess
        do {
            wrapper = try ChildProcess(["/bin/sh", "-c", Self.wrapperScript, "strata-server-wrapper"] + arguments, environment: environment)
        } catch {
            throw TestServerError("cannot launch \(name) (\(arguments.joined(separator: " "))): \(error)")
        }
        state.withLock { $0 = wrapper }
        ServerRegistry.shared.add(self)
        let ready = LoopbackPort.waitUntilAccepting(port, timeout: timeout) { self.isRunning }
        if !ready {
            stop(grace: 2)
            throw TestServerError("\(name) did not accept connections on 127.0.0.1:\(port) within \(Int(timeout)) s; its log ends with:\n\(logTail())")
        }
    }

    /// Stops the server: SIGTERM, then SIGKILL after `grace` seconds; waits until the port is
    /// closed. Does nothing when it is not running.
    public func stop(grace: TimeInterval = 5) {
        ServerRegistry.shared.remove(self)
        guard let wrapper = state.withLock({ $0 }) else { return }
        let serverPID = serverProcessID()
        wrapper.signal(SIGTERM)
        let deadline = Date().addingTimeInterval(grace)
        while isRunning && Date() < deadline { usleep(10_000) }
        if isRunning {
            if let serverPID { kill(serverPID, SIGKILL) }
            wrapper.signal(SIGKILL)
            wrapper.waitUntilExit()
            state.withLock { $0 = nil }
        }
        _ = LoopbackPort.waitUntilClosed(port, timeout: grace)
    }

    /// Stops the server and starts it again on the same port.
    public func restart(timeout: TimeInterval = 20) throws {
        stop()
        try start(timeout: timeout)
    }

    /// Sends SIGTERM to the server without waiting (the `atexit` path).
    func terminateNow() {
        if let serverPID = serverProcessID() { kill(serverPID, SIGTERM) }
        state.withLock { $0 }?.signal(SIGTERM)
    }

    /// The last lines of the server's log.
    public func logTail(lines: Int = 20) -> String {
        guard let text = try? String(contentsOf: logURL, encoding: .utf8) else { return "(no log at \(logURL.path))" }
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    private func serverProcessID() -> pid_t? {
        guard let text = try? String(contentsOf: pidURL, encoding: .utf8) else { return nil }
        return pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Runs `"$@"` in the background, records its pid, and waits for it. A watchdog subshell
    /// kills the server when the test process (STRATA_SERVER_PARENT) is gone; SIGTERM to the
    /// wrapper is passed on to the server, and the wrapper exits when the server does.
    static let wrapperScript = """
        "$@" >>"$STRATA_SERVER_LOG" 2>&1 </dev/null &
        child=$!
        echo "$child" >"$STRATA_SERVER_PIDFILE"
        (
            while kill -0 "$STRATA_SERVER_PARENT" 2>/dev/null; do sleep 0.3; done
            kill -TERM "$child" 2>/dev/null
            sleep 3
            kill -KILL "$child" 2>/dev/null
        ) >/dev/null 2>&1 </dev/null &
        watchdog=$!
        trap 'kill -TERM "$child" 2>/dev/null' TERM INT
        wait "$child"
        wait "$child"
        status=$?
        kill "$watchdog" 2>/dev/null
        exit $status
        """
}

/// Every running ``ServerProcess``, stopped by an `atexit` hook when the test process exits.
final class ServerRegistry: Sendable {
    static let shared = ServerRegistry()
    private let servers = Locked<[ObjectIdentifier: ServerProcess]>([:])
    private let directories = Locked<[URL]>([])

    private init() {
        atexit { ServerRegistry.shared.terminateAll() }
    }

    func add(_ server: ServerProcess) { servers.withLock { $0[ObjectIdentifier(server)] = server } }
    func remove(_ server: ServerProcess) { _ = servers.withLock { $0.removeValue(forKey: ObjectIdentifier(server)) } }

    /// Removes `directory` when the test process exits (a server's files, when its `deinit`
    /// has not removed them before: the shared servers, and any still held at exit).
    func removeAtExit(_ directory: URL) { directories.withLock { $0.append(directory) } }

    func terminateAll() {
        let all = servers.withLock { Array($0.values) }
        for server in all { server.terminateNow() }
        for directory in directories.withLock({ $0 }) { try? FileManager.default.removeItem(at: directory) }
    }
}
