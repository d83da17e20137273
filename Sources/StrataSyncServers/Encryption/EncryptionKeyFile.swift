import Crypto
import CryptoExtras
import Foundation
import StrataSync

/// One key file at the root of an encrypted cloud, `strata-encryption-key-<id>`: what a peer
/// needs, with the password, to derive the key that files naming `<id>` are sealed with.
///
/// | bytes      | field                                                              |
/// |------------|--------------------------------------------------------------------|
/// | 0..<4      | magic `SKEY`                                                       |
/// | 4          | format version (1)                                                 |
/// | 5          | key derivation function (1: scrypt)                                |
/// | 6, 7, 8    | log₂ N, r, p                                                       |
/// | 9..<17     | the key's ``EncryptionKeyID`` (the same as in the name)            |
/// | 17..<49    | salt (256 random bits)                                             |
/// | 49..<93    | key check: AES-GCM nonce, 16 sealed zero bytes, tag                |
/// | 93..<109   | checksum: the first 16 bytes of SHA-256 of bytes 0..<93            |
///
/// scrypt turns the password and salt into 32 bytes; HKDF-SHA-256 splits them into the file
/// key and the check key. The key check is sealed with the check key, authenticating bytes
/// 0..<49, so a wrong password fails to open it (`SyncError/Code/wrongPassword`) while a
/// damaged file fails the unkeyed checksum first (`SyncError/Code/corruptFile`).
struct EncryptionKeyFile: Sendable {
    static let namePrefix = "strata-encryption-key-"
    static let magic: [UInt8] = Array("SKEY".utf8)
    static let formatVersion: UInt8 = 1
    static let scrypt: UInt8 = 1
    static let saltSize = 32
    static let bodySize = 49
    static let checkSize = 12 + 16 + 16
    static let checksumSize = 16
    static let size = bodySize + checkSize + checksumSize

    let id: EncryptionKeyID
    let cost: KeyDerivationCost
    let salt: [UInt8]
    /// The whole file.
    let encoded: Data

    /// The file name for `id`.
    static func name(for id: EncryptionKeyID) -> String { namePrefix + id.hex }

    /// The identifier in a key file's name, or `nil` when `name` is not one.
    static func id(inName name: String) -> EncryptionKeyID? {
        guard name.hasPrefix(namePrefix) else { return nil }
        return EncryptionKeyID(hex: name.dropFirst(namePrefix.count))
    }

