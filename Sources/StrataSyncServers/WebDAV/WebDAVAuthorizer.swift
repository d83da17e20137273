import Foundation
import NIOHTTP1
import Strata

/// Credentials for a WebDAV server: Basic on every request, until the server answers `401`
/// with a Digest challenge; from then on Digest (RFC 7616), counting nonce uses and taking a
/// new nonce when the server says the old one is stale.
///
/// The password never leaves this type except inside an `Authorization` header.
final class WebDAVAuthorizer: HTTPAuthorizer {
    private let username: String
    private let password: String
    private let digest = Locked<(challenge: DigestChallenge, count: Int)?>(nil)

    init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    func authorize(_ request: inout HTTPRequest) async throws {
        let state = digest.withLock { state -> (DigestChallenge, Int)? in
            guard var current = state else { return nil }
            current.count += 1
            state = current
            return (current.challenge, current.count)
        }
        request.headers.remove(name: "Authorization")
        if let (challenge, count) = state {
            var uri = request.url.path(percentEncoded: true)
            if uri.isEmpty { uri = "/" }
            if let query = request.url.query(percentEncoded: true) { uri += "?" + query }
            let clientNonce = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
            request.headers.add(name: "Authorization", value: challenge.authorization(
                username: username, password: password, method: request.method, uri: uri, nonceCount: count, clientNonce: clientNonce))
        } else {
            let token = Data("\(username):\(password)".utf8).base64EncodedString()
            request.headers.add(name: "Authorization", value: "Basic \(token)")
        }
    }

    func learn(from response: HTTPResponse) -> Bool {
        guard let challenge = DigestChallenge.best(in: response.headers["WWW-Authenticate"]) else { return false }
        return digest.withLock { state in
            // A new nonce, a stale one, or the first Digest challenge: worth one more try.
            // The same nonce refused again means the credentials are wrong.
            if let current = state, current.challenge.nonce == challenge.nonce, !challenge.stale { return false }
            state = (challenge, 0)
            return true
        }
    }
}

extension WebDAVAuthorizer: CustomReflectable, CustomStringConvertible {
    /// `dump(cloud)` and debuggers show the user name, never the password.
    var customMirror: Mirror { Mirror(self, children: ["username": username, "password": "(hidden)"]) }
    var description: String { "WebDAVAuthorizer(username: \(username.debugDescription), password: (hidden))" }
}
