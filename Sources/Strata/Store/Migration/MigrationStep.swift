/// A point a migration passes, for crash tests that stop a process exactly there (not part of
/// Strata's API: reach it with `@_spi(StrataTesting) import Strata`).
///
/// For example, in a child process that a test kills at a named step:
/// ```swift
/// MigrationStep.observe { step in if step.name == "backed-up" { kill(getpid(), SIGKILL) } }
/// ```
@_spi(StrataTesting)
public enum MigrationStep: Sendable, Equatable {
    /// Inside the exclusive transaction, the plan made, nothing written.
    case began
    /// The backup copy of the store is on disk.
    case backedUp
    /// The plan's statement at this index ran (inside the transaction).
    case statement(Int)
    /// The new schema and the migration's history are written; the commit is next.
    case recorded
    /// The transaction committed; the backup copy is still on disk.
    case committed
    /// The backup copy is removed: the migration is over.
    case finished

    /// A name for the step: `began`, `backed-up`, `statement-<i>`, `recorded`, `committed`, `finished`.
    public var name: String {
        switch self {
        case .began: "began"
        case .backedUp: "backed-up"
        case .statement(let index): "statement-\(index)"
        case .recorded: "recorded"
        case .committed: "committed"
        case .finished: "finished"
        }
    }

    /// Calls `handler` at every step of every migration in this process from now on (one
    /// handler; a later call replaces it, `nil` removes it).
    public static func observe(_ handler: (@Sendable (MigrationStep) -> Void)?) {
        observer.withLock { $0 = handler }
    }

    private static let observer = Locked<(@Sendable (MigrationStep) -> Void)?>(nil)

    /// Tells the observer, if any, that a migration reached this step.
    func reached() {
        MigrationStep.observer.withLock { $0 }?(self)
    }
}
