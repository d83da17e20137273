import Foundation
import StrataTestServers
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The launcher the real-server tests rely on: a server starts, stops and restarts on the same port.
@Suite("Test server processes")
struct ServerProcessTests {
    @Test("nginx starts on a free port, stops (the port refuses), and restarts on the same port")
    func startStopRestart() throws {
        let server = try WebDAVTestServer.start()
        #expect(server.process.isRunning)
        #expect(LoopbackPort.accepts(server.port))
        server.stop()
        #expect(!server.process.isRunning)
        #expect(!LoopbackPort.accepts(server.port))
        try server.restart()
        #expect(LoopbackPort.accepts(server.port))
        server.stop()
    }

    @Test("a command that exits at once fails to start with its log in the error")
    func failingCommand() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-proc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = ServerProcess(name: "false", port: try LoopbackPort.free(), arguments: ["/bin/sh", "-c", "echo broken config >&2; exit 3"], directory: folder)
        #expect {
            try process.start(timeout: 5)
        } throws: { error in
            "\(error)".contains("broken config")
        }
        #expect(!process.isRunning)
    }
}

/// A server never outlives the process it watches, even one killed with SIGKILL.
@Suite("Test server watchdog")
struct ServerWatchdogTests {
    @Test("when the watched process is killed, the watchdog stops the server")
    func watchdogStopsTheServer() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-watchdog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // A stand-in for a test process: a shell that sleeps until killed.
        let standIn = try ChildProcess(["/bin/sleep", "120"])
        let port = try LoopbackPort.free()
        let server = ServerProcess(name: "python-http", port: port, arguments: ["/usr/bin/env", "python3", "-m", "http.server", "--bind", "127.0.0.1", "\(port)"],
                                   directory: folder, watchedProcess: standIn.processIdentifier)
        try server.start()
        #expect(LoopbackPort.accepts(port))
        standIn.signal(SIGKILL)
        #expect(standIn.waitUntilExit() == .signalled(SIGKILL))  // reaped: a zombie still answers `kill -0`
        #expect(LoopbackPort.waitUntilClosed(port, timeout: 30), "the server still listens after the watched process died")
        server.stop()
    }
}
