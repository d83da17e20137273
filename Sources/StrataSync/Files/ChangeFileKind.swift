/// What a change file holds: events, a baseline, a blob, or a kind a later version adds.
///
/// The kind is part of the file's name and of its header, so a listing tells what each file
/// holds without downloading it. A kind is 1 to 16 lowercase ASCII letters and digits,
/// starting with a letter.
///
/// For example:
/// ```swift
/// let kind = ChangeFileKind.events
/// let custom = try ChangeFileKind("snapshot2")
/// ```
public struct ChangeFileKind: Hashable, Sendable, CustomStringConvertible {
    /// The longest kind, in characters.
    public static let maxLength = 16

    /// The kind's name; always valid.
    public let rawValue: String

    /// Changes a peer saved (the content is defined by the event format).
    public static let events = ChangeFileKind(validated: "events")
    /// A compacted state that replaces the events before it.
    public static let baseline = ChangeFileKind(validated: "baseline")
    /// One large attribute value, travelling apart from the events that refer to it.
    public static let blob = ChangeFileKind(validated: "blob")

    /// Validates `rawValue`; throws ``SyncError/Code/unsafeName`` if it is not a kind.
    ///
    /// ```swift
    /// _ = try? ChangeFileKind("Events_1")   // throws: uppercase and '_'
    /// ```
    public init(_ rawValue: String) throws(SyncError) {
        let bytes = Array(rawValue.utf8)
        let valid = !bytes.isEmpty && bytes.count <= ChangeFileKind.maxLength
            && (0x61...0x7A).contains(bytes[0])
            && bytes.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }
        guard valid else {
            throw SyncError(.unsafeName, "not a change-file kind (1 to \(ChangeFileKind.maxLength) lowercase letters and digits)", path: rawValue)
        }
        self.rawValue = rawValue
    }

    private init(validated: String) { rawValue = validated }

    public var description: String { rawValue }
}
