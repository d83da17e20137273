public import Foundation

/// A `CloudFileSystem` on a WebDAV server: Nextcloud, ownCloud, Apache `mod_dav`, nginx
/// with its dav modules, a NAS.
///
/// Everything lives under `baseURL` (a folder that must exist; ``connect()`` checks it):
/// listings are `PROPFIND` (depth 1, and depth 0 for ``fileExists(at:)``) parsed with a real
/// XML parser; folders are made with `MKCOL` (missing parents first); an upload is a `PUT`
/// to a temporary name in the same folder then a `MOVE` into place, so a reader sees the old
/// file or the whole new one; downloads are `GET` (refused before reading when
/// `Content-Length` is above ``limits``); removal is `DELETE`.
///
/// - **Credentials**: Basic auth on every request; when the server answers `401` with a
///   Digest challenge, Digest (RFC 7616, MD5 or SHA-256, `qop=auth`) from then on. Use
///   `https` for a server off the machine: Basic sends the password in the clear otherwise.
///   A refused password is `SyncError/Code/authenticationFailed`, never retried.
/// - **Names** are percent-encoded on the way out and decoded on the way in. An `href` in a
///   listing that points outside the listed folder — another host, port or scheme, a `..` or
///   `.` segment, another path prefix, a deeper path — is left out of the listing (like an
///   unsafe name: it cannot be addressed by a `CloudPath`, and one hostile entry does not
///   stop a sync from reading the good ones); a depth-0 answer about another address is
///   `SyncError/Code/unsafeName`.
/// - **Redirects** are followed (at most ``HTTPRequestPolicy/maxRedirects``); credentials are
///   sent only while the request stays on the base URL's scheme, host and port.
/// - **Network**: one HTTP client with connection reuse, a deadline on every request, and
///   retries with backoff as ``HTTPRequestPolicy`` says.
///
/// For example, a Nextcloud user's files:
/// ```swift
/// let cloud = WebDAVCloudFileSystem(
///     baseURL: URL(string: "https://cloud.example.com/remote.php/dav/files/alice/Strata/")!,
///     username: "alice", password: appPassword)
/// try await cloud.connect()
/// let ensemble = try await Ensemble(identifier: "Notes", coordinator: coordinator, cloudFileSystem: cloud,
///                                   globalIdentifiers: .attribute("uniqueIdentifier"))
/// ```
public final class WebDAVCloudFileSystem: CloudFileSystem {
    /// The caps this backend enforces.
    public let limits: CloudLimits
    /// The folder everything lives under (ending in `/`).
    public var baseURL: URL { paths.baseURL }
    /// The request policy (timeouts, retries, redirects).
    public var policy: HTTPRequestPolicy { transport.policy }

    let paths: WebDAVPaths
    let transport: HTTPTransport
    let authorizer: WebDAVAuthorizer

    /// The prefix of the temporary names uploads are written under before they are moved
    /// into place; never listed.
    static let temporaryPrefix = ".strata-upload-"

    /// A WebDAV cloud under `baseURL` (a folder on the server; put credentials in `username`
    /// and `password`, not in the URL).
    ///
    /// ```swift
    /// let cloud = WebDAVCloudFileSystem(baseURL: URL(string: "http://127.0.0.1:8080/dav/")!,
    ///                                   username: "alice", password: "secret",
    ///                                   limits: CloudLimits(maxFileSize: 64 << 20),
    ///                                   policy: HTTPRequestPolicy(timeout: .seconds(10)))
    /// ```
    public init(baseURL: URL, username: String, password: String, limits: CloudLimits = .standard, policy: HTTPRequestPolicy = .standard) {
        self.limits = limits
        paths = WebDAVPaths(baseURL: baseURL)
        transport = HTTPTransport(policy: policy)
        authorizer = WebDAVAuthorizer(username: username, password: password)
    }

    /// Requests sent and bytes moved so far (read before and after a sync to measure it).
    ///
    /// ```swift
    /// let before = cloud.transferCounters
    /// try await ensemble.sync()
    /// print((cloud.transferCounters - before).requests, "requests")
    /// ```
    public var transferCounters: HTTPTransferCounters { transport.transferCounters }

    /// Closes the HTTP connections. Optional (they close when the value is released); the
    /// cloud cannot be used afterwards.
    ///
    /// ```swift
    /// await cloud.shutdown()
    /// ```
    public func shutdown() async { await transport.shutdown() }

    /// Checks that the base folder exists and the credentials work.
    /// Throws `SyncError/Code/authenticationFailed` for refused credentials and
    /// `SyncError/Code/notConnected` for anything else.
    ///
    /// ```swift
    /// do { try await cloud.connect() }
    /// catch let error as SyncError where error.code == .authenticationFailed { askForThePasswordAgain() }
    /// ```
    public func connect() async throws {
        let state: (exists: Bool, isDirectory: Bool)
        do {
            state = try await fileExists(at: .root)
        } catch let error as SyncError where error.code == .authenticationFailed || error.code == .unsafeName {
            throw error
        } catch {
            throw SyncError(.notConnected, "cannot reach the WebDAV folder \(HTTPOrigin.redacted(paths.baseURL))",
                            underlying: error as? SyncError ?? SyncError(.backendFailure, "\(error)"))
        }
        if !state.exists || !state.isDirectory {
            throw SyncError(.notConnected, "the WebDAV folder \(HTTPOrigin.redacted(paths.baseURL)) does not exist; create it on the server first")
        }
    }

