import Crypto
import Foundation

/// An HTTP Digest challenge (RFC 7616) and the `Authorization` answer to it, with `qop=auth`
/// (or none, RFC 2069 style), MD5 or SHA-256, and their `-sess` variants.
///
/// ```swift
/// let challenge = DigestChallenge.parse(response.headers["WWW-Authenticate"])
/// let header = challenge?.authorization(username: "alice", password: "secret", method: "GET",
///                                       uri: "/dav/file", nonceCount: 1, clientNonce: "0a4f113b")
/// ```
struct DigestChallenge: Sendable, Equatable {
    enum Algorithm: String, Sendable {
        case md5 = "MD5", md5Session = "MD5-sess", sha256 = "SHA-256", sha256Session = "SHA-256-sess"

        var isSession: Bool { self == .md5Session || self == .sha256Session }
        /// Preference when a server offers several: SHA-256 first.
        var rank: Int { self == .sha256 || self == .sha256Session ? 1 : 0 }

        func hash(_ text: String) -> String {
            let data = Data(text.utf8)
            switch self {
            case .md5, .md5Session: return Insecure.MD5.hash(data: data).map { String(format: "%02x", $0) }.joined()
            case .sha256, .sha256Session: return SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
            }
        }
    }

    var realm: String
    var nonce: String
    var opaque: String?
    var algorithm: Algorithm
    /// Whether the server offered `qop=auth` (answered with `qop=auth, nc, cnonce`).
    var qopAuth: Bool
    /// Whether the server said the previous nonce is stale (the credentials were right).
    var stale: Bool

    /// The best Digest challenge among `WWW-Authenticate` header values (SHA-256 over MD5),
    /// or `nil` when none is a Digest challenge this client can answer (an unknown algorithm,
    /// or `qop=auth-int` only).
    static func best(in headerValues: [String]) -> DigestChallenge? {
        let all = headerValues.flatMap { challenges(in: $0) }
        return all.max { $0.algorithm.rank < $1.algorithm.rank }
    }

    /// The Digest challenges of one header value (several may be listed, comma-separated).
    static func challenges(in header: String) -> [DigestChallenge] {
        var result: [DigestChallenge] = []
        for (scheme, parameters) in parseChallenges(header) where scheme.lowercased() == "digest" {
            guard let realm = parameters["realm"], let nonce = parameters["nonce"] else { continue }
            let algorithmName = parameters["algorithm"] ?? "MD5"
            guard let algorithm = Algorithm.allCases.first(where: { $0.rawValue.lowercased() == algorithmName.lowercased() }) else { continue }
            let qops = (parameters["qop"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            if !qops.isEmpty && !qops.contains("auth") { continue }
            result.append(DigestChallenge(realm: realm, nonce: nonce, opaque: parameters["opaque"], algorithm: algorithm,
                                          qopAuth: qops.contains("auth"), stale: parameters["stale"]?.lowercased() == "true"))
        }
        return result
    }

    /// The `Authorization` header value for one request.
    func authorization(username: String, password: String, method: String, uri: String, nonceCount: Int, clientNonce: String) -> String {
        let nc = String(format: "%08x", nonceCount)
        let response = self.response(username: username, password: password, method: method, uri: uri, nc: nc, clientNonce: clientNonce)
        var fields = ["username=\(quoted(username))", "realm=\(quoted(realm))", "uri=\(quoted(uri))",
                      "algorithm=\(algorithm.rawValue)", "nonce=\(quoted(nonce))"]
        if qopAuth { fields += ["nc=\(nc)", "cnonce=\(quoted(clientNonce))", "qop=auth"] }
        fields.append("response=\(quoted(response))")
        if let opaque { fields.append("opaque=\(quoted(opaque))") }
        return "Digest " + fields.joined(separator: ", ")
    }

    /// The `response` parameter: `H(HA1:nonce:nc:cnonce:qop:HA2)`, or `H(HA1:nonce:HA2)` without qop.
    func response(username: String, password: String, method: String, uri: String, nc: String, clientNonce: String) -> String {
        var ha1 = algorithm.hash("\(username):\(realm):\(password)")
        if algorithm.isSession { ha1 = algorithm.hash("\(ha1):\(nonce):\(clientNonce)") }
        let ha2 = algorithm.hash("\(method):\(uri)")
        if qopAuth { return algorithm.hash("\(ha1):\(nonce):\(nc):\(clientNonce):auth:\(ha2)") }
        return algorithm.hash("\(ha1):\(nonce):\(ha2)")
    }

    private func quoted(_ value: String) -> String {
        "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// Splits a `WWW-Authenticate` value into challenges: a scheme and its `key=value`
    /// parameters (values quoted or tokens; quoted values may hold commas and escapes).
    static func parseChallenges(_ header: String) -> [(String, [String: String])] {
        var result: [(String, [String: String])] = []
        let characters = Array(header)
        var index = 0
        func skipSpaces() { while index < characters.count, characters[index] == " " || characters[index] == "\t" || characters[index] == "," { index += 1 } }
        func token() -> String {
            var out = ""
            while index < characters.count, !" \t,=\"".contains(characters[index]) { out.append(characters[index]); index += 1 }
            return out
        }
        while index < characters.count {
            skipSpaces()
            let scheme = token()
            if scheme.isEmpty { index += 1; continue }
            var parameters: [String: String] = [:]
            while index < characters.count {
                skipSpaces()
                let start = index
                let key = token()
                var probe = index
                while probe < characters.count, characters[probe] == " " { probe += 1 }
                guard !key.isEmpty, probe < characters.count, characters[probe] == "=" else { index = start; break }
                index = probe + 1
                while index < characters.count, characters[index] == " " { index += 1 }
                var value = ""
                if index < characters.count, characters[index] == "\"" {
                    index += 1
                    while index < characters.count, characters[index] != "\"" {
                        if characters[index] == "\\", index + 1 < characters.count { index += 1 }
                        value.append(characters[index])
                        index += 1
                    }
                    index += 1
                } else {
                    value = token()
                }
                parameters[key.lowercased()] = value
            }
            result.append((scheme, parameters))
        }
        return result
    }
}

extension DigestChallenge.Algorithm: CaseIterable {}
