import Dispatch

/// Tells whether code runs on the main queue, and marks queues so that a context can tell
/// whether code runs on its own.
///
/// Asked of the queue (a queue-specific key), never of the thread: on Linux an async `main`
/// and Swift Testing run the main queue on worker threads.
enum MainQueue {
    /// A marker stored as a queue's specific value.
    final class Token: Sendable {}

    /// The key under which queues carry their ``Token``.
    static let key = DispatchSpecificKey<Token>()

    /// The main queue's marker (set on first use).
    static let token: Token = {
        let token = Token()
        DispatchQueue.main.setSpecific(key: key, value: token)
        return token
    }()

    /// Whether the calling code runs on the main queue.
    static var isCurrent: Bool {
        let token = Self.token   // first: its first use marks the main queue, which is then asked
        return DispatchQueue.getSpecific(key: key) === token
    }
}