    public func fileExists(at path: CloudPath) async throws -> (exists: Bool, isDirectory: Bool) {
        let url = paths.url(for: path)
        var request = propfind(url, depth: "0", path: path)
        request.passStatuses = [404, 409]
        let response = try await transport.send(request, authorizer: authorizer)
        if response.status != 207 { return (false, false) }
        let entries = try WebDAVMultiStatus.parse(response.body, path: path.rawValue)
        guard let entry = entries.first(where: { paths.relativeNames(ofHref: $0.href, answering: response.url) == path.names.map(\.rawValue) }) else {
            throw SyncError(.unsafeName, "the server answered PROPFIND about another address than the one asked", path: path.rawValue)
        }
        if !(200..<300).contains(entry.status) { return (false, false) }
        return (true, entry.isCollection)
    }

    public func contentsOfDirectory(at path: CloudPath) async throws -> [CloudItem] {
        // Without a trailing `/`: a file then answers as itself (a type mismatch, not a 404);
        // servers that want the `/` redirect, and the transport follows.
        var request = propfind(paths.url(for: path), depth: "1", path: path)
        request.maxResponseBytes = min(limits.maxListingCount, 10_000_000) * 4096 + (1 << 20)
        request.passStatuses = [404]
        let response = try await transport.send(request, authorizer: authorizer)
        if response.status == 404 { throw SyncError(.notFound, "no such folder on the server", path: path.rawValue) }
        let entries = try WebDAVMultiStatus.parse(response.body, path: path.rawValue)
        let own = path.names.map(\.rawValue)
        var items: [CloudItem] = []
        for entry in entries where (200..<300).contains(entry.status) {
            guard let names = paths.relativeNames(ofHref: entry.href, answering: response.url) else { continue }
            if names == own {
                if !entry.isCollection { throw SyncError(.typeMismatch, "a file, not a folder", path: path.rawValue) }
                continue
            }
            guard names.count == own.count + 1, names.starts(with: own), let last = names.last else { continue }
            if last.hasPrefix(Self.temporaryPrefix) { continue }
            guard let name = try? CloudName(last) else { continue }
            items.append(CloudItem(name: name, size: entry.isCollection ? 0 : max(0, entry.size ?? 0), isDirectory: entry.isCollection))
            if items.count > limits.maxListingCount {
                throw SyncError(.listingTooLong, "the folder has more than \(limits.maxListingCount) entries", path: path.rawValue)
            }
        }
        return items
    }

    public func createDirectory(at path: CloudPath) async throws {
        if path.isRoot { return }
        switch try await fileExists(at: path) {
        case (true, true): return
        case (true, false): throw SyncError(.typeMismatch, "a file is in the way of a folder", path: path.rawValue)
        default: break
        }
        var request = HTTPRequest("MKCOL", paths.url(for: path, collection: true), cloudPath: path.rawValue)
        request.passStatuses = [405, 409]
        var response = try await transport.send(request, authorizer: authorizer)
        if response.status == 409, let parent = path.parent, !parent.isRoot {
            try await createDirectory(at: parent)
            response = try await transport.send(request, authorizer: authorizer)
        }
        switch response.status {
        case 200..<300:
            return
        case 405:
            // Something exists there (made since the check, or a retried MKCOL that had worked).
            if try await fileExists(at: path) == (true, true) { return }
            throw SyncError(.typeMismatch, "a file is in the way of a folder", path: path.rawValue)
        default:
            throw SyncError(.notFound, "cannot create the folder: a parent is missing or is a file", path: path.rawValue)
        }
    }

    public func download(from path: CloudPath) async throws -> Data {
        if path.isRoot { throw SyncError(.typeMismatch, "the root is a folder", path: path.rawValue) }
        let url = paths.url(for: path)
        var request = HTTPRequest("GET", url, cloudPath: path.rawValue)
        request.maxResponseBytes = limits.maxFileSize
        request.followsRedirects = false
        request.passStatuses = [301, 302, 303, 307, 308]
        var response = try await transport.send(request, authorizer: authorizer)
        if (300..<400).contains(response.status) {
            let location = response.headers.first(name: "Location").flatMap { URL(string: $0, relativeTo: url)?.absoluteURL }
            if location?.absoluteString == paths.url(for: path, collection: true).absoluteString {
                throw SyncError(.typeMismatch, "a folder, not a file", path: path.rawValue)
            }
            request.followsRedirects = true
            request.passStatuses = []
            response = try await transport.send(request, authorizer: authorizer)
        }
        return response.body
    }

    public func removeItem(at path: CloudPath) async throws {
        if path.isRoot { throw SyncError(.unsafeName, "refusing to remove the root folder", path: path.rawValue) }
        var request = HTTPRequest("DELETE", paths.url(for: path), cloudPath: path.rawValue)
        request.headers.add(name: "Depth", value: "infinity")
        request.passStatuses = [404, 409]
        var response = try await transport.send(request, authorizer: authorizer)
        if response.status == 409 {
            // nginx wants a folder's URL to end in `/`.
            request.url = paths.url(for: path, collection: true)
            response = try await transport.send(request, authorizer: authorizer)
            if response.status == 409 {
                throw SyncError(.backendFailure, "the server refused to remove the item (HTTP 409)", path: path.rawValue)
            }
        }
    }

    func propfind(_ url: URL, depth: String, path: CloudPath) -> HTTPRequest {
        var request = HTTPRequest("PROPFIND", url, cloudPath: path.rawValue)
        request.headers.add(name: "Depth", value: depth)
        request.headers.add(name: "Content-Type", value: "application/xml; charset=utf-8")
        request.body = Self.propfindBody
        return request
    }

    static let propfindBody = Data("""
        <?xml version="1.0" encoding="utf-8"?>
        <D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/><D:getcontentlength/></D:prop></D:propfind>
        """.utf8)
}
