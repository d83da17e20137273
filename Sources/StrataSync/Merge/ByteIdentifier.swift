/// A global identifier as a set element: equal to another only when their UTF-8 bytes are,
/// as the state's SQLite keys are. Swift's `==` on strings takes canonically equivalent ones as
/// equal ("José" precomposed and decomposed), which name two objects (see ``GlobalObjectKey``).
///
/// For example:
/// ```swift
/// let members: Set<ByteIdentifier> = [ByteIdentifier("Jos\u{E9}"), ByteIdentifier("Jose\u{301}")]
/// members.count   // 2
/// ```
struct ByteIdentifier: Hashable, Sendable {
    let text: String

    init(_ text: String) { self.text = text }

    static func == (lhs: ByteIdentifier, rhs: ByteIdentifier) -> Bool { UTF8Order.compare(lhs.text, rhs.text) == 0 }

    func hash(into hasher: inout Hasher) { Self.combine(text, into: &hasher) }

    /// Feeds `text`'s UTF-8 bytes, then a byte no UTF-8 holds (so that ("ab", "c") and
    /// ("a", "bc") differ when several are combined).
    static func combine(_ text: String, into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(0xFF as UInt8)
    }
}
