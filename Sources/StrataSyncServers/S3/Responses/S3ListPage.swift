import Foundation

/// One page of a `ListObjectsV2` answer: the objects (`Contents`), the common prefixes of a
/// delimited listing (`CommonPrefixes`), and the continuation token of the next page when the
/// answer is truncated.
///
/// Keys are given as the server sent them, decoded from `%XX` when the answer says
/// `<EncodingType>url</EncodingType>` (the listing asks for it, so keys with characters XML
/// cannot hold still list).
///
/// For example:
/// ```swift
/// let page = try S3ListPage(parsing: body)
/// for object in page.objects { print(object.key, object.size) }
/// if page.isTruncated { token = page.nextContinuationToken }
/// ```
struct S3ListPage: Sendable, Equatable {
    /// One object of the page.
    struct Object: Sendable, Equatable {
        /// The full key, decoded.
        var key: String
        /// The size in bytes.
        var size: Int
    }

    /// The objects, in the server's (UTF-8 binary) order.
    var objects: [Object] = []
    /// The common prefixes (each ends with the delimiter), decoded.
    var commonPrefixes: [String] = []
    /// Whether more pages follow.
    var isTruncated = false
    /// The token that asks for the next page, when truncated.
    var nextContinuationToken: String?

    /// Parses a `ListBucketResult` body. Throws `SyncError.backendFailure` when it is not one
    /// (not XML, another root, a size that is not a number, a truncated page without a token).
    init(parsing data: Data) throws(SyncError) {
        let root = try S3XMLElement.parse(data, what: "listing")
        guard root.name == "ListBucketResult" else {
            throw SyncError(.backendFailure, "the server's listing is a <\(root.name)>, not a <ListBucketResult>")
        }
        let urlEncoded = root.child("EncodingType")?.trimmedText == "url"
        func decoded(_ text: String) throws(SyncError) -> String {
            guard urlEncoded else { return text }
            // AWS writes a space as `+` (and `+` as `%2B`); others write `%20`: both decode here.
            guard let plain = text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding else {
                throw SyncError(.backendFailure, "the server's listing holds a key that is not valid URL encoding")
            }
            return plain
        }
        for contents in root.children(named: "Contents") {
            guard let key = contents.child("Key")?.text else {
                throw SyncError(.backendFailure, "the server's listing has an object without a <Key>")
            }
            let sizeText = contents.child("Size")?.trimmedText ?? "0"
            guard let size = Int(sizeText), size >= 0 else {
                throw SyncError(.backendFailure, "the server's listing has an object whose <Size> is \(sizeText.debugDescription)")
            }
            objects.append(Object(key: try decoded(key), size: size))
        }
        for common in root.children(named: "CommonPrefixes") {
            if let prefix = common.child("Prefix")?.text { commonPrefixes.append(try decoded(prefix)) }
        }
        isTruncated = root.child("IsTruncated")?.trimmedText.lowercased() == "true"
        if let token = root.child("NextContinuationToken")?.text, !token.isEmpty { nextContinuationToken = token }
        if isTruncated && nextContinuationToken == nil {
            throw SyncError(.backendFailure, "the server's listing is truncated but gives no <NextContinuationToken>")
        }
    }

    /// A page built directly (tests).
    init(objects: [Object] = [], commonPrefixes: [String] = [], isTruncated: Bool = false, nextContinuationToken: String? = nil) {
        self.objects = objects
        self.commonPrefixes = commonPrefixes
        self.isTruncated = isTruncated
        self.nextContinuationToken = nextContinuationToken
    }
}

extension S3XMLElement {
    /// The text without leading and trailing white space.
    var trimmedText: String { text.trimmingCharacters(in: .whitespacesAndNewlines) }
}
