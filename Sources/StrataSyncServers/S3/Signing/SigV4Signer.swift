import Crypto
import Foundation

/// AWS Signature Version 4 (`AWS4-HMAC-SHA256`): builds the canonical request, the string to
/// sign, the signing key (an HMAC-SHA256 chain over the date, region, service and
/// `aws4_request`) and the `Authorization` header.
///
/// It is checked against AWS's published test suite and the S3 documentation's examples
/// (`SigV4SignerTests`). The secret is only ever an HMAC key: it is not stored in any string
/// this type returns.
///
/// For example:
/// ```swift
/// let signer = SigV4Signer(credentials: keys, region: "us-east-1", service: "s3")
/// let parts = signer.sign(request, at: Date())
/// headers.add(name: "Authorization", value: parts.authorization)
/// ```
struct SigV4Signer: Sendable {
    /// The hex SHA-256 of an empty body.
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The outputs of one signing, each step kept so tests can compare them.
    struct Signature: Sendable {
        /// The canonical request (method, path, query, headers, signed header names, payload hash).
        var canonicalRequest: String
        /// `AWS4-HMAC-SHA256`, the time stamp, the scope and the canonical request's hash.
        var stringToSign: String
        /// The hex HMAC-SHA256 of the string to sign under the signing key.
        var signature: String
        /// The value of the `Authorization` header.
        var authorization: String
    }

    /// The key pair (its secret is never printed).
    let credentials: S3Credentials
    /// The region the request is for (`us-east-1`; `auto` for Cloudflare R2).
    let region: String
    /// The service name in the scope (`s3`).
    let service: String

    /// The hex SHA-256 of `data`, as `x-amz-content-sha256` and the canonical request want it.
    static func payloadHash(_ data: some DataProtocol) -> String {
        hex(SHA256.hash(data: data))
    }

    /// The `x-amz-date` form of `date`: `yyyyMMdd'T'HHmmss'Z'` in UTC.
    static func amzDate(_ date: Date) -> String {
        let style = Date.ISO8601FormatStyle(dateSeparator: .omitted, dateTimeSeparator: .standard,
                                            timeSeparator: .omitted, timeZone: TimeZone(secondsFromGMT: 0) ?? .gmt)
        return date.formatted(style)
    }

    /// Signs `request` at `date` (which must be the time in its `x-amz-date` header).
    func sign(_ request: SigV4Request, at date: Date) -> Signature {
        let timestamp = Self.amzDate(date)
        let day = String(timestamp.prefix(8))
        let scope = "\(day)/\(region)/\(service)/aws4_request"

        let (canonicalHeaders, signedHeaders) = Self.canonicalHeaders(request.headers)
        let canonicalRequest = [
            request.method.uppercased(),
            request.encodedPath.isEmpty ? "/" : request.encodedPath,
            request.canonicalQuery,
            canonicalHeaders,
            signedHeaders,
            request.payloadHash,
        ].joined(separator: "\n")

        let stringToSign = [
            "AWS4-HMAC-SHA256", timestamp, scope, Self.payloadHash(Data(canonicalRequest.utf8)),
        ].joined(separator: "\n")

        let key = signingKey(day: day)
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key))
        let authorization = "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), "
            + "SignedHeaders=\(signedHeaders), Signature=\(signature)"
        return Signature(canonicalRequest: canonicalRequest, stringToSign: stringToSign,
                         signature: signature, authorization: authorization)
    }

    /// The signing key of `day` (`yyyyMMdd`): HMAC("AWS4" + secret, day), then region,
    /// service and `aws4_request`.
    func signingKey(day: String) -> SymmetricKey {
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return key
    }

    /// The canonical header block (each `name:value` line with a trailing newline) and the
    /// signed header list: names lower-cased and sorted, values trimmed with inner runs of
    /// spaces collapsed, repeated names joined with commas in their order.
    static func canonicalHeaders(_ headers: [(name: String, value: String)]) -> (block: String, signed: String) {
        var grouped: [String: [String]] = [:]
        for (name, value) in headers {
            grouped[name.lowercased(), default: []].append(collapsingSpaces(value))
        }
        let names = grouped.keys.sorted()
        let block = names.map { "\($0):\(grouped[$0, default: []].joined(separator: ","))\n" }.joined()
        return (block, names.joined(separator: ";"))
    }

    private static func collapsingSpaces(_ value: String) -> String {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    /// Lower-case hex of `bytes`.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
