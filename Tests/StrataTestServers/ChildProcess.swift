public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, for the tests and the Sandbox: the stand-in
/// for Foundation's `Process`, which cannot be used there on Linux.
///
/// Foundation's `Process.run()` (swift-corelibs-foundation up to at least Swift 6.3.1) walks
/// `/proc/self/fd` copying 256 bytes of each directory entry; with about 1 360 descriptors
/// open, an entry can sit at the end of glibc's read buffer and the copy reads past it
/// (SIGSEGV; fixed upstream in swift-corelibs-foundation pull request 5472). A test process
/// holding many stores open reaches that count, so a child launched from it crashed the whole
/// run. This type asks the kernel to close the descriptors instead (`closefrom` in the
/// child), and reaps the child with `waitpid`.
///
/// For example:
/// ```swift
/// let output = Pipe()
/// let child = try ChildProcess(["/bin/echo", "hello"], standardOutput: .descriptor(output.fileHandleForWriting.fileDescriptor))
/// try output.fileHandleForWriting.close()          // the child holds its own copy
/// let text = output.fileHandleForReading.readDataToEndOfFile()
/// let status = child.waitUntilExit()               // .exited(0)
/// ```
public final class ChildProcess: Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// `/dev/null`.
        case nullDevice
        /// A copy of this descriptor of the parent (the parent keeps its own and closes it).
        case descriptor(Int32)
    }

    /// How a child ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        /// It exited with this status.
        case exited(Int32)
        /// A signal (this number) ended it.
        case signalled(Int32)

        /// Whether it exited with status 0.
        public var succeeded: Bool { self == .exited(0) }

        public var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signalled(let signal): "was killed by signal \(signal)"
            }
        }
    }

    /// The child's process id.
    public let processIdentifier: pid_t
    /// The executable and its arguments, as launched.
    public let arguments: [String]
    private let ending = Locked<Termination?>(nil)

    /// Starts `argv` (`argv[0]` is an absolute path) with `environment` (by default this
    /// process's) and the given standard streams. The child inherits no other descriptor,
    /// handles every signal the default way and starts with an empty signal mask.
    public init(_ argv: [String], environment: [String: String]? = nil, standardInput: Stream = .nullDevice,
                standardOutput: Stream = .nullDevice, standardError: Stream = .nullDevice) throws {
        guard let executable = argv.first else { throw TestServerError("ChildProcess needs an executable") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, stream, flags) in [(Int32(0), standardInput, O_RDONLY), (1, standardOutput, O_WRONLY), (2, standardError, O_WRONLY)] {
            switch stream {
            case .nullDevice: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", flags, 0)
            case .descriptor(let descriptor): posix_spawn_file_actions_adddup2(&actions, descriptor, target)
            }
        }
        try Self.closeOthers(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let argumentPointers = argv.map { strdup($0) } + [nil]
        let variablePointers = variables.map { strdup($0) } + [nil]
        defer {
            for pointer in argumentPointers { free(pointer) }
            for pointer in variablePointers { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argumentPointers, variablePointers)
        if result != 0 {
            throw TestServerError("cannot launch \(executable): \(String(cString: strerror(result))) (errno \(result))")
        }
        processIdentifier = pid
        arguments = argv
    }

    /// Adds "close every descriptor from 3 on" to `actions`: glibc ≥ 2.34 has the call, but
    /// its header hides it from Swift.
    private static func closeOthers(_ actions: inout posix_spawn_file_actions_t) throws {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            throw TestServerError("this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later has it)")
        }
        let result = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        if result != 0 { throw TestServerError("posix_spawn_file_actions_addclosefrom_np failed (errno \(result))") }
    }

    /// How the child ended, or `nil` while it runs (reaps it once it has ended).
    public var termination: Termination? {
        ending.withLock { ended in
            if let ended { return ended }
            var status: Int32 = 0
            let result = waitpid(processIdentifier, &status, WNOHANG)
            guard result == processIdentifier else { return nil }
            ended = Self.termination(fromWaitStatus: status)
            return ended
        }
    }

    /// Whether the child still runs.
    public var isRunning: Bool { termination == nil }

    /// Blocks until the child ends (polling every 10 ms) and returns how it ended.
    @discardableResult
    public func waitUntilExit() -> Termination {
        while true {
            if let ended = termination { return ended }
            usleep(10_000)
        }
    }

    /// Waits without blocking a thread (polling every 10 ms) until the child ends.
    @discardableResult
    public func ended() async -> Termination {
        while true {
            if let ended = termination { return ended }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Sends `signal` (by default SIGTERM) to the child, unless it has been reaped already.
    public func signal(_ signal: Int32 = SIGTERM) {
        ending.withLock { ended in
            if ended == nil { _ = kill(processIdentifier, signal) }
        }
    }

    private static func termination(fromWaitStatus status: Int32) -> Termination {
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }
}
