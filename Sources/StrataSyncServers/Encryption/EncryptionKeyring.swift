import Crypto
import Foundation
import StrataSync

/// The keys of one encrypted cloud, as one ``EncryptedCloudFileSystem`` instance knows them:
/// every key file at the cloud's root, opened with the password (each derived once, then
/// kept), and the key new files are sealed with.
///
/// **Why more than one key file may exist.** A dumb store cannot create a file only if it is
/// absent, so two fresh peers connecting to an empty cloud at once may each write a key file.
/// Key files are never overwritten (each has its own random name), every sealed file names
/// its key, and a peer that meets a file naming a key it has not opened reads that key file
/// by its name: so no file ever becomes unreadable. For writing, every peer adopts the key file
/// whose identifier is smallest among those listed, re-checked at every ``refresh()``
/// (every `connect()`, that is every sync): after a race, peers may seal with two keys until
/// each has connected once more, then all seal with one. Every listed key file must open with
/// the password; one that does not (a peer with another password on a store whose listing
/// lagged) makes every call fail with `SyncError/Code/wrongPassword` until it is removed.
/// A damaged key file is passed over; when no key file opens and some are damaged, a new one
/// is written.
actor EncryptionKeyring: CustomReflectable {
    /// A key and its identifier.
    struct SealingKey: Sendable {
        let id: EncryptionKeyID
        let key: SymmetricKey
    }

    /// The most key files a cloud may hold (each costs a key derivation).
    static let maxKeyFiles = 16

    private let cloud: any CloudFileSystem
    private let password: EncryptionPassword
    private let cost: KeyDerivationCost
    /// Keys opened so far, by identifier; kept even if their key file disappears.
    private var opened: [EncryptionKeyID: SymmetricKey] = [:]
    /// Key files that did not open with the password, with their bytes (not derived again).
    private var refused: [EncryptionKeyID: Data] = [:]
    /// The key new files are sealed with; `nil` until a refresh succeeds, and after one fails.
    private var writeKeyID: EncryptionKeyID?
    /// The refresh under way, which concurrent callers share.
    private var loading: Task<Void, any Error>?
    /// Key files being opened for ``openingKey(for:path:)``, by identifier.
    private var openings: [EncryptionKeyID: Task<Bool, any Error>] = [:]

    init(cloud: any CloudFileSystem, password: EncryptionPassword, cost: KeyDerivationCost) {
        self.cloud = cloud
        self.password = password
        self.cost = cost
    }

    /// The key to seal new files with, loading the key files first if needed.
    func sealingKey() async throws -> SealingKey {
        if writeKeyID == nil { try await refresh() }
        guard let id = writeKeyID, let key = opened[id] else {
            throw SyncError(.notConnected, "the encryption key is not loaded")
        }
        return SealingKey(id: id, key: key)
    }

    /// The key a sealed file names. One not opened yet (another peer's, written since the
    /// last refresh) is read from its key file by name: a read by path finds a file that a
    /// lagging listing does not show yet. Concurrent callers share one derivation.
    func openingKey(for id: EncryptionKeyID, path: CloudPath) async throws -> SymmetricKey {
        if writeKeyID == nil { try await refresh() }
        if let key = opened[id] { return key }
        if let running = openings[id] {
            _ = try await running.value
        } else {
            let task = Task { try await self.open(id) }
            openings[id] = task
            let result = await task.result
            openings[id] = nil
            _ = try result.get()
        }
        if let key = opened[id] { return key }
        throw SyncError(.corruptFile, "the file is sealed with a key this cloud does not hold (\(id))", path: path.rawValue)
    }

    /// Loads the key files if no refresh succeeded yet.
    func ready() async throws {
        if writeKeyID == nil { try await refresh() }
    }

    /// The identifier of the key new files are sealed with (for tests).
    var currentWriteKeyID: EncryptionKeyID? { writeKeyID }

    /// Lists the key files (creating one when there is none), opens those not opened yet and
    /// adopts the smallest identifier for writing. Concurrent callers share one refresh.
    func refresh() async throws {
        if let loading {
            try await loading.value
            return
        }
        let task = Task { try await self.load() }
        loading = task
        let result = await task.result
        loading = nil
        try result.get()
    }

    private func load() async throws {
        writeKeyID = nil
        var listed = try await listKeyFiles()
        if listed.isEmpty {
            let created = try await create()
            listed = try await listKeyFiles()
            // Adopt the winner if another peer's key file appeared meanwhile; our own counts
            // even if a lagging listing does not show it yet.
            listed.insert(created)
        }
        guard listed.count <= Self.maxKeyFiles else {
            throw SyncError(.corruptFile, "the cloud holds \(listed.count) encryption key files, more than \(Self.maxKeyFiles)")
        }
        // A damaged key file is passed over: a creation cut short (its writer failed and never
        // sealed with it) must not lock every peer out. A key file that does not open with
        // the password, or of a later version, stops everything.
        var present: [EncryptionKeyID] = []
        var damaged: SyncError?
        for id in listed.sorted() {
            if opened[id] != nil {
                present.append(id)
                continue
            }
            let outcome: Result<Bool, any Error>
            do { outcome = .success(try await open(id)) } catch { outcome = .failure(error) }
            switch outcome {
            case .success(let found):
                if found { present.append(id) }
            case .failure(let error):
                guard let error = error as? SyncError, error.code == .corruptFile else { throw error }
                damaged = damaged ?? error
            }
        }
        if present.isEmpty && damaged != nil {
            // Every key file is damaged (a creation cut short whose removal failed too): no
            // peer can open one, so none seals with it. Start a new one.
            present.append(try await create())
        }
        guard let first = present.first else {
            throw SyncError(.notConnected, "the encryption key files vanished while they were read: connect again")
        }
        writeKeyID = first
    }

    /// The identifiers of the key files at the root.
    private func listKeyFiles() async throws -> Set<EncryptionKeyID> {
        let items = try await cloud.contentsOfDirectory(at: .root)
        return Set(items.lazy.filter { !$0.isDirectory }.compactMap { EncryptionKeyFile.id(inName: $0.name.rawValue) })
    }

    /// Opens the key file of `id`; `false` when it vanished since the listing.
    private func open(_ id: EncryptionKeyID) async throws -> Bool {
        let path = try CloudPath.root.appending(EncryptionKeyFile.name(for: id))
        let data: Data
        do { data = try await cloud.download(from: path) } catch let error as SyncError where error.code == .notFound {
            return false
        }
        if refused[id] == data {
            throw SyncError(.wrongPassword, "the password does not open this cloud's key (\(id)): it was encrypted with another password", path: path.rawValue)
        }
        let file = try EncryptionKeyFile(parsing: data, path: path)
        let unlocked: Result<SymmetricKey, SyncError>
        do { unlocked = .success(try file.unlock(with: password, path: path)) } catch { unlocked = .failure(error) }
        switch unlocked {
        case .success(let key):
            opened[id] = key
            return true
        case .failure(let error):
            if error.code == .wrongPassword {
                if refused.count >= Self.maxKeyFiles { refused.removeAll() }
                refused[id] = data
            }
            throw error
        }
    }

    /// Writes a new key file, reads it back, and returns its identifier.
    private func create() async throws -> EncryptionKeyID {
        let id = EncryptionKeyID.random()
        let path = try CloudPath.root.appending(EncryptionKeyFile.name(for: id))
        let (file, key) = try EncryptionKeyFile.create(id: id, cost: cost, password: password)
        // A key file cut short would stand in every peer's way: on any doubt, take it back.
        do { try await cloud.upload(file.encoded, to: path) } catch {
            try? await cloud.removeItem(at: path)
            throw error
        }
        let stored: Data
        do { stored = try await cloud.download(from: path) } catch {
            try? await cloud.removeItem(at: path)
            throw error
        }
        guard stored == file.encoded else {
            try? await cloud.removeItem(at: path)
            throw SyncError(.backendFailure, "the new encryption key file read back differs from what was written; it was removed: connect again",
                            path: path.rawValue)
        }
        opened[id] = key
        return id
    }

    /// Nothing: the password and keys never show in a dump.
    nonisolated var customMirror: Mirror { Mirror(self, children: [:]) }
}
