/// One validated name inside a cloud folder: a file or directory name, never a path.
///
/// Every name that comes from the cloud (a listing, a file that names another file, a peer
/// or ensemble identifier) becomes a `CloudName` before it is used as a local path or stored,
/// so a hostile or broken store cannot make a peer reach outside its folder. A name is
/// refused (``SyncError/Code/unsafeName``) when it:
///
/// - is empty, `.` or `..`, or longer than ``maxByteCount`` bytes of UTF-8;
/// - contains `/` or `\`, NUL, a control character (C0, DEL, C1), a line or paragraph
///   separator, or a bidirectional override (which make names lie in logs);
/// - ends with a space or a dot, or starts with a space (Windows drops them, so two cloud
///   names could become one local file).
///
/// For example:
/// ```swift
/// let name = try CloudName("events")
/// _ = try? CloudName("..")        // throws SyncError.unsafeName
/// ```
public struct CloudName: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The longest name, in bytes of UTF-8 (the common file-system limit).
    public static let maxByteCount = 255

    /// The name as a string; always valid.
    public let rawValue: String

    /// Validates `rawValue` as a single name.
    ///
    /// ```swift
    /// let name = try CloudName("0001_peer_events.strata")
    /// ```
    public init(_ rawValue: String) throws(SyncError) {
        if let problem = CloudName.problem(in: rawValue) {
            throw SyncError(.unsafeName, problem, path: rawValue)
        }
        self.rawValue = rawValue
    }

    /// A name built by StrataSync itself from validated parts (checked in debug builds).
    init(trusted rawValue: String) {
        assert(CloudName.problem(in: rawValue) == nil, "not a safe name: \(rawValue)")
        self.rawValue = rawValue
    }

    /// Why `name` is not a safe name, or `nil` when it is.
    ///
    /// ```swift
    /// CloudName.problem(in: "a/b")   // "contains a path separator"
    /// ```
    public static func problem(in name: String) -> String? {
        let bytes = name.utf8.count
        if bytes == 0 { return "is empty" }
        if bytes > maxByteCount { return "is longer than \(maxByteCount) bytes" }
        if name == "." || name == ".." { return "is a relative directory reference" }
        for scalar in name.unicodeScalars {
            switch scalar.value {
            case 0x2F, 0x5C: return "contains a path separator"
            case 0x00...0x1F, 0x7F...0x9F: return "contains a control character"
            case 0x2028, 0x2029: return "contains a line separator"
            case 0x202A...0x202E, 0x2066...0x2069: return "contains a bidirectional override"
            case 0xFFFD: return "contains a replacement character (the name was not valid UTF-8)"
            default: continue
            }
        }
        if name.hasPrefix(" ") || name.hasSuffix(" ") || name.hasSuffix(".") {
            return "starts with a space or ends with a space or a dot"
        }
        return nil
    }

    public var description: String { rawValue }
    public static func < (lhs: CloudName, rhs: CloudName) -> Bool { lhs.rawValue < rhs.rawValue }
}
