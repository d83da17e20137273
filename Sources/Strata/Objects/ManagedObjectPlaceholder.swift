// PLACEHOLDER for the `predicates` branch only: the model layer refers to `ManagedObject`
// and `EntitySpec(describing:)`, which the Objects work on `main` provides. This file lets
// the branch compile on its own; delete it when merging with the real `ManagedObject`.

/// Placeholder for the managed object base class (the real one lives on `main`).
///
/// For example:
/// ```swift
/// let cls: ManagedObject.Type = ManagedObject.self
/// ```
open class ManagedObject: @unchecked Sendable {
    /// Creates a placeholder object.
    public init() {}
}

extension EntitySpec {
    /// Placeholder: typed classes are not described on this branch.
    init(describing cls: ManagedObject.Type) throws(StrataError) {
        throw StrataError(.invalidModel, "Typed classes are not supported on this branch (\(cls)).")
    }
}
