import Crypto
import Foundation
import StrataSync

/// The format of one file an ``EncryptedCloudFileSystem`` writes:
///
/// | bytes            | field                                                   |
/// |------------------|---------------------------------------------------------|
/// | 0..<4            | magic `SENC`                                            |
/// | 4                | format version (1)                                      |
/// | 5..<13           | the key's ``EncryptionKeyID``, big-endian               |
/// | 13..<25          | AES-GCM nonce (96 random bits, fresh for every upload)  |
/// | 25..<count − 16  | AES-256-GCM ciphertext (as long as the plaintext)       |
/// | count − 16       | GCM tag                                                 |
///
/// The additional authenticated data is the 13-byte header followed by the file's cloud
/// path (UTF-8), so the header, the bytes and the name the file is stored under are all
/// authenticated: a file changed, cut short, or moved or copied to another path fails.
/// The first 5 bytes keep their meaning in every version, so a later format is recognised.
enum SealedFile {
    static let magic: [UInt8] = Array("SENC".utf8)
    static let formatVersion: UInt8 = 1
    static let headerSize = 13
    static let nonceSize = 12
    static let tagSize = 16
    /// The bytes a sealed file has beyond its plaintext.
    static let overhead = headerSize + nonceSize + tagSize

    /// Seals `plaintext` for `path` with a fresh random nonce.
    static func seal(_ plaintext: Data, path: CloudPath, keyID: EncryptionKeyID, key: SymmetricKey) throws(SyncError) -> Data {
        let header = magic + [formatVersion] + keyID.bytes
        do {
            let box = try AES.GCM.seal(plaintext, using: key, nonce: AES.GCM.Nonce(), authenticating: additionalData(header, path))
            var sealed = Data(capacity: plaintext.count + overhead)
            sealed.append(contentsOf: header)
            sealed.append(contentsOf: box.nonce)
            sealed.append(box.ciphertext)
            sealed.append(box.tag)
            return sealed
        } catch {
            throw SyncError(.backendFailure, "the file could not be encrypted", path: path.rawValue, underlying: error)
        }
    }

    /// The key a sealed file names, after checking its magic and version.
    static func keyID(of sealed: Data, path: CloudPath) throws(SyncError) -> EncryptionKeyID {
        let start = sealed.startIndex
        guard sealed.count >= magic.count + 1, sealed[start..<start + magic.count].elementsEqual(magic) else {
            throw SyncError(.corruptFile, "not an encrypted file (no encryption header): it was damaged, or written without encryption", path: path.rawValue)
        }
        let version = sealed[start + magic.count]
        guard version != 0 else {
            throw SyncError(.unknownFormatVersion, "encrypted file format version 0 was never written", path: path.rawValue)
        }
        guard version <= formatVersion else {
            throw SyncError(.fromTheFuture, "encrypted file format version \(version) is newer than \(formatVersion), the newest this build reads: update the app", path: path.rawValue)
        }
        guard sealed.count >= overhead else {
            throw SyncError(.corruptFile, "the encrypted file is cut short (\(sealed.count) bytes, at least \(overhead) expected)", path: path.rawValue)
        }
        return EncryptionKeyID(bytes: sealed[(start + magic.count + 1)...])
    }

    /// The plaintext of a file sealed for `path` with `key` (whose identifier
    /// ``keyID(of:path:)`` read).
    static func open(_ sealed: Data, path: CloudPath, key: SymmetricKey) throws(SyncError) -> Data {
        _ = try keyID(of: sealed, path: path)
        let start = sealed.startIndex
        let header = sealed[start..<start + headerSize]
        let nonceEnd = start + headerSize + nonceSize
        let tagStart = sealed.endIndex - tagSize
        do {
            let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: sealed[(start + headerSize)..<nonceEnd]),
                                            ciphertext: sealed[nonceEnd..<tagStart], tag: sealed[tagStart...])
            return try AES.GCM.open(box, using: key, authenticating: additionalData(header, path))
        } catch {
            throw SyncError(.corruptFile, "the encrypted file failed authentication: it was changed or cut short, or moved here from another path",
                            path: path.rawValue)
        }
    }

    /// The header followed by the path.
    private static func additionalData<Header: Collection<UInt8>>(_ header: Header, _ path: CloudPath) -> Data {
        var data = Data(header)
        data.append(contentsOf: path.rawValue.utf8)
        return data
    }
}
