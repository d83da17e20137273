import Foundation

/// The order of strings by their UTF-8 bytes, which is SQLite's binary collation and the order
/// every peer writes keys and property names in (Swift's own `<` on `String` compares Unicode
/// scalars' canonical forms instead). Merges sort hundreds of thousands of keys, so native
/// strings are compared in place with `memcmp`; others byte by byte.
///
/// For example:
/// ```swift
/// UTF8Order.compare("Book", "Bookmark") < 0     // true: a prefix comes first
/// names.sorted(by: UTF8Order.precedes)
/// ```
enum UTF8Order {
    /// Negative when `a`'s bytes come first, 0 when equal, positive when `b`'s come first.
    static func compare(_ a: String, _ b: String) -> Int {
        let inPlace = a.utf8.withContiguousStorageIfAvailable { a in
            b.utf8.withContiguousStorageIfAvailable { b in compare(a, b) }
        }
        if let order = inPlace ?? nil { return order }
        if a.utf8.elementsEqual(b.utf8) { return 0 }
        return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
    }

    /// Whether `a`'s bytes come before `b`'s.
    static func precedes(_ a: String, _ b: String) -> Bool { compare(a, b) < 0 }

    private static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        // One string's storage (a decoded file shares an object's identifier between its records).
        if a.baseAddress == b.baseAddress && a.count == b.count { return 0 }
        let common = min(a.count, b.count)
        if common > 0, let first = a.baseAddress, let second = b.baseAddress {
            let order = memcmp(first, second, common)
            if order != 0 { return Int(order) }
        }
        return a.count - b.count
    }
}
