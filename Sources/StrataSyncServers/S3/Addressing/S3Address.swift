public import Foundation
public import StrataSync

/// Where the objects of one bucket live and how a `CloudPath` becomes an S3 key and a URL.
///
/// A path's key is the optional ``prefix`` and the path's names joined with `/`
/// (`prefix/MainStore/events/0001…`); a directory's key prefix is its key and a `/`. In a URL
/// each key segment is percent-encoded once with S3's rules (every byte but
/// `A-Z a-z 0-9 - . _ ~`), and that same string is what the request signs.
///
/// For example:
/// ```swift
/// let address = try S3Address(endpoint: URL(string: "http://127.0.0.1:9000")!, bucket: "notes",
///                             addressing: .pathStyle, prefix: "team")
/// address.key(for: try CloudPath("MainStore/a b"))          // "team/MainStore/a b"
/// address.objectURL(key: "team/MainStore/a b")              // http://127.0.0.1:9000/notes/team/MainStore/a%20b
/// ```
public struct S3Address: Sendable, Hashable {
    /// The server, as given (`http://127.0.0.1:9000`, `https://s3.eu-west-1.amazonaws.com`).
    public let endpoint: URL
    /// The bucket name.
    public let bucket: String
    /// Path-style or virtual-host URLs.
    public let addressing: S3Addressing
    /// The key prefix every path lives under inside the bucket, without leading or trailing
    /// `/` (`""` for the whole bucket).
    public let prefix: String

    private let scheme: String
    private let endpointHost: String
    private let port: Int?
    private let basePath: String

    /// Checks the endpoint (an `http` or `https` URL with a host, no query) and the bucket name
    /// (3–63 of `a-z 0-9 . -`, as S3 requires; virtual-host addressing also refuses dots over
    /// `https`, whose certificates cannot match them); trims `/` around the prefix.
    ///
    /// ```swift
    /// _ = try S3Address(endpoint: URL(string: "ftp://x")!, bucket: "notes")   // throws
    /// ```
    public init(endpoint: URL, bucket: String, addressing: S3Addressing = .pathStyle, prefix: String = "") throws(SyncError) {
        guard let scheme = endpoint.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw SyncError(.notConnected, "the S3 endpoint \(endpoint.absoluteString) is not an http or https URL")
        }
        guard let host = endpoint.host(percentEncoded: false), !host.isEmpty else {
            throw SyncError(.notConnected, "the S3 endpoint \(endpoint.absoluteString) has no host")
        }
        if endpoint.query != nil || endpoint.user != nil {
            throw SyncError(.notConnected, "the S3 endpoint must not carry a query or credentials in its URL")
        }
        if let problem = S3Address.bucketNameProblem(bucket) {
            throw SyncError(.notConnected, "the bucket name \(bucket.debugDescription) \(problem)")
        }
        if addressing != .pathStyle && scheme == "https" && bucket.contains(".") {
            throw SyncError(.notConnected, "a bucket name with dots cannot be addressed by virtual host over https (the certificate cannot match it): use path style")
        }
        let trimmedPrefix = prefix.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
        if !trimmedPrefix.isEmpty {
            do { _ = try CloudPath(trimmedPrefix) } catch {
                throw SyncError(.unsafeName, "the key prefix \(prefix.debugDescription) \(error.message)")
            }
        }
        self.endpoint = endpoint
        self.bucket = bucket
        self.addressing = addressing
        self.prefix = trimmedPrefix
        self.scheme = scheme
        self.endpointHost = host
        self.port = endpoint.port
        let path = endpoint.path(percentEncoded: true)
        self.basePath = path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    /// Why `name` is not a bucket name S3 accepts, or `nil`.
    static func bucketNameProblem(_ name: String) -> String? {
        guard (3...63).contains(name.utf8.count) else { return "is not 3 to 63 characters long" }
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "-"):
                continue
            default:
                return "holds a character other than a-z, 0-9, '.' and '-'"
            }
        }
        guard let first = name.utf8.first, let last = name.utf8.last,
              first != UInt8(ascii: "."), first != UInt8(ascii: "-"),
              last != UInt8(ascii: "."), last != UInt8(ascii: "-") else {
            return "does not start and end with a letter or digit"
        }
        return nil
    }

    // MARK: Keys

    /// The key of the object at `path` (the prefix alone for the root).
    ///
    /// ```swift
    /// address.key(for: try CloudPath("a/b"))   // "a/b", or "prefix/a/b"
    /// ```
    public func key(for path: CloudPath) -> String {
        let relative = path.rawValue
        if prefix.isEmpty { return relative }
        return relative.isEmpty ? prefix : prefix + "/" + relative
    }

    /// The key prefix of the directory at `path`: its key and `/` (`""` for the root of a
    /// bucket without prefix).
    ///
    /// ```swift
    /// address.directoryPrefix(for: try CloudPath("a"))   // "a/"
    /// ```
    public func directoryPrefix(for path: CloudPath) -> String {
        let key = key(for: path)
        return key.isEmpty ? "" : key + "/"
    }

    // MARK: URLs

    /// The `Host` header: the endpoint's host (and port), with `bucket.` before it for
    /// virtual-host addressing.
    public var hostHeader: String {
        let host = addressing == .pathStyle ? endpointHost : "\(bucket).\(endpointHost)"
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return port.map { "\(bracketed):\($0)" } ?? bracketed
    }

    /// Where connections go: the `Host` header's name, or the override of
    /// ``S3Addressing/virtualHostConnectingTo(_:)``.
    var connectionAuthority: String {
        guard case .virtualHostConnectingTo(let target) = addressing else { return hostHeader }
        let bracketed = target.contains(":") ? "[\(target)]" : target
        return port.map { "\(bracketed):\($0)" } ?? bracketed
    }

    /// The encoded path of the bucket itself (`/bucket` path-style, `/` virtual-host).
    public var bucketPath: String {
        addressing == .pathStyle ? "\(basePath)/\(S3URIEncoding.encode(bucket))" : (basePath.isEmpty ? "/" : basePath + "/")
    }

    /// The encoded path of the object `key`: each `/`-separated segment encoded once.
    ///
    /// ```swift
    /// address.objectPath(key: "a b/c$")   // "/notes/a%20b/c%24" (path style)
    /// ```
    public func objectPath(key: String) -> String {
        let encodedKey = S3URIEncoding.encodePath(key)
        return addressing == .pathStyle ? "\(bucketPath)/\(encodedKey)" : "\(basePath)/\(encodedKey)"
    }

    /// The URL to send a request for `encodedPath` with the already-encoded `query`.
    func url(encodedPath: String, encodedQuery: String) -> String {
        "\(scheme)://\(connectionAuthority)\(encodedPath)" + (encodedQuery.isEmpty ? "" : "?\(encodedQuery)")
    }

    /// The URL of the object `key`, as sent.
    ///
    /// ```swift
    /// address.objectURL(key: "a b")   // http://127.0.0.1:9000/notes/a%20b
    /// ```
    public func objectURL(key: String) -> URL? {
        URL(string: url(encodedPath: objectPath(key: key), encodedQuery: ""))
    }

    /// The URL of the bucket, as sent.
    public var bucketURL: URL? { URL(string: url(encodedPath: bucketPath, encodedQuery: "")) }
}
