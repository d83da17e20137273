import Crypto
import Foundation
import NIOHTTP1

/// The S3 calls ``S3CloudFileSystem`` is built from: each one builds the URL from the
/// ``S3Address``, signs every attempt (``S3Authorizer``) and sends it through the shared
/// ``HTTPTransport`` (timeouts, retries of `5xx`/`429`/network errors, counters).
///
/// Answers in `3xx`/`4xx` come back here instead of being mapped by the transport, so S3's
/// `<Error><Code>` decides the typed error (``S3ServiceError/syncError(path:)``): a
/// `NoSuchBucket` is not a missing file, and `SignatureDoesNotMatch` is never retried.
struct S3Client: Sendable {
    let address: S3Address
    let transport: HTTPTransport
    let authorizer: S3Authorizer

    /// The statuses returned to the S3 code rather than mapped by the transport: every
    /// `3xx` and `4xx` except the retryable `408`, `425` and `429`.
    static let passStatuses: Set<Int> = Set(300..<500).subtracting([408, 425, 429])

    init(address: S3Address, credentials: S3Credentials, region: String, policy: HTTPRequestPolicy) {
        self.address = address
        self.transport = HTTPTransport(policy: policy)
        self.authorizer = S3Authorizer(signer: SigV4Signer(credentials: credentials, region: region, service: "s3"),
                                       host: address.hostHeader)
    }

    // MARK: Sending

    /// Sends one request and returns its answer: `2xx`, or one of `accepting` (say `404` for a
    /// `HEAD`); any other status throws the typed error of its S3 error document.
    func send(_ method: String, key: String?, query: [(name: String, value: String)] = [],
              headers: [(name: String, value: String)] = [], body: Data? = nil,
              maxResponseBytes: Int = 16 << 20, accepting: Set<Int> = [], cloudPath: String? = nil) async throws -> HTTPResponse {
        let encodedPath = key.map { address.objectPath(key: $0) } ?? address.bucketPath
        let encodedQuery = SigV4Request(method: method, encodedPath: encodedPath, query: query, headers: [], payloadHash: "")
            .canonicalQuery
        let text = address.url(encodedPath: encodedPath, encodedQuery: encodedQuery)
        guard let url = URL(string: text) else {
            throw SyncError(.unsafeName, "the key cannot be put in a URL", path: cloudPath)
        }
        var request = HTTPRequest(method, url, cloudPath: cloudPath)
        request.followsRedirects = false
        request.passStatuses = Self.passStatuses
        request.maxResponseBytes = maxResponseBytes
        request.body = body
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.headers.replaceOrAdd(name: "x-amz-content-sha256", value: SigV4Signer.payloadHash(body ?? Data()))
        let response = try await transport.send(request, authorizer: authorizer)
        if (200..<300).contains(response.status) || accepting.contains(response.status) { return response }
        throw error(for: response, cloudPath: cloudPath)
    }

    /// The typed error of a failing answer; a region redirect says which region to use.
    func error(for response: HTTPResponse, cloudPath: String?) -> SyncError {
        let failure = S3ServiceError(status: response.status, body: response.body)
        if (300..<400).contains(response.status) {
            let region = response.headers.first(name: "x-amz-bucket-region").map { " (the bucket is in region \($0))" } ?? ""
            return SyncError(.notConnected, "the server redirected the request\(region): check the endpoint, the region and the addressing (S3 \(failure.summary))",
                             path: cloudPath, underlying: failure)
        }
        return failure.syncError(path: cloudPath)
    }

    // MARK: Calls

    /// `HeadBucket`: the status (200, 404, …); authentication failures throw.
    func headBucket() async throws -> Int {
        try await send("HEAD", key: nil, accepting: [404]).status
    }

