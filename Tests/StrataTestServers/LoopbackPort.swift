public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Loopback TCP ports: a free one to listen on, and whether one accepts connections.
///
/// ```swift
/// let port = try LoopbackPort.free()
/// let ready = LoopbackPort.accepts(port)
/// ```
public enum LoopbackPort {
    /// A port on 127.0.0.1 nothing listens on now (the kernel picks it; another process could
    /// take it before the caller binds it, which is rare enough for tests).
    public static func free() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if fd < 0 { throw TestServerError("cannot open a socket (errno \(errno))") }
        defer { close(fd) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if bound != 0 { throw TestServerError("cannot bind a loopback socket (errno \(errno))") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        if named != 0 { throw TestServerError("cannot read a socket's port (errno \(errno))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port` now.
    public static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if fd < 0 { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return connected == 0
    }

    /// Waits until `port` accepts connections or `condition` says to give up; true when it does.
    public static func waitUntilAccepting(_ port: Int, timeout: TimeInterval, while condition: () -> Bool = { true }) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if accepts(port) { return true }
            if !condition() { return false }
            usleep(20_000)
        }
        return accepts(port)
    }

    /// Waits until `port` refuses connections; true when it does.
    public static func waitUntilClosed(_ port: Int, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if !accepts(port) { return true }
            usleep(20_000)
        }
        return !accepts(port)
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
