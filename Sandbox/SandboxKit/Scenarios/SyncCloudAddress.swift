import Foundation
import StrataSync
import StrataSyncServers

/// Where a `sync` run's cloud is, in a form another process can read (JSON): enough to make
/// a client of the same folder or server. ``FirstSyncProbe`` hands it to its child process.
///
/// For example:
/// ```swift
/// let address = SyncCloudAddress.local(folder)
/// let cloud = address.makeCloudFileSystem()
/// ```
enum SyncCloudAddress: Codable, Sendable {
    case local(URL)
    case webdav(baseURL: URL, username: String, password: String)
    case s3(endpoint: URL, bucket: String, region: String, accessKeyID: String, secretAccessKey: String, prefix: String)

    /// A new client of the cloud.
    func makeCloudFileSystem() -> any CloudFileSystem {
        switch self {
        case .local(let folder):
            LocalCloudFileSystem(rootDirectory: folder)
        case .webdav(let baseURL, let username, let password):
            WebDAVCloudFileSystem(baseURL: baseURL, username: username, password: password)
        case .s3(let endpoint, let bucket, let region, let accessKeyID, let secretAccessKey, let prefix):
            S3CloudFileSystem(endpoint: endpoint, bucket: bucket, region: region, accessKeyID: accessKeyID,
                              secretAccessKey: secretAccessKey, prefix: prefix)
        }
    }
}
