/// A failure of the Sandbox itself (a bad option, a scenario that cannot run).
///
/// For example:
/// ```swift
/// throw SandboxError("unknown scenario \(name)")
/// ```
public struct SandboxError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public var description: String

    /// An error with a message.
    public init(_ description: String) { self.description = description }
}
