/// An HTTP request as AWS Signature Version 4 sees it: what the signer reads to build the
/// canonical request.
///
/// The path is the one sent on the wire, already URI-encoded (for S3, each key segment
/// encoded once with ``S3URIEncoding``); query parameters are given raw and the signer
/// encodes and sorts them; every header given is signed.
///
/// For example:
/// ```swift
/// var request = SigV4Request(method: "GET", encodedPath: "/", query: [("list-type", "2")],
///                            headers: [("Host", "examplebucket.s3.amazonaws.com")],
///                            payloadHash: SigV4Signer.emptyPayloadHash)
/// ```
struct SigV4Request: Sendable {
    /// The HTTP method, upper case (`GET`, `PUT`, …).
    var method: String
    /// The path as sent, starting with `/`, already percent-encoded.
    var encodedPath: String
    /// The query parameters, not encoded, in any order (a flag such as `lifecycle` has an empty value).
    var query: [(name: String, value: String)]
    /// The headers to sign, in any order and case; a name given twice is signed as one
    /// comma-joined value, in the order given.
    var headers: [(name: String, value: String)]
    /// The hex SHA-256 of the body (``SigV4Signer/emptyPayloadHash`` for none), or
    /// `UNSIGNED-PAYLOAD`.
    var payloadHash: String

    /// The canonical query string: names and values encoded, sorted by name then value.
    ///
    /// ```swift
    /// // [("prefix", "J"), ("max-keys", "2")] → "max-keys=2&prefix=J"
    /// ```
    var canonicalQuery: String {
        query.map { (S3URIEncoding.encode($0.name), S3URIEncoding.encode($0.value)) }
            .sorted { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }
}