    /// A new key file with a random salt, and its file key.
    static func create(id: EncryptionKeyID, cost: KeyDerivationCost, password: EncryptionPassword) throws(SyncError) -> (EncryptionKeyFile, SymmetricKey) {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<saltSize).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        var body = magic + [formatVersion, scrypt, UInt8(cost.log2Rounds), UInt8(cost.blockSize), UInt8(cost.parallelism)]
        body += id.bytes + salt
        let keys = try derive(password, salt: salt, cost: cost)
        let check: AES.GCM.SealedBox
        do { check = try AES.GCM.seal(Data(count: 16), using: keys.check, nonce: AES.GCM.Nonce(), authenticating: body) } catch {
            throw SyncError(.backendFailure, "the key check could not be sealed", underlying: error)
        }
        var file = Data(body)
        file.append(contentsOf: check.nonce)
        file.append(check.ciphertext)
        file.append(check.tag)
        file.append(contentsOf: SHA256.hash(data: file).prefix(checksumSize))
        return (EncryptionKeyFile(id: id, cost: cost, salt: salt, encoded: file), keys.file)
    }

    private init(id: EncryptionKeyID, cost: KeyDerivationCost, salt: [UInt8], encoded: Data) {
        self.id = id
        self.cost = cost
        self.salt = salt
        self.encoded = encoded
    }

    /// Reads a key file stored at `path`, checking its format, checksum, parameters, and that
    /// its name names its identifier.
    init(parsing data: Data, path: CloudPath) throws(SyncError) {
        let bytes = [UInt8](data)
        guard bytes.count >= Self.magic.count + 1, bytes.starts(with: Self.magic) else {
            throw SyncError(.corruptFile, "not an encryption key file", path: path.rawValue)
        }
        let version = bytes[Self.magic.count]
        guard version != 0 else {
            throw SyncError(.unknownFormatVersion, "key file format version 0 was never written", path: path.rawValue)
        }
        guard version <= Self.formatVersion else {
            throw SyncError(.fromTheFuture, "key file format version \(version) is newer than \(Self.formatVersion), the newest this build reads: update the app", path: path.rawValue)
        }
        guard bytes.count == Self.size else {
            throw SyncError(.corruptFile, "the key file has \(bytes.count) bytes, not \(Self.size)", path: path.rawValue)
        }
        let checksumStart = Self.size - Self.checksumSize
        guard SHA256.hash(data: bytes[..<checksumStart]).prefix(Self.checksumSize).elementsEqual(bytes[checksumStart...]) else {
            throw SyncError(.corruptFile, "the key file is damaged (its checksum does not match)", path: path.rawValue)
        }
        guard bytes[5] == Self.scrypt else {
            throw SyncError(.corruptFile, "the key file names an unknown key derivation function (\(bytes[5]))", path: path.rawValue)
        }
        let (n, r, p) = (Int(bytes[6]), Int(bytes[7]), Int(bytes[8]))
        if let problem = KeyDerivationCost.problem(log2Rounds: n, blockSize: r, parallelism: p) {
            throw SyncError(.corruptFile, "the key file's \(problem)", path: path.rawValue)
        }
        let id = EncryptionKeyID(bytes: bytes[9..<17])
        guard let name = path.lastName, Self.id(inName: name.rawValue) == id else {
            throw SyncError(.corruptFile, "the key file's name does not match the key it holds (\(id))", path: path.rawValue)
        }
        self.id = id
        cost = KeyDerivationCost(log2Rounds: n, blockSize: r, parallelism: p)
        salt = Array(bytes[17..<Self.bodySize])
        encoded = data
    }

    /// Derives the file key from `password` (slow: scrypt), checking it against the key
    /// check. Throws `SyncError/Code/wrongPassword` when the check does not open.
    func unlock(with password: EncryptionPassword, path: CloudPath) throws(SyncError) -> SymmetricKey {
        let bytes = [UInt8](encoded)
        let keys = try Self.derive(password, salt: salt, cost: cost)
        let check = bytes[Self.bodySize..<(Self.bodySize + Self.checkSize)]
        do {
            let box = try AES.GCM.SealedBox(combined: check)
            _ = try AES.GCM.open(box, using: keys.check, authenticating: bytes[..<Self.bodySize])
        } catch {
            throw SyncError(.wrongPassword, "the password does not open this cloud's key (\(id)): it was encrypted with another password",
                            path: path.rawValue)
        }
        return keys.file
    }

    /// scrypt, then HKDF-SHA-256 into the file key and the check key.
    private static func derive(_ password: EncryptionPassword, salt: [UInt8], cost: KeyDerivationCost) throws(SyncError) -> (file: SymmetricKey, check: SymmetricKey) {
        let master: SymmetricKey
        do {
            master = try KDF.Scrypt.deriveKey(from: password.bytes, salt: salt, outputByteCount: 32, rounds: 1 << cost.log2Rounds,
                                              blockSize: cost.blockSize, parallelism: cost.parallelism)
        } catch {
            throw SyncError(.backendFailure, "the key could not be derived (\(cost))", underlying: error)
        }
        let file = HKDF<SHA256>.deriveKey(inputKeyMaterial: master, info: Array("StrataSync encryption: file key 1".utf8), outputByteCount: 32)
        let check = HKDF<SHA256>.deriveKey(inputKeyMaterial: master, info: Array("StrataSync encryption: key check 1".utf8), outputByteCount: 32)
        return (file, check)
    }
}
