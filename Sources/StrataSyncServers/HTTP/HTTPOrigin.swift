import Foundation

/// Scheme, host and port of a URL: credentials go only to the origin a request began with.
struct HTTPOrigin: Hashable, Sendable {
    var scheme: String
    var host: String
    var port: Int

    init(_ url: URL) {
        scheme = url.scheme?.lowercased() ?? ""
        host = url.host?.lowercased() ?? ""
        port = url.port ?? (scheme == "https" ? 443 : 80)
    }

    /// `url` as text without user information or query (which could hold secrets), for messages.
    static func redacted(_ url: URL) -> String {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return "(an unreadable URL)" }
        parts.user = nil
        parts.password = nil
        parts.query = nil
        parts.fragment = nil
        return parts.string ?? "(an unreadable URL)"
    }
}
