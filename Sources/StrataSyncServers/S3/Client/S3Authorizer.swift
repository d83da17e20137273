import Foundation
import NIOHTTP1

/// Signs every attempt of an S3 request with Signature Version 4, at the time of the attempt
/// (a retry gets a fresh `x-amz-date`).
///
/// It signs `Host`, `x-amz-date`, `x-amz-content-sha256` (the body's SHA-256, computed once
/// when the request is built) and, when present, `Content-Type`, `Content-MD5` and `Range`;
/// the path and query are signed exactly as they are sent.
struct S3Authorizer: HTTPAuthorizer {
    let signer: SigV4Signer
    /// The `Host` header value (the bucket's virtual host, or the endpoint).
    let host: String

    /// The headers signed when a request carries them.
    static let optionalSignedHeaders = ["content-type", "content-md5", "range"]

    func authorize(_ request: inout HTTPRequest) async throws {
        let now = Date()
        let payloadHash = request.headers.first(name: "x-amz-content-sha256")
            ?? SigV4Signer.payloadHash(request.body ?? Data())
        request.headers.replaceOrAdd(name: "Host", value: host)
        request.headers.replaceOrAdd(name: "x-amz-date", value: SigV4Signer.amzDate(now))
        request.headers.replaceOrAdd(name: "x-amz-content-sha256", value: payloadHash)
        var signed: [(name: String, value: String)] = [
            ("host", host), ("x-amz-date", SigV4Signer.amzDate(now)), ("x-amz-content-sha256", payloadHash),
        ]
        for name in Self.optionalSignedHeaders {
            if let value = request.headers.first(name: name) { signed.append((name, value)) }
        }
        let sigv4 = SigV4Request(method: request.method, encodedPath: request.url.path(percentEncoded: true),
                                 query: Self.decodedQuery(request.url.query(percentEncoded: true)),
                                 headers: signed, payloadHash: payloadHash)
        request.headers.replaceOrAdd(name: "Authorization", value: signer.sign(sigv4, at: now).authorization)
    }

    func learn(from response: HTTPResponse) -> Bool { false }

    /// The query's names and values, decoded (the signer encodes them again, the same way the
    /// client did, so the signed and sent query agree).
    static func decodedQuery(_ query: String?) -> [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        return query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
            return (name, value)
        }
    }
}
