import StrataRandom
import Testing
@testable import Strata

@Suite("Strict UTF-8 decoding of stored strings")
struct StrictUTF8Tests {
    func decode(_ bytes: [UInt8]) -> String? { bytes.withUnsafeBufferPointer { StrictUTF8.string($0) } }

    @Test("valid UTF-8 comes back as it is; what the decoder would repair is nil")
    func validTextOnlyAndNothingRepaired() {
        for text in ["", "a", "Book", "é", "e\u{301}", "中文", "😀", "a\u{0}b", String(repeating: "ß", count: 300)] {
            #expect(decode(Array(text.utf8)) == text)
        }
        let invalid: [[UInt8]] = [
            [0x80],                    // a lone continuation byte
            [0xC3],                    // a truncated two-byte sequence
            [0xE2, 0x82],              // a truncated three-byte sequence (repaired into as many bytes)
            [0xC0, 0xAF],              // an overlong "/"
            [0xED, 0xA0, 0x80],        // a UTF-16 surrogate
            [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
            [0xFF], [0x61, 0xFE, 0x62],
        ]
        for bytes in invalid { #expect(decode(bytes) == nil, "\(bytes)") }
    }

    @Test("agrees with the standard library's String(validating:) on random bytes")
    func agreesWithTheStandardLibrary() {
        var random = SplitMix64(seed: 77)
        let pieces: [[UInt8]] = [[0x61], [0xC3, 0xA9], [0xE4, 0xB8, 0xAD], [0xF0, 0x9F, 0x98, 0x80], [0x80], [0xC3], [0xED, 0xA0, 0x80], [0xFF]]
        for _ in 0..<2_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(random.next() % 8) { bytes += pieces[Int(random.next() % UInt64(pieces.count))] }
            #expect(decode(bytes) == String(validating: bytes, as: UTF8.self), "\(bytes)")
        }
    }
}
