public import Strata

/// Settings for opening a stack.
///
/// For example:
/// ```swift
/// var options = StackOptions()
/// options.importMergeMode = .coalesced(milliseconds: 50)
/// let stack = try await Stacks.open(.hybrid, model: model, storeURL: url, options: options)
/// ```
public struct StackOptions: Sendable {
    /// How the hybrid stack brings import saves into the main context.
    public var importMergeMode: ImportMergeMode = .everySave
    /// The merge policy of the contexts that save to the store (main in the main-context
    /// stack, the writer otherwise, and the hybrid stack's import contexts).
    public var mergePolicy: MergePolicy = .error
    /// Options of the SQLite store.
    public var storeOptions = StoreOptions()
    /// Called on the main queue with each import change set when `importMergeMode` is
    /// `.notifyOnly` (the UI refetches what it shows).
    public var onImport: (@Sendable (ChangeSet) -> Void)?

    /// Default options.
    public init() {}
}

/// How import saves reach the main context in the hybrid stack.
public enum ImportMergeMode: Sendable, Hashable {
    /// Merge every import save into main (touching only objects main holds) as soon as main
    /// has merged the previous ones: saves that arrive meanwhile are merged together.
    case everySave
    /// Collect import saves and merge them into main at most once per interval.
    case coalesced(milliseconds: Int)
    /// Do not merge into main; only call `StackOptions.onImport` so the UI can refetch.
    case notifyOnly
}
