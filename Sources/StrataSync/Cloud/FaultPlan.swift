/// The faults a ``MemoryCloudFileSystem`` injects, so tests (and the Sandbox) can prove a sync
/// survives a flaky store. Everything random is drawn from one generator seeded with
/// ``seed``, so a failing run repeats exactly.
///
/// For example:
/// ```swift
/// var plan = FaultPlan(seed: 42)
/// plan.failureProbability = 0.1          // one call in ten fails
/// plan.listingLag = 3                    // new items are listed three calls after they are written
/// plan.partialUploadProbability = 0.05   // and some uploads keep only a prefix
/// let cloud = MemoryCloudFileSystem(faults: plan)
/// ```
public struct FaultPlan: Sendable, Hashable {
    /// The operations of a ``CloudFileSystem``, as counted and failed by the memory cloud.
    public enum Operation: String, Sendable, Hashable, CaseIterable {
        case connect, fileExists, list, createDirectory, upload, download, remove
    }

    /// The seed of the generator behind every random choice.
    public var seed: UInt64
    /// Calls that fail, numbered from 1 over all operations in the order they start.
    public var failingCalls: Set<Int> = []
    /// Operations that fail every time.
    public var failingOperations: Set<Operation> = []
    /// The chance (0...1) that any call fails.
    public var failureProbability: Double = 0
    /// When `true`, a failing upload, directory creation or removal takes effect before it
    /// throws (the store did the work but the reply was lost).
    public var failuresAfterEffect = false
    /// Time added to every call, before it runs (other calls may run meanwhile).
    public var latency: Duration = .zero
    /// A file or directory written appears in listings only after this many further calls
    /// (an eventually consistent listing); reads by path see it at once.
    public var listingLag = 0
    /// The chance (0...1) that an upload stores only a prefix of its bytes.
    public var partialUploadProbability: Double = 0
    /// When `true`, a partial upload reports success (a silently truncated object); otherwise
    /// it throws after storing the prefix.
    public var partialUploadsReportSuccess = false
    /// When `true`, listings name every directory twice (as stores do whose folders are
    /// prefixes plus marker objects, or that allow two folders of one name).
    public var duplicateDirectories = false

    /// No faults at all.
    public static let none = FaultPlan()

    /// A plan with no faults yet, drawing from `seed`.
    ///
    /// ```swift
    /// let plan = FaultPlan(seed: 7)
    /// ```
    public init(seed: UInt64 = 0) { self.seed = seed }
}

/// The cause of a failure the memory cloud injected (the `underlying` of a
/// ``SyncError/Code/backendFailure``).
///
/// ```swift
/// if let fault = error.underlying as? InjectedFault { print(fault.operation, fault.call) }
/// ```
public struct InjectedFault: Error, Sendable, Hashable, CustomStringConvertible {
    /// The operation that failed.
    public var operation: FaultPlan.Operation
    /// The call's number (from 1, over all operations).
    public var call: Int
    /// Whether the operation took effect before failing.
    public var tookEffect: Bool

    public var description: String {
        "injected fault in \(operation) (call \(call)\(tookEffect ? ", after its effect" : ""))"
    }
}
