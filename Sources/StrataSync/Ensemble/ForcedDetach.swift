/// Why an ensemble detached on its own. The store keeps its data; attach again to resume
/// (the store's contents are merged anew, nothing is lost).
///
/// For example:
/// ```swift
/// await ensemble.onForcedDetach { detach in print("sync stopped:", detach.reason) }
/// ```
public struct ForcedDetach: Sendable, Hashable, CustomStringConvertible {
    /// What happened.
    public enum Reason: String, Sendable, Hashable {
        /// The ensemble's folder in the cloud was deleted or replaced (another identity).
        case cloudIdentityChanged
        /// This peer's registration was removed from the cloud (another peer, or a user,
        /// removed it).
        case registrationRemoved
        /// The local sync state could not be read.
        case corruptLocalState
    }

    /// What happened.
    public var reason: Reason
    /// A sentence for a log.
    public var message: String

    public var description: String { "\(reason.rawValue): \(message)" }
}
