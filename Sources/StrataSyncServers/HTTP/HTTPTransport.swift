import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Strata

/// Sends ``HTTPRequest``s over one AsyncHTTPClient `HTTPClient` (so connections are reused):
/// a deadline on every attempt, bounded retries with backoff and jitter, redirects followed
/// here (credentials only on the origin the request began with), statuses mapped to
/// `SyncError`s, and counters of what went over the wire.
///
/// Nothing it logs or throws holds a header or a credential.
///
/// For example:
/// ```swift
/// let transport = HTTPTransport(policy: .standard)
/// let response = try await transport.send(HTTPRequest("GET", url), authorizer: basic)
/// await transport.shutdown()
/// ```
final class HTTPTransport: Sendable {
    let policy: HTTPRequestPolicy
    private let client: HTTPClient
    private let counters = Locked(HTTPTransferCounters())
    private let isShutDown = Locked(false)

    init(policy: HTTPRequestPolicy) {
        self.policy = policy
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        let timeout = TimeAmount.nanoseconds(Int64(min(policy.timeout.inSeconds, 86_400) * 1e9))
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: min(timeout, .seconds(10)), read: timeout)
        configuration.decompression = .disabled
        // A refused connection fails now and the policy's backoff decides (the client would
        // otherwise retry it silently until the deadline of every attempt).
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    deinit {
        // No request can be in flight (each holds the transport); shut the client down
        // without blocking so its connections close.
        if !isShutDown.withLock({ $0 }) { client.shutdown(queue: .global()) { _ in } }
    }

    /// Closes the connections; the transport cannot be used afterwards.
    func shutdown() async {
        let already = isShutDown.withLock { value -> Bool in defer { value = true }; return value }
        if !already { try? await client.shutdown() }
    }

    /// What has been sent and received so far.
    var transferCounters: HTTPTransferCounters { counters.withLock { $0 } }

    /// Sends `request`, following redirects and retrying as the policy says; returns a `2xx`
    /// answer or one of `passStatuses`, and throws a `SyncError` for anything else.
    func send(_ request: HTTPRequest, authorizer: (any HTTPAuthorizer)? = nil) async throws -> HTTPResponse {
        let origin = HTTPOrigin(request.url)
        var current = request
        var attempt = 1
        var redirects = 0
        var challengeAnswered = false
        while true {
            try Task.checkCancellation()
            var wire = current
            if HTTPOrigin(wire.url) == origin, let authorizer {
                try await authorizer.authorize(&wire)
            } else {
                wire.headers.remove(name: "Authorization")
                wire.headers.remove(name: "Cookie")
            }
            let response: HTTPResponse
            do {
                response = try await execute(wire, attempt: attempt)
            } catch let error as SyncError {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                if Task.isCancelled { throw CancellationError() }
                guard attempt < policy.maxAttempts else {
                    throw SyncError(.backendFailure, "network error on \(wire.method) \(HTTPOrigin.redacted(wire.url)) after \(attempt) attempt(s)",
                                    path: request.cloudPath, underlying: HTTPNetworkError(error))
                }
                try await pause(before: attempt + 1, retryAfter: nil)
                attempt += 1
                continue
            }
            let status = response.status
            if (200..<300).contains(status) || request.passStatuses.contains(status) { return response }
            if (300..<400).contains(status), status != 304, request.followsRedirects,
               let location = response.headers.first(name: "Location") {
                redirects += 1
                guard redirects <= policy.maxRedirects else {
                    throw SyncError(.backendFailure, "more than \(policy.maxRedirects) redirects from \(HTTPOrigin.redacted(request.url))", path: request.cloudPath)
                }
                guard let next = URL(string: location, relativeTo: wire.url)?.absoluteURL,
                      let scheme = next.scheme?.lowercased(), scheme == "http" || scheme == "https", next.host != nil else {
                    throw SyncError(.backendFailure, "a redirect to an address that is not http(s)", path: request.cloudPath)
                }
                current.url = next
                if status == 303 { current.method = "GET"; current.body = nil }
                continue
            }
            if status == 401, !challengeAnswered, let authorizer, HTTPOrigin(wire.url) == origin, authorizer.learn(from: response) {
                challengeAnswered = true
                continue
            }
            if HTTPStatusMapping.isRetryable(status), attempt < policy.maxAttempts {
                try await request.beforeRetry?(status)
                try await pause(before: attempt + 1, retryAfter: HTTPBackoff.retryAfter(response.headers.first(name: "Retry-After")))
                attempt += 1
                continue
            }
            throw HTTPStatusMapping.error(for: status, method: wire.method, url: wire.url, path: request.cloudPath)
        }
    }

    /// One attempt: sends the request and reads the whole body (within the limit).
    private func execute(_ request: HTTPRequest, attempt: Int) async throws -> HTTPResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        outgoing.headers = request.headers
        if let body = request.body { outgoing.body = .bytes(body) }
        counters.withLock {
            $0.requests += 1
            if attempt > 1 { $0.retries += 1 }
            $0.bytesSent += request.body?.count ?? 0
        }
        let deadline = NIODeadline.now() + .nanoseconds(Int64(min(policy.timeout.inSeconds, 86_400) * 1e9))
        let response = try await client.execute(outgoing, deadline: deadline)
        let status = Int(response.status.code)
        if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > request.maxResponseBytes {
            throw SyncError(.tooLarge, "the server's answer has \(length) bytes, above the limit of \(request.maxResponseBytes)",
                            path: request.cloudPath)
        }
        let buffer: ByteBuffer
        do {
            buffer = try await response.body.collect(upTo: request.maxResponseBytes)
        } catch is NIOTooManyBytesError {
            throw SyncError(.tooLarge, "the server's answer is longer than the limit of \(request.maxResponseBytes) bytes", path: request.cloudPath)
        }
        counters.withLock { $0.bytesReceived += buffer.readableBytes }
        return HTTPResponse(status: status, headers: response.headers, body: Data(buffer.readableBytesView), url: request.url, attempts: attempt)
    }

    private func pause(before attempt: Int, retryAfter: Double?) async throws {
        let seconds = HTTPBackoff.delay(before: attempt, policy: policy, retryAfter: retryAfter)
        if seconds > 0 { try await Task.sleep(for: .seconds(seconds)) }
    }
}

/// A network failure (connection refused or dropped, a timeout) as the `underlying` error of
/// a `SyncError`; its text is the client's error, which holds no header.
struct HTTPNetworkError: Error, Sendable, CustomStringConvertible {
    var description: String
    init(_ error: any Error) { description = String(describing: error) }
}
