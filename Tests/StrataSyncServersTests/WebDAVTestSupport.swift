import Foundation
import StrataSyncServers
import StrataTestServers

/// A WebDAV cloud in a fresh folder of the shared nginx.
func makeWebDAVCloud(limits: CloudLimits = .standard, policy: HTTPRequestPolicy = .standard, password: String? = nil) throws -> WebDAVCloudFileSystem {
    let server = try WebDAVTestServer.shared()
    return WebDAVCloudFileSystem(baseURL: try server.makeFolder(), username: server.username,
                                 password: password ?? server.password, limits: limits, policy: policy)
}

/// Quick retries, so fault tests do not wait long.
let quickPolicy = HTTPRequestPolicy(timeout: .seconds(10), maxAttempts: 4, backoffBase: .milliseconds(20), backoffCap: .milliseconds(100))

/// The `SyncError` code `body` threw, or `nil`.
func syncErrorCode(_ body: () async throws -> Void) async -> SyncError.Code? {
    do { try await body(); return nil } catch let error as SyncError { return error.code } catch { return nil }
}

func path(_ text: String) throws -> CloudPath { try CloudPath(text) }

/// A 207 answer with these `(href, isCollection, size)` responses.
func multistatus(_ entries: [(String, Bool, Int)]) -> String {
    var xml = #"<?xml version="1.0" encoding="utf-8"?><D:multistatus xmlns:D="DAV:">"#
    for (href, collection, size) in entries {
        xml += "<D:response><D:href>\(href)</D:href><D:propstat><D:prop>"
        xml += collection ? "<D:resourcetype><D:collection/></D:resourcetype>" : "<D:resourcetype/><D:getcontentlength>\(size)</D:getcontentlength>"
        xml += "</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>"
    }
    return xml + "</D:multistatus>"
}
