public import Foundation

/// A cloud file system that encrypts every file it writes to another one (a folder, a
/// WebDAV server, an S3 bucket) and checks every file it reads, with a key derived from a
/// password.
///
/// - **Scheme.** AES-256-GCM with a fresh random 96-bit nonce for every upload. The key comes
///   from the password through scrypt (``KeyDerivationCost``) and a random salt kept in a key
///   file at the root, `strata-encryption-key-<id>`, which also holds the scrypt parameters
///   and a key check, so a wrong password is `SyncError/Code/wrongPassword` at the first
///   call (``connect()`` for an ensemble), before anything is read or merged.
/// - **Integrity.** The file's cloud path is authenticated with its bytes: a file changed, cut
///   short, or moved or copied under another name is `SyncError/Code/corruptFile` (an
///   ensemble skips it and reports it in `SyncReport.skippedFiles`). A file of a later
///   format is `SyncError/Code/fromTheFuture`.
/// - **What stays readable.** File and directory names, sizes (each file is
///   ``overhead`` bytes longer than its contents), and when files are written. An ensemble's
///   names hold no user data: the ensemble's identifier, peer identifiers, counters and file
///   kinds.
/// - **Contract.** The whole `CloudFileSystem` contract holds through the wrapper: listings
///   give the plaintext size of each file, ``limits`` are the wrapped store's with the
///   overhead taken off `maxFileSize`, and errors are the wrapped store's `SyncError`s.
///   Names at the root starting with `strata-encryption-key-` are the key files': listings
///   leave them out and every call on them is refused (`SyncError/Code/unsafeName`).
///
/// The key is derived once per instance; keep one instance per cloud and password. Nothing
/// the wrapper logs, prints or throws holds the password or a key.
///
/// For example:
/// ```swift
/// let webdav = WebDAVCloudFileSystem(baseURL: url, username: "alice", password: "secret")
/// let sealed = EncryptedCloudFileSystem(wrapping: webdav, password: "correct horse")
/// let ensemble = try await Ensemble(identifier: "Notes", coordinator: coordinator, cloudFileSystem: sealed)
/// try await ensemble.attach()   // SyncError.wrongPassword if the cloud has another password
/// ```
public final class EncryptedCloudFileSystem: CloudFileSystem, CustomStringConvertible, CustomReflectable {
    /// The bytes each stored file has beyond its contents: a 13-byte header (magic, format
    /// version, key identifier), a 12-byte nonce and a 16-byte tag.
    public static let overhead = SealedFile.overhead
    /// The prefix of the key files' names at the root, reserved by the wrapper.
    public static let keyFilePrefix = EncryptionKeyFile.namePrefix

    /// The store the encrypted files are kept in.
    public let wrapped: any CloudFileSystem
    /// The wrapped store's limits, counted in plaintext: its `maxFileSize` less ``overhead``.
    public let limits: CloudLimits
    let keyring: EncryptionKeyring

    /// Encrypts what goes to `cloud` with a key derived from `password`.
    ///
    /// `cost` is used only if this instance creates the cloud's key file (the first peer);
    /// later peers use the cost written there. Nothing is read or derived until the first call.
    ///
    /// ```swift
    /// let sealed = EncryptedCloudFileSystem(wrapping: LocalCloudFileSystem(rootDirectory: folder),
    ///                                       password: "correct horse")
    /// ```
    public init(wrapping cloud: any CloudFileSystem, password: String, cost: KeyDerivationCost = .standard) {
        wrapped = cloud
        let inner = cloud.limits
        limits = CloudLimits(maxFileSize: inner.maxFileSize - Self.overhead, maxListingCount: inner.maxListingCount)
        keyring = EncryptionKeyring(cloud: cloud, password: EncryptionPassword(password), cost: cost)
    }

    /// Connects the wrapped store, then lists the key files: creates one on an empty cloud,
    /// opens those not opened yet (`SyncError/Code/wrongPassword` if the password does not
    /// open one) and picks the key new files are sealed with.
    public func connect() async throws {
        try await wrapped.connect()
        try await keyring.refresh()
    }

    public func fileExists(at path: CloudPath) async throws -> (exists: Bool, isDirectory: Bool) {
        try refuseReserved(path)
        try await keyring.ready()
        return try await wrapped.fileExists(at: path)
    }

    public func contentsOfDirectory(at path: CloudPath) async throws -> [CloudItem] {
        try refuseReserved(path)
        try await keyring.ready()
        let items = try await wrapped.contentsOfDirectory(at: path)
        return items.compactMap { item in
            if path.isRoot && item.name.rawValue.hasPrefix(Self.keyFilePrefix) { return nil }
            guard !item.isDirectory else { return item }
            // A file shorter than the overhead is damaged: listed as empty, refused when read.
            return CloudItem(name: item.name, size: max(0, item.size - Self.overhead), isDirectory: false)
        }
    }

    public func createDirectory(at path: CloudPath) async throws {
        try refuseReserved(path)
        try await keyring.ready()
        try await wrapped.createDirectory(at: path)
    }

    public func upload(_ data: Data, to path: CloudPath) async throws {
        try refuseReserved(path)
        if path.isRoot { throw SyncError(.unsafeName, "cannot upload to the root", path: path.rawValue) }
        if data.count > limits.maxFileSize {
            throw SyncError(.tooLarge, "\(data.count) bytes is above the limit of \(limits.maxFileSize)", path: path.rawValue)
        }
        let key = try await keyring.sealingKey()
        try await wrapped.upload(try SealedFile.seal(data, path: path, keyID: key.id, key: key.key), to: path)
    }

    public func download(from path: CloudPath) async throws -> Data {
        try refuseReserved(path)
        try await keyring.ready()
        let sealed = try await wrapped.download(from: path)
        let id = try SealedFile.keyID(of: sealed, path: path)
        let key = try await keyring.openingKey(for: id, path: path)
        return try SealedFile.open(sealed, path: path, key: key)
    }

    public func removeItem(at path: CloudPath) async throws {
        try refuseReserved(path)
        try await keyring.ready()
        try await wrapped.removeItem(at: path)
    }

    /// Refuses the key files' names at the root, and anything below them.
    private func refuseReserved(_ path: CloudPath) throws(SyncError) {
        if let first = path.names.first, first.rawValue.hasPrefix(Self.keyFilePrefix) {
            throw SyncError(.unsafeName, "names starting with \(Self.keyFilePrefix) at the root are reserved for encryption key files",
                            path: path.rawValue)
        }
    }

    /// Names the wrapped store's type only (its own description may hold credentials).
    public var description: String { "EncryptedCloudFileSystem(wrapping: \(type(of: wrapped)))" }
    /// The wrapped store's type and the limits; never the password, the keys, or the wrapped
    /// store's fields.
    public var customMirror: Mirror {
        Mirror(self, children: ["wrapped": String(describing: type(of: wrapped)), "limits": limits])
    }
}
