/// A validated, relative, `/`-separated path inside a cloud file system's root.
///
/// Paths are what every ``CloudFileSystem`` takes, so WebDAV URLs, S3 keys and local folders
/// all see the same relative strings. A path is a list of ``CloudName``s: it is never
/// absolute, never holds `..`, an empty component or a trailing `/`, is at most
/// ``maxDepth`` names deep and at most ``maxByteCount`` bytes long. ``root`` (no names)
/// is the backend's root directory.
///
/// For example:
/// ```swift
/// let events = try CloudPath("MainStore/events")
/// let file = try events.appending("00000000000000000001_peerA_events.strata")
/// print(file.rawValue, file.lastName?.rawValue ?? "")
/// ```
public struct CloudPath: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The deepest path accepted.
    public static let maxDepth = 32
    /// The longest path accepted, in bytes of UTF-8.
    public static let maxByteCount = 1024

    /// The names from the root down; empty for ``root``.
    public let names: [CloudName]

    /// The backend's root directory.
    public static let root = CloudPath(validated: [])

    /// Parses and validates a relative path such as `"MainStore/events"`; `""` is the root.
    ///
    /// ```swift
    /// _ = try? CloudPath("/etc/passwd")  // throws SyncError.unsafeName: absolute
    /// ```
    public init(_ rawValue: String) throws(SyncError) {
        if rawValue.isEmpty { self = .root; return }
        if rawValue.utf8.count > CloudPath.maxByteCount {
            throw SyncError(.unsafeName, "path is longer than \(CloudPath.maxByteCount) bytes", path: rawValue)
        }
        if rawValue.hasPrefix("/") { throw SyncError(.unsafeName, "path is absolute", path: rawValue) }
        let parts = rawValue.split(separator: "/", omittingEmptySubsequences: false)
        var names: [CloudName] = []
        names.reserveCapacity(parts.count)
        for part in parts {
            do { names.append(try CloudName(String(part))) } catch {
                throw SyncError(.unsafeName, "path component \(String(part).debugDescription) \(error.message)", path: rawValue)
            }
        }
        try self.init(names: names)
    }

    /// A path from names already validated; checks depth and length.
    ///
    /// ```swift
    /// let path = try CloudPath(names: [try CloudName("a"), try CloudName("b")])
    /// ```
    public init(names: [CloudName]) throws(SyncError) {
        let path = CloudPath(validated: names)
        if names.count > CloudPath.maxDepth {
            throw SyncError(.unsafeName, "path is deeper than \(CloudPath.maxDepth) names", path: path.rawValue)
        }
        if path.rawValue.utf8.count > CloudPath.maxByteCount {
            throw SyncError(.unsafeName, "path is longer than \(CloudPath.maxByteCount) bytes", path: path.rawValue)
        }
        self = path
    }

    private init(validated names: [CloudName]) { self.names = names }

    /// The path as a relative `/`-separated string (`""` for the root).
    public var rawValue: String { names.map(\.rawValue).joined(separator: "/") }
    /// Whether this is the root directory.
    public var isRoot: Bool { names.isEmpty }
    /// The last name, or `nil` for the root.
    public var lastName: CloudName? { names.last }
    /// The parent directory, or `nil` for the root.
    public var parent: CloudPath? { names.isEmpty ? nil : CloudPath(validated: Array(names.dropLast())) }

    /// This path with one more name.
    ///
    /// ```swift
    /// let child = try CloudPath.root.appending(try CloudName("events"))
    /// ```
    public func appending(_ name: CloudName) throws(SyncError) -> CloudPath {
        try CloudPath(names: names + [name])
    }

    /// This path with one more name, validated from a string.
    ///
    /// ```swift
    /// let child = try CloudPath.root.appending("events")
    /// ```
    public func appending(_ name: String) throws(SyncError) -> CloudPath {
        try appending(try CloudName(name))
    }

    /// Whether `self` is `other` or lies inside it.
    public func hasPrefix(_ other: CloudPath) -> Bool { names.starts(with: other.names) }

    public var description: String { rawValue.isEmpty ? "/" : rawValue }
    public static func < (lhs: CloudPath, rhs: CloudPath) -> Bool {
        lhs.names.lexicographicallyPrecedes(rhs.names)
    }
}
