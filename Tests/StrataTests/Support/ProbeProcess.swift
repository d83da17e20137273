import Foundation
@testable import Strata   // `Locked`
import StrataTestServers  // `ChildProcess`
import Testing

/// A running `StrataProcessProbe` child process (Sources/StrataProcessProbe): its stdout is
/// collected line by line on a thread of its own (so a chatty child never blocks on a full
/// pipe), and lines can be sent to its stdin. It runs as a ``ChildProcess``: Foundation's
/// `Process` crashes when launched from a test process holding many descriptors.
final class ProbeProcess: @unchecked Sendable {  // safe: `child` and the pipes are set in init and only read after; `output` is Locked
    let child: ChildProcess
    private let input = Pipe()
    private let outputPipe = Pipe()
    private let errorPipe = Pipe()
    private let output = Locked((text: "", errors: "", closed: false))

    /// The probe binary: built by `swift build` next to the test bundle (both live in the
    /// build directory), or under the package's `.build/debug`.
    static func binary(filePath: String = #filePath) throws -> URL {
        let packageRoot = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL,
            Bundle.main.bundleURL.deletingLastPathComponent(),
            packageRoot.appendingPathComponent(".build/debug"),
        ].map { $0.appendingPathComponent("StrataProcessProbe") }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw ProbeMissing(searched: candidates.map(\.path))
        }
        return found
    }

    struct ProbeMissing: Error, CustomStringConvertible {
        let searched: [String]
        var description: String {
            "StrataProcessProbe is not built, so the multi-process tests cannot run: `swift build` (or `swift build --target StrataProcessProbe` then link) first. Looked in: \(searched.joined(separator: ", "))"
        }
    }

    /// Starts the probe with `arguments` (a role and its arguments).
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        child = try ChildProcess([try Self.binary().path] + arguments,
                                 environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
                                 standardInput: .descriptor(input.fileHandleForReading.fileDescriptor),
                                 standardOutput: .descriptor(outputPipe.fileHandleForWriting.fileDescriptor),
                                 standardError: .descriptor(errorPipe.fileHandleForWriting.fileDescriptor))
        // The child holds its own ends; closing ours lets the readers see the end of its output.
        try input.fileHandleForReading.close()
        try outputPipe.fileHandleForWriting.close()
        try errorPipe.fileHandleForWriting.close()
        let output = self.output
        for (pipe, isError) in [(outputPipe, false), (errorPipe, true)] {
            let handle = pipe.fileHandleForReading
            Thread.detachNewThread {
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    let text = String(decoding: chunk, as: UTF8.self)
                    output.withLock { if isError { $0.errors += text } else { $0.text += text } }
                }
                if !isError { output.withLock { $0.closed = true } }
            }
        }
    }

    /// The complete lines written to stdout so far.
    var lines: [String] {
        output.withLock { state in
            var parts = state.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            parts.removeLast()  // the unfinished line (empty when the text ends with a newline)
            return parts
        }
    }

    /// What the child wrote to stderr so far.
    var errors: String { output.withLock { $0.errors } }

    /// Sends one line to the child's stdin.
    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Waits (polling, up to `timeout` seconds) for a stdout line that satisfies `match`. The
    /// lines are checked once more after the deadline: on a loaded machine the waiting task can
    /// be resumed only after it, while the line came in time.
    func waitForLine(timeout: Double = 60, _ match: (String) -> Bool) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let line = lines.first(where: match) { return line }
            if Date() >= deadline || (!child.isRunning && output.withLock({ $0.closed })) { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw ProbeFailure("no matching line within \(timeout) s; stdout: \(lines.suffix(5)), stderr: \(errors)")
    }

    /// Waits for the child to end (up to `timeout` seconds, then kills it) and for its output
    /// to be read; returns how it ended.
    @discardableResult
    func finish(timeout: Double = 300) async throws -> ChildProcess.Termination {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let ended = child.termination, output.withLock({ $0.closed }) { return ended }
            if Date() > deadline {
                child.signal(SIGKILL)
                throw ProbeFailure("probe \(child.arguments.dropFirst()) still running after \(timeout) s; stderr: \(errors)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Kills the child at once (the crash harness's SIGKILL).
    func kill() {
        child.signal(SIGKILL)
    }
}

struct ProbeFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
