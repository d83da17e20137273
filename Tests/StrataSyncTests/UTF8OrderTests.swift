import StrataRandom
import Testing
@testable import StrataSync

@Suite("UTF-8 byte order of keys")
struct UTF8OrderTests {
    @Test("compare agrees with the byte-by-byte order, prefixes first, for ASCII and beyond")
    func agreesWithTheByteOrder() {
        var random = SplitMix64(seed: 8)
        let alphabet: [Character] = ["a", "b", "B", "z", "0", "é", "e\u{301}", "ß", "中", "😀", "\u{0}"]
        var strings = ["", "a", "ab", "abc", "b", "Book", "Bookmark", "é", "e\u{301}"]
        for _ in 0..<200 {
            strings.append(String((0..<Int(random.next() % 6)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }))
        }
        for a in strings {
            for b in strings {
                let expected = a.utf8.elementsEqual(b.utf8) ? 0 : (a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1)
                #expect(UTF8Order.compare(a, b).signum() == expected, "\(Array(a.utf8)) vs \(Array(b.utf8))")
                #expect(UTF8Order.precedes(a, b) == (expected < 0))
            }
        }
        // Canonically equal strings with different bytes are different keys, ordered by bytes.
        #expect(UTF8Order.compare("é", "e\u{301}") > 0)
        #expect(GlobalObjectKey(entity: "Book", gid: "b") < GlobalObjectKey(entity: "Bookmark", gid: "a"))
        #expect(GlobalObjectKey(entity: "Book", gid: "a") < GlobalObjectKey(entity: "Book", gid: "b"))
        #expect(!(GlobalObjectKey(entity: "Book", gid: "a") < GlobalObjectKey(entity: "Book", gid: "a")))
    }
}
