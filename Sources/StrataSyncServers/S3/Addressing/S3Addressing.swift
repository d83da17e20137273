/// How a bucket is named in a request's URL.
///
/// - ``pathStyle``: `http://host:port/bucket/key` — MinIO, Ceph, moto and most self-hosted
///   servers; also accepted by Cloudflare R2 and Backblaze B2.
/// - ``virtualHost``: `https://bucket.host/key` — what AWS wants (path style is deprecated
///   there) and what a bucket name with dots cannot use over TLS.
/// - ``virtualHostConnectingTo(_:)``: virtual-host names in the URL and the `Host` header, but
///   the connection goes to another host, as `curl --resolve` does: for a server on loopback
///   or in a test, where `bucket.host` has no DNS entry.
///
/// For example:
/// ```swift
/// let aws = S3CloudFileSystem(endpoint: URL(string: "https://s3.eu-west-1.amazonaws.com")!,
///                             bucket: "notes", region: "eu-west-1",
///                             accessKeyID: id, secretAccessKey: secret, addressing: .virtualHost)
/// ```
public enum S3Addressing: Sendable, Hashable {
    /// The bucket is the first path segment: `http://host:port/bucket/key`.
    case pathStyle
    /// The bucket is the first label of the host: `https://bucket.host/key`.
    case virtualHost
    /// Virtual-host addressing whose connections go to `host` (an address or name that
    /// resolves), keeping `bucket.host` in the `Host` header and the signature.
    case virtualHostConnectingTo(String)
}
