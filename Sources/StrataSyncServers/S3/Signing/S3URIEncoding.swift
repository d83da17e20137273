/// Percent-encoding as AWS Signature Version 4 and S3 want it ("UriEncode" in AWS's
/// documentation): every byte of the UTF-8 form is encoded as `%XX` (upper-case hex) except
/// the unreserved characters `A-Z a-z 0-9 - . _ ~`; a space is `%20`, never `+`.
///
/// S3 object keys are encoded once, segment by segment (the `/` between segments is kept),
/// and the same string is both sent and signed; query names and values are encoded whole.
///
/// For example:
/// ```swift
/// S3URIEncoding.encode("test$file.text")        // "test%24file.text"
/// S3URIEncoding.encodePath("a b/c")             // "a%20b/c"
/// ```
enum S3URIEncoding {
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// Whether `byte` is one of AWS's unreserved characters.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// `text` with every byte but the unreserved ones percent-encoded (`/` too).
    static func encode(_ text: String) -> String {
        encode(text, keepingSlash: false)
    }

    /// `text` encoded segment by segment: `/` stays, everything else as ``encode(_:)``.
    static func encodePath(_ text: String) -> String {
        encode(text, keepingSlash: true)
    }

    private static func encode(_ text: String, keepingSlash: Bool) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) || (keepingSlash && byte == UInt8(ascii: "/")) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
