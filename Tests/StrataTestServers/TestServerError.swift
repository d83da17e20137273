import Foundation

/// Why a test server could not be started; the message says how to fix it.
///
/// ```swift
/// do { _ = try WebDAVTestServer.shared() } catch { Issue.record(error) }
/// ```
public struct TestServerError: Error, CustomStringConvertible, Sendable {
    /// What went wrong and what to do about it.
    public var message: String

    /// Creates an error with `message`.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
