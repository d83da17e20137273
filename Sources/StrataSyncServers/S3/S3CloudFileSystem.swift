public import Foundation

/// A `CloudFileSystem` in a bucket of an S3-compatible object store: AWS S3, MinIO,
/// Cloudflare R2, Backblaze B2, Ceph, moto.
///
/// Requests are signed with AWS Signature Version 4 and sent over AsyncHTTPClient with a
/// timeout on each, bounded retries with backoff for `5xx`, `429` and network errors, and no
/// retry for refused credentials (`SyncError/Code/authenticationFailed`).
///
/// **Paths and directories.** A `CloudPath` is a key under the optional `prefix`
/// (`prefix/MainStore/events/0001…`). S3 has no directories, so:
///
/// - a directory exists when some key starts with its name and `/`;
/// - ``createDirectory(at:)`` writes a zero-byte marker object `name/` for the directory and
///   each missing parent, so an empty directory exists and stays when its last file goes
///   (the choice most S3 tools make; the markers are never listed as entries);
/// - a file in the way of a directory, or a directory in the way of a file, is
///   `SyncError/Code/typeMismatch`, checked before writing, as in the other backends;
/// - listings use `ListObjectsV2` with the `/` delimiter, page by page (continuation tokens);
/// - removing a directory deletes every key under its prefix, a page of `DeleteObjects` at a
///   time; removing a missing item succeeds.
///
/// Uploads are single `PutObject`s, atomic in S3: a reader sees the old or the new object,
/// never half. Downloads are refused above ``limits``' `maxFileSize` from the answer's
/// `Content-Length`, before the body is read.
///
/// Requests per call: `upload` 3 (parent check, directory-in-the-way check, `PUT`);
/// `download` 1; `fileExists` 1 for a file, 2 otherwise; a listing 1 a page of 1 000 entries.
///
/// For example:
/// ```swift
/// let s3 = S3CloudFileSystem(endpoint: URL(string: "http://127.0.0.1:9000")!, bucket: "notes",
///                            region: "us-east-1", accessKeyID: "…", secretAccessKey: "…")
/// try await s3.connect()                      // the bucket exists and the keys work
/// let ensemble = Ensemble(store: store, cloud: s3, …)
/// ```
public struct S3CloudFileSystem: CloudFileSystem, CustomStringConvertible, CustomDebugStringConvertible {
    /// The caps this backend enforces.
    public let limits: CloudLimits
    /// The region requests are signed for.
    public let region: String

    /// The client, or why the configuration is unusable (thrown by every call).
    let configured: Result<S3Client, SyncError>
    /// How many keys one listing page asks for (S3's maximum is 1 000).
    var pageSize = 1_000

    /// A bucket on an S3-compatible server.
    ///
    /// - Parameters:
    ///   - endpoint: the server, without the bucket: `https://s3.eu-west-1.amazonaws.com`,
    ///     `http://127.0.0.1:9000` (MinIO), `https://<account>.r2.cloudflarestorage.com`,
    ///     `https://s3.us-west-004.backblazeb2.com`.
    ///   - bucket: the bucket name (it must exist; ``connect()`` checks).
    ///   - region: the region requests are signed for (`us-east-1` for MinIO and moto, `auto`
    ///     for R2, the bucket's region for AWS and B2).
    ///   - accessKeyID: the public half of the key pair.
    ///   - secretAccessKey: the secret half; it signs requests and is never sent, logged or
    ///     put in an error.
    ///   - addressing: path style (the default) or virtual host (AWS wants the latter).
    ///   - prefix: a key prefix inside the bucket that everything lives under (`""`: the
    ///     whole bucket), so several clouds can share one bucket.
    ///   - limits: the largest file and the longest listing accepted.
    ///   - policy: timeouts, retries and backoff of each request.
    ///
    /// A bad endpoint or bucket name does not throw here: every call then throws
    /// `SyncError/Code/notConnected` saying what is wrong, starting with ``connect()``.
    ///
    /// ```swift
    /// let r2 = S3CloudFileSystem(endpoint: URL(string: "https://ACCOUNT.r2.cloudflarestorage.com")!,
    ///                            bucket: "notes", region: "auto", accessKeyID: id, secretAccessKey: secret,
    ///                            prefix: "strata")
    /// ```
    public init(endpoint: URL, bucket: String, region: String, accessKeyID: String, secretAccessKey: String,
                addressing: S3Addressing = .pathStyle, prefix: String = "", limits: CloudLimits = .standard,
                policy: HTTPRequestPolicy = .standard) {
        self.limits = limits
        self.region = region
        let credentials = S3Credentials(accessKeyID: accessKeyID, secretAccessKey: secretAccessKey)
        do {
            let address = try S3Address(endpoint: endpoint, bucket: bucket, addressing: addressing, prefix: prefix)
            configured = .success(S3Client(address: address, credentials: credentials, region: region, policy: policy))
        } catch {
            configured = .failure(error)
        }
    }

    /// The bucket, endpoint, addressing and prefix in use, or `nil` when the configuration is
    /// unusable.
    public var address: S3Address? { try? configured.get().address }

    /// Requests, retries and bytes sent and received so far through this file system (and its
    /// copies, which share one connection pool).
    public var transferCounters: HTTPTransferCounters {
        (try? configured.get().transport.transferCounters) ?? HTTPTransferCounters()
    }

    /// Closes the connections; the file system cannot be used afterwards. Dropping the last
    /// copy closes them too.
    public func shutdown() async {
        if let client = try? configured.get() { await client.transport.shutdown() }
    }

    /// The bucket, endpoint and prefix; never the keys.
    public var description: String {
        switch configured {
        case .success(let client):
            let address = client.address
            let prefix = address.prefix.isEmpty ? "" : ", prefix: \(address.prefix)"
            return "S3CloudFileSystem(bucket: \(address.bucket), endpoint: \(address.endpoint.absoluteString)\(prefix), region: \(region))"
        case .failure(let error):
            return "S3CloudFileSystem(unusable: \(error.message))"
        }
    }

    public var debugDescription: String { description }

    var client: S3Client {
        get throws(SyncError) { try configured.get() }
    }

    /// Checks the bucket exists and the keys are accepted (`HeadBucket`).
    ///
    /// Throws `SyncError/Code/notConnected` for a missing bucket, a wrong endpoint or
    /// region, or an unusable configuration, and `SyncError/Code/authenticationFailed` for
    /// refused keys.
    public func connect() async throws {
        let client = try client
        let status = try await client.headBucket()
        if status == 404 {
            throw SyncError(.notConnected, "the bucket \(client.address.bucket.debugDescription) does not exist on \(client.address.endpoint.absoluteString)")
        }
    }

    /// Creates the bucket if it does not exist yet (for a test server or a first run against
    /// MinIO); succeeds when it is already yours.
    ///
    /// ```swift
    /// try await s3.createBucket()
    /// try await s3.connect()
    /// ```
    public func createBucket() async throws {
        try await client.createBucket(region: region)
    }
}
