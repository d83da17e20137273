public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 server on a loopback port whose every answer a test scripts: a raw
/// response (for hostile answers no real server gives), or the request forwarded to a real
/// server — as it is, after a delay, or cut off halfway through its body. One request per
/// connection (it answers `Connection: close`); requests are recorded for assertions.
///
/// For example, a proxy in front of nginx that fails the first PUT with a 500:
/// ```swift
/// let failed = Locked(false)
/// let proxy = try LoopbackHTTPServer { request in
///     if request.method == "PUT", failed.withLock({ defer { $0 = true }; return !$0 }) { return .respond(status: 500) }
///     return .forward(to: nginx.port)
/// }
/// ```
public final class LoopbackHTTPServer: Sendable {
    /// One request as received.
    public struct Request: Sendable {
        /// `GET`, `PUT`, `PROPFIND`…
        public var method: String
        /// The request target as sent (`/dav/a%20b`).
        public var target: String
        /// Header names lower-cased, values as sent.
        public var headers: [String: String]
        /// The body (read whole, by `Content-Length`).
        public var body: Data
        /// The raw head, for forwarding.
        var head: String
    }

    /// What to do with a request.
    public enum Action: Sendable {
        /// Answer with these exact bytes.
        case respondRaw(Data)
        /// Forward to 127.0.0.1:`port` and relay the answer.
        case forward(to: Int)
        /// Wait, then forward.
        case delayThenForward(seconds: Double, to: Int)
        /// Forward the head and half the body, then close both connections.
        case dropMidBody(to: Int)
        /// Close the connection without answering.
        case drop

        /// A minimal answer with `status`, `headers` and `body`.
        public static func respond(status: Int, headers: [String: String] = [:], body: String = "") -> Action {
            var text = "HTTP/1.1 \(status) Scripted\r\n"
            for (name, value) in headers { text += "\(name): \(value)\r\n" }
            text += "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
            return .respondRaw(Data(text.utf8))
        }
    }

    /// The port it listens on.
    public var port: Int { core.port }
    private let core: Core

    /// Starts listening on a free loopback port; `handler` decides each request's fate (it may
    /// be called from several threads at once).
    public init(handler: @escaping @Sendable (Request) -> Action) throws {
        core = try Core(handler: handler)
    }

    /// Stops listening when the server is released.
    deinit { core.stop() }

    /// The requests received so far, in order.
    public var requests: [Request] { core.requests }

    /// The server's root URL, `http://127.0.0.1:<port>/`.
    public var url: URL { core.url }

    /// Stops accepting connections.
    public func stop() { core.stop() }

    fileprivate static func forward(_ request: Request, from client: Int32, to port: Int, cutBody: Bool) {
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if upstream < 0 { return }
        defer { close(upstream) }
        var address = LoopbackPort.loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if connected != 0 { return }
        var head = request.head.components(separatedBy: "\r\n").filter { !$0.lowercased().hasPrefix("connection:") }
        head.append("Connection: close")
        writeAll(upstream, Data((head.joined(separator: "\r\n") + "\r\n\r\n").utf8))
        if cutBody {
            writeAll(upstream, request.body.prefix(request.body.count / 2))
            return
        }
        writeAll(upstream, request.body)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(upstream, &buffer, buffer.count)
            if count <= 0 { break }
            writeAll(client, Data(buffer[0..<count]))
        }
    }

    fileprivate static func readRequest(_ fd: Int32) -> Request? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let separator = Data("\r\n\r\n".utf8)
        var headEnd: Range<Data.Index>?
        while headEnd == nil {
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { return nil }
            data.append(contentsOf: buffer[0..<count])
            headEnd = data.range(of: separator)
            if data.count > 1 << 20 { return nil }
        }
        guard let end = headEnd, let head = String(data: data[..<end.lowerBound], encoding: .utf8) else { return nil }
        let lines = head.components(separatedBy: "\r\n")
        let first = lines[0].split(separator: " ")
        guard first.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(data[end.upperBound...])
        let length = Int(headers["content-length"] ?? "0") ?? 0
        while body.count < length {
            let count = read(fd, &buffer, min(buffer.count, length - body.count))
            if count <= 0 { break }
            body.append(contentsOf: buffer[0..<count])
        }
        return Request(method: String(first[0]), target: String(first[1]), headers: headers, body: body, head: head)
    }

    fileprivate static func writeAll(_ fd: Int32, _ data: Data) {
        data.withUnsafeBytes { raw in
            var offset = 0
            guard let base = raw.baseAddress else { return }
            while offset < raw.count {
                let written = send(fd, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if written <= 0 { return }
                offset += written
            }
        }
    }
}

/// The listening socket and its threads (which hold this, not the server, so releasing the
/// server closes the socket and ends them).
private final class Core: Sendable {
    /// The port it listens on.
    let port: Int
    private let listener: Int32
    private let handler: @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Action
    private let log = Locked<[LoopbackHTTPServer.Request]>([])
    private let closed = Locked(false)

    /// Starts listening on a free loopback port; `handler` decides each request's fate (it may
    /// be called from several threads at once).
    init(handler: @escaping @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Action) throws {
        self.handler = handler
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if fd < 0 { throw TestServerError("cannot open a socket (errno \(errno))") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = LoopbackPort.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        if bound != 0 || listen(fd, 64) != 0 {
            close(fd)
            throw TestServerError("cannot listen on loopback (errno \(errno))")
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// The requests received so far, in order.
    var requests: [LoopbackHTTPServer.Request] { log.withLock { $0 } }

    /// The server's root URL, `http://127.0.0.1:<port>/`.
    var url: URL { URL(string: "http://127.0.0.1:\(port)/") ?? URL(fileURLWithPath: "/") }

    /// Stops accepting connections.
    func stop() {
        let wasClosed = closed.withLock { value -> Bool in defer { value = true }; return value }
        if !wasClosed {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    private func acceptLoop() {
        while !closed.withLock({ $0 }) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let thread = Thread { [self] in serve(client) }
            thread.start()
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        guard let request = LoopbackHTTPServer.readRequest(client) else { return }
        log.withLock { $0.append(request) }
        switch handler(request) {
        case .respondRaw(let data):
            LoopbackHTTPServer.writeAll(client, data)
        case .drop:
            return
        case .forward(let port):
            LoopbackHTTPServer.forward(request, from: client, to: port, cutBody: false)
        case .delayThenForward(let seconds, let port):
            usleep(UInt32(max(0, seconds) * 1_000_000))
            LoopbackHTTPServer.forward(request, from: client, to: port, cutBody: false)
        case .dropMidBody(let port):
            LoopbackHTTPServer.forward(request, from: client, to: port, cutBody: true)
        }
    }

}
