public import Foundation

/// A cloud file system held in memory, with fault injection: failures at chosen calls or at a
/// seeded rate, latency, listings that lag writes, partial uploads and duplicate directory
/// entries (see ``FaultPlan``). Tests use it to prove a sync survives a flaky store; it
/// keeps the same contract and limits as every other backend.
///
/// For example:
/// ```swift
/// var plan = FaultPlan(seed: 1)
/// plan.failingCalls = [3]
/// let cloud = MemoryCloudFileSystem(faults: plan)
/// try await cloud.createDirectory(at: try CloudPath("events"))   // call 1
/// print(await cloud.operationCounts[.createDirectory] ?? 0)
/// ```
public actor MemoryCloudFileSystem: CloudFileSystem {
    private enum Entry {
        case directory(visibleAt: Int)
        case file(Data, visibleAt: Int)

        var visibleAt: Int {
            switch self {
            case .directory(let call), .file(_, let call): call
            }
        }
    }

    /// The caps this store enforces on uploads, downloads and listings.
    public nonisolated let limits: CloudLimits
    /// The faults injected; change them at any time with ``setFaults(_:)``.
    public private(set) var faults: FaultPlan
    /// How many calls of each operation started (failed ones included).
    public private(set) var operationCounts: [FaultPlan.Operation: Int] = [:]
    /// Whether the store answers at all; when `false` every call throws
    /// ``SyncError/Code/notConnected``.
    public private(set) var isReachable = true

    private var directories: [CloudPath: [CloudName: Entry]] = [.root: [:]]
    private var calls = 0
    private var random: UInt64

    /// An empty store.
    ///
    /// ```swift
    /// let cloud = MemoryCloudFileSystem(limits: CloudLimits(maxListingCount: 10))
    /// ```
    public init(limits: CloudLimits = .standard, faults: FaultPlan = .none) {
        self.limits = limits
        self.faults = faults
        self.random = faults.seed
    }

    /// Replaces the fault plan (the random sequence restarts from its seed).
    public func setFaults(_ plan: FaultPlan) {
        faults = plan
        random = plan.seed
    }

    /// Makes the store reachable or not.
    public func setReachable(_ reachable: Bool) { isReachable = reachable }

    /// The bytes held in all files.
    public var totalBytes: Int {
        directories.values.reduce(0) { sum, entries in
            entries.values.reduce(sum) { sum, entry in
                if case .file(let data, _) = entry { return sum + data.count }
                return sum
            }
        }
    }

    /// Every file and its contents, for assertions.
    public var allFiles: [CloudPath: Data] {
        var files: [CloudPath: Data] = [:]
        for (directory, entries) in directories {
            for (name, entry) in entries {
                if case .file(let data, _) = entry, let path = try? directory.appending(name) { files[path] = data }
            }
        }
        return files
    }

    public func connect() async throws {
        _ = try await begin(.connect)
    }

    public func fileExists(at path: CloudPath) async throws -> (exists: Bool, isDirectory: Bool) {
        _ = try await begin(.fileExists)
        if path.isRoot { return (true, true) }
        switch entry(at: path) {
        case .directory?: return (true, true)
        case .file?: return (true, false)
        case nil: return (false, false)
        }
    }

    public func contentsOfDirectory(at path: CloudPath) async throws -> [CloudItem] {
        let call = try await begin(.list).number
        guard let entries = directories[path] else {
            if entry(at: path) != nil { throw SyncError(.typeMismatch, "not a directory", path: path.rawValue) }
            throw SyncError(.notFound, "no such directory", path: path.rawValue)
        }
        var items: [CloudItem] = []
        for (name, entry) in entries where entry.visibleAt <= call {
            switch entry {
            case .directory:
                let item = CloudItem(name: name, size: 0, isDirectory: true)
                items.append(item)
                if faults.duplicateDirectories { items.append(item) }
            case .file(let data, _):
                items.append(CloudItem(name: name, size: data.count, isDirectory: false))
            }
            if items.count > limits.maxListingCount {
                throw SyncError(.listingTooLong, "the directory holds more than \(limits.maxListingCount) entries", path: path.rawValue)
            }
        }
        return items
    }

    public func createDirectory(at path: CloudPath) async throws {
        let call = try await begin(.createDirectory, writes: true)
        var current = CloudPath.root
        for name in path.names {
            let next = try current.appending(name)
            switch directories[current]?[name] {
            case .directory?: break
            case .file?: throw SyncError(.typeMismatch, "a file is in the way of a directory", path: next.rawValue)
            case nil:
                directories[current, default: [:]][name] = .directory(visibleAt: call.number + faults.listingLag)
                directories[next] = [:]
            }
            current = next
        }
        try end(.createDirectory, call)
    }

    public func upload(_ data: Data, to path: CloudPath) async throws {
        let call = try await begin(.upload, writes: true)
        guard let parent = path.parent, let name = path.lastName else {
            throw SyncError(.unsafeName, "cannot upload to the root", path: path.rawValue)
        }
        if data.count > limits.maxFileSize {
            throw SyncError(.tooLarge, "\(data.count) bytes is above the limit of \(limits.maxFileSize)", path: path.rawValue)
        }
        guard directories[parent] != nil else {
            throw SyncError(.notFound, "the parent directory does not exist", path: path.rawValue)
        }
        if case .directory? = directories[parent]?[name] {
            throw SyncError(.typeMismatch, "a directory is in the way of the file", path: path.rawValue)
        }
        var stored = data
        var partial = false
        if !data.isEmpty, draw() < faults.partialUploadProbability {
            stored = data.prefix(Int(nextRandom() % UInt64(data.count)))
            partial = true
        }
        directories[parent]?[name] = .file(stored, visibleAt: call.number + faults.listingLag)
        if partial && !faults.partialUploadsReportSuccess {
            throw SyncError(.backendFailure, "the upload was cut off after \(stored.count) of \(data.count) bytes",
                            path: path.rawValue, underlying: InjectedFault(operation: .upload, call: call.number, tookEffect: true))
        }
        try end(.upload, call)
    }

    public func download(from path: CloudPath) async throws -> Data {
        _ = try await begin(.download)
        switch entry(at: path) {
        case .file(let data, _)?:
            if data.count > limits.maxFileSize {
                throw SyncError(.tooLarge, "the file has \(data.count) bytes, above the limit of \(limits.maxFileSize)", path: path.rawValue)
            }
            return data
        case .directory?: throw SyncError(.typeMismatch, "a directory, not a file", path: path.rawValue)
        case nil: throw SyncError(.notFound, "no such file", path: path.rawValue)
        }
    }

    public func removeItem(at path: CloudPath) async throws {
        let call = try await begin(.remove, writes: true)
        guard let parent = path.parent, let name = path.lastName else {
            throw SyncError(.unsafeName, "cannot remove the root", path: path.rawValue)
        }
        if case .directory? = directories[parent]?[name] {
            for key in directories.keys where key.hasPrefix(path) { directories[key] = nil }
        }
        directories[parent]?[name] = nil
        try end(.remove, call)
    }

    // MARK: Faults

    private func entry(at path: CloudPath) -> Entry? {
        guard let parent = path.parent, let name = path.lastName else { return .directory(visibleAt: 0) }
        return directories[parent]?[name]
    }

    /// One started call: its number, and whether it is to fail once its effect is done.
    private struct Call {
        var number: Int
        var failsAfterEffect: Bool
    }

    /// Counts the call, waits the latency, checks reachability and decides (once) whether the
    /// plan fails it: before its effect (thrown here) or, for writes under
    /// ``FaultPlan/failuresAfterEffect``, after it (thrown by ``end(_:_:)``).
    private func begin(_ operation: FaultPlan.Operation, writes: Bool = false) async throws -> Call {
        calls += 1
        let number = calls
        operationCounts[operation, default: 0] += 1
        if faults.latency > .zero { try await Task.sleep(for: faults.latency) }
        guard isReachable else { throw SyncError(.notConnected, "the store is unreachable") }
        let fails = faults.failingCalls.contains(number) || faults.failingOperations.contains(operation)
            || (faults.failureProbability > 0 && draw() < faults.failureProbability)
        if fails && writes && faults.failuresAfterEffect { return Call(number: number, failsAfterEffect: true) }
        if fails { throw Self.injected(operation, number, tookEffect: false) }
        return Call(number: number, failsAfterEffect: false)
    }

    /// Throws the failure decided by ``begin(_:writes:)`` after the effect, if any.
    private func end(_ operation: FaultPlan.Operation, _ call: Call) throws {
        if call.failsAfterEffect { throw Self.injected(operation, call.number, tookEffect: true) }
    }

    private static func injected(_ operation: FaultPlan.Operation, _ call: Int, tookEffect: Bool) -> SyncError {
        SyncError(.backendFailure, "injected fault",
                  underlying: InjectedFault(operation: operation, call: call, tookEffect: tookEffect))
    }

    private func draw() -> Double { Double(nextRandom() >> 11) / Double(1 << 53) }

    private func nextRandom() -> UInt64 {
        random &+= 0x9E37_79B9_7F4A_7C15
        var z = random
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
