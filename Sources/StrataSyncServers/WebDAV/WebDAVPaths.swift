import Foundation

/// Maps `CloudPath`s to URLs under a WebDAV base URL and back, refusing anything the
/// server names outside it.
///
/// Names are percent-encoded on the way out (everything but RFC 3986's unreserved
/// characters) and decoded on the way in. An `href` from the server is accepted only when it
/// resolves to the same scheme, host and port as the base URL, has no `.` or `..` segment
/// (encoded or not), and lies under the base URL's path.
struct WebDAVPaths: Sendable {
    /// The base URL as text, always ending in `/`.
    let base: String
    let baseURL: URL
    /// The base URL's path, decoded, segment by segment.
    let baseSegments: [String]
    let origin: HTTPOrigin

    init(baseURL: URL) {
        var text = baseURL.absoluteString
        if let query = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = String(text[..<query]) }
        if !text.hasSuffix("/") { text += "/" }
        base = text
        self.baseURL = URL(string: text) ?? baseURL
        origin = HTTPOrigin(self.baseURL)
        baseSegments = WebDAVPaths.decodedSegments(of: self.baseURL.path(percentEncoded: true)) ?? []
    }

    /// The URL of `path`; with `collection`, ending in `/` (what servers want for folders).
    func url(for path: CloudPath, collection: Bool = false) -> URL {
        var text = base + path.names.map { WebDAVPaths.encode($0.rawValue) }.joined(separator: "/")
        if collection && !path.isRoot { text += "/" }
        // Every character outside the unreserved set is percent-encoded, so this parses.
        return URL(string: text) ?? baseURL
    }

    /// The server's `href` as a path relative to the base: its decoded names, or `nil` when it
    /// points outside the base URL (another origin, a `.`/`..` segment, another prefix).
    func relativeNames(ofHref href: String, answering requestURL: URL) -> [String]? {
        let trimmed = href.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, let resolved = URL(string: trimmed, relativeTo: requestURL)?.absoluteURL else { return nil }
        guard HTTPOrigin(resolved) == origin else { return nil }
        // Segments of the href as the server wrote it (URL resolution would fold `..` away).
        let rawPath: String
        if trimmed.hasPrefix("/") {
            rawPath = String(trimmed.prefix { $0 != "?" && $0 != "#" })
        } else if trimmed.contains("://") {
            rawPath = resolved.path(percentEncoded: true)
            if trimmed.contains("/../") || trimmed.hasSuffix("/..") || trimmed.contains("/./") { return nil }
        } else {
            return nil  // a relative href: servers send absolute paths or URLs
        }
        guard let segments = WebDAVPaths.decodedSegments(of: rawPath),
              segments.count >= baseSegments.count, Array(segments.prefix(baseSegments.count)) == baseSegments else { return nil }
        return Array(segments.dropFirst(baseSegments.count))
    }

    /// The decoded, non-empty segments of a percent-encoded path; `nil` when one does not
    /// decode or is `.` or `..`.
    static func decodedSegments(of encodedPath: String) -> [String]? {
        var result: [String] = []
        for raw in encodedPath.split(separator: "/", omittingEmptySubsequences: true) {
            guard let decoded = String(raw).removingPercentEncoding else { return nil }
            if decoded == "." || decoded == ".." { return nil }
            result.append(decoded)
        }
        return result
    }

    /// `name` with every byte outside `A–Z a–z 0–9 - . _ ~` percent-encoded.
    static func encode(_ name: String) -> String {
        var out = ""
        out.reserveCapacity(name.utf8.count)
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return out
    }
}