    /// `CreateBucket`; succeeds when the bucket is already ours.
    func createBucket(region: String) async throws {
        var body: Data?
        if region != "us-east-1" && !region.isEmpty {
            body = Data(#"<CreateBucketConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><LocationConstraint>\#(S3DeleteBatch.escaped(region))</LocationConstraint></CreateBucketConfiguration>"#.utf8)
        }
        let response = try await send("PUT", key: nil, body: body, accepting: [409])
        if response.status == 409 {
            let failure = S3ServiceError(status: 409, body: response.body)
            if failure.code != "BucketAlreadyOwnedByYou" { throw failure.syncError() }
        }
    }

    /// `HeadObject`: the object's size, or `nil` when there is no object with this key.
    func headObject(key: String, cloudPath: String?) async throws -> Int? {
        let response = try await send("HEAD", key: key, accepting: [404], cloudPath: cloudPath)
        if response.status == 404 { return nil }
        return response.headers.first(name: "Content-Length").flatMap(Int.init) ?? 0
    }

    /// `GetObject`: the whole body, or `nil` for a missing object; `tooLarge` above `maxBytes`
    /// (from the `Content-Length` before the body is read, or while reading it).
    func getObject(key: String, maxBytes: Int, cloudPath: String?) async throws -> Data? {
        let response = try await send("GET", key: key, maxResponseBytes: maxBytes, accepting: [404], cloudPath: cloudPath)
        if response.status == 404 {
            let failure = S3ServiceError(status: 404, body: response.body)
            if failure.code == "NoSuchBucket" { throw failure.syncError(path: cloudPath) }
            return nil
        }
        return response.body
    }

    /// `PutObject`: one atomic whole-object write.
    func putObject(key: String, data: Data, cloudPath: String?) async throws {
        _ = try await send("PUT", key: key, headers: [("Content-Type", "application/octet-stream")], body: data,
                           cloudPath: cloudPath)
    }

    /// `DeleteObject`; S3 answers success for a missing key too.
    func deleteObject(key: String, cloudPath: String?) async throws {
        _ = try await send("DELETE", key: key, accepting: [404], cloudPath: cloudPath)
    }

    /// `DeleteObjects` for up to 1 000 keys; throws when the server could not delete one.
    func deleteObjects(keys: [String], cloudPath: String?) async throws {
        guard !keys.isEmpty else { return }
        let body = S3DeleteBatch.body(keys: keys)
        let md5 = Data(Insecure.MD5.hash(data: body)).base64EncodedString()
        let response = try await send("POST", key: nil, query: [("delete", "")],
                                      headers: [("Content-Type", "application/xml"), ("Content-MD5", md5)],
                                      body: body, cloudPath: cloudPath)
        let failures = try S3DeleteBatch.failures(in: response.body)
        if let first = failures.first {
            throw SyncError(.backendFailure, "the server could not delete \(failures.count) object(s), the first \(first.key.debugDescription) (\(first.code))",
                            path: cloudPath)
        }
    }

    /// One `ListObjectsV2` page under `prefix`, keys URL-encoded in the answer.
    func listPage(prefix: String, delimiter: String?, continuationToken: String?, maxKeys: Int?,
                  cloudPath: String?) async throws -> S3ListPage {
        var query: [(name: String, value: String)] = [("list-type", "2"), ("prefix", prefix), ("encoding-type", "url")]
        if let delimiter { query.append(("delimiter", delimiter)) }
        if let continuationToken { query.append(("continuation-token", continuationToken)) }
        if let maxKeys { query.append(("max-keys", String(maxKeys))) }
        let response = try await send("GET", key: nil, query: query, cloudPath: cloudPath)
        return try S3ListPage(parsing: response.body)
    }

    /// Whether any object's key starts with `prefix` (one page of one key).
    func hasObjects(under prefix: String, cloudPath: String?) async throws -> Bool {
        let page = try await listPage(prefix: prefix, delimiter: nil, continuationToken: nil, maxKeys: 1, cloudPath: cloudPath)
        return !page.objects.isEmpty || !page.commonPrefixes.isEmpty
    }
}
