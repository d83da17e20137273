import Foundation
import StrataTestServers
import Testing

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
