import Foundation
import StrataTestServers
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The launcher that stands in for Foundation's `Process` in the tests and the Sandbox.
@Suite("Child processes")
struct ChildProcessTests {
    @Test("a child's output comes through a pipe and its exit status is reported")
    func outputAndStatus() throws {
        let output = Pipe()
        let child = try ChildProcess(["/bin/sh", "-c", "echo \"$GREETING\"; exit 7"], environment: ["GREETING": "hello"],
                                     standardOutput: .descriptor(output.fileHandleForWriting.fileDescriptor))
        try output.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text == "hello\n")
        #expect(child.waitUntilExit() == .exited(7))
        #expect(!child.isRunning)
    }

    @Test("a child ended by a signal is reported as signalled")
    func signalled() async throws {
        let child = try ChildProcess(["/bin/sleep", "60"])
        #expect(child.isRunning)
        child.signal(SIGKILL)
        #expect(await child.ended() == .signalled(SIGKILL))
        child.signal(SIGKILL)  // after the reap: no signal to a pid that may be someone else's
        #expect(child.termination == .signalled(SIGKILL))
    }

    @Test("a child started while 1 500 descriptors are open inherits none of them")
    func inheritsNoDescriptor() throws {
        // Foundation's Process.run() crashed the test run with this many open (see ChildProcess).
        var opened: [Int32] = []
        defer { for descriptor in opened { close(descriptor) } }
        for _ in 0..<1_500 {
            let descriptor = open("/dev/null", O_RDONLY)  // no O_CLOEXEC: only the launcher keeps it out
            guard descriptor >= 0 else { break }
            opened.append(descriptor)
        }
        #expect(opened.count >= 100, "could open only \(opened.count) descriptors")
        let sample = stride(from: 0, to: opened.count, by: max(1, opened.count / 20)).map { opened[$0] } + [opened.last ?? 0]
        #expect(sample.allSatisfy { FileManager.default.fileExists(atPath: "/proc/self/fd/\($0)") })
        // The shell lists which of them it holds (`[` is a builtin: it opens nothing itself).
        let script = "for fd in \(sample.map(String.init).joined(separator: " ")); do [ -e /proc/$$/fd/$fd ] && echo $fd; done; echo end"
        let output = Pipe()
        let child = try ChildProcess(["/bin/sh", "-c", script], standardOutput: .descriptor(output.fileHandleForWriting.fileDescriptor))
        try output.fileHandleForWriting.close()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(child.waitUntilExit().succeeded)
        #expect(printed == "end\n", "the child holds the parent's descriptors: \(printed.prefix(200))")
    }

    @Test("an executable that does not exist is a thrown error, not a crash")
    func missingExecutable() {
        #expect(throws: TestServerError.self) { try ChildProcess(["/nonexistent/strata-no-such-binary"]) }
    }
}
