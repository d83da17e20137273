/// One entry of a directory listing.
///
/// Its name is a validated ``CloudName``: a backend leaves out of a listing any entry whose
/// name is unsafe (it could not be addressed by a ``CloudPath`` anyway), and never lists its
/// own temporary upload names.
///
/// For example:
/// ```swift
/// for item in try await cloud.contentsOfDirectory(at: events) where !item.isDirectory {
///     print(item.name, item.size)
/// }
/// ```
public struct CloudItem: Hashable, Sendable, CustomStringConvertible {
    /// The entry's name inside the listed directory.
    public var name: CloudName
    /// The size in bytes (0 for directories, and for backends that do not report one).
    public var size: Int
    /// Whether the entry is a directory.
    public var isDirectory: Bool

    /// Creates an entry.
    ///
    /// ```swift
    /// let item = CloudItem(name: try CloudName("events"), size: 0, isDirectory: true)
    /// ```
    public init(name: CloudName, size: Int, isDirectory: Bool) {
        self.name = name
        self.size = size
        self.isDirectory = isDirectory
    }

    public var description: String { isDirectory ? "\(name)/" : "\(name) (\(size) bytes)" }
}
