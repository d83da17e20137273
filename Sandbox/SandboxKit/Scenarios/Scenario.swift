/// One scenario of the Sandbox. A scenario is a type in a file of its own, listed once in
/// ``ScenarioRegistry``; the runner gives it a fresh store and stack per run, measures it and
/// reports it.
///
/// `prepare` is not measured (seeding a store, say); `perform` is, with the main-queue
/// heartbeat running and the UI's fetched list open on the main context.
///
/// For example:
/// ```swift
/// struct CountScenario: Scenario {
///     static let name = "count"
///     static let summary = "counts books in main"
///     func perform(_ run: ScenarioRun) async throws -> ScenarioOutcome {
///         let main = try run.requireStack().mainContext
///         let n = try await main.perform { try main.count(for: FetchRequest<Book>()) }
///         return ScenarioOutcome(objects: n)
///     }
/// }
/// ```
public protocol Scenario: Sendable {
    /// The name given to `--scenario`.
    static var name: String { get }
    /// One line for `--help` and the docs.
    static var summary: String { get }
    /// The variants measured as separate rows (most scenarios have one).
    static var variants: [ScenarioVariant] { get }
    /// Whether the run's stack opens its store with `StoreOptions.recordsHistory` (the
    /// `sync` scenario's ensembles need the change history).
    static var recordsHistory: Bool { get }
    init()
    /// Unmeasured set-up on the run's store.
    func prepare(_ run: ScenarioRun) async throws
    /// The measured work.
    func perform(_ run: ScenarioRun) async throws -> ScenarioOutcome
    /// Unmeasured checks after the run settled (what reached the store, say): returns the
    /// outcome with its `check` set.
    func verify(_ run: ScenarioRun, _ outcome: ScenarioOutcome) async throws -> ScenarioOutcome
}

extension Scenario {
    public static var variants: [ScenarioVariant] { [.single] }
    public static var recordsHistory: Bool { false }
    public func prepare(_ run: ScenarioRun) async throws {}
    public func verify(_ run: ScenarioRun, _ outcome: ScenarioOutcome) async throws -> ScenarioOutcome { outcome }
}

/// A measured form of a scenario: its name (nil for a scenario's only form), whether it
/// runs on a stack (those that do not run once, whatever `--stack` says), and which variant
/// its rate is compared with.
///
/// For example:
/// ```swift
/// static let variants = [ScenarioVariant(name: "raw-read", usesStack: false, baseline: "raw-read"),
///                        ScenarioVariant(name: "fetch", usesStack: false, baseline: "raw-read")]
/// ```
public struct ScenarioVariant: Sendable, Hashable {
    /// The variant's name, or nil.
    public var name: String?
    /// Whether the variant runs on the selected stacks.
    public var usesStack: Bool
    /// The variant of the same scenario, run earlier in its list, whose rate this one's
    /// `×raw` ratio divides by; nil for the run's raw SQLite insert rate (the default).
    public var baseline: String?

    /// A variant.
    public init(name: String?, usesStack: Bool, baseline: String? = nil) {
        self.name = name
        self.usesStack = usesStack
        self.baseline = baseline
    }

    /// The one form of a scenario that runs on a stack.
    public static let single = ScenarioVariant(name: nil, usesStack: true)
}

/// What a scenario's `perform` reports beyond what the runner measures itself.
///
/// For example:
/// ```swift
/// return ScenarioOutcome(objects: 200, check: "ok", counters: ["rowsMaterialized": 100])
/// ```
public struct ScenarioOutcome: Sendable {
    /// Objects the run wrote or handled.
    public var objects: Int
    /// The seconds to report instead of `perform`'s whole duration (the baselines time only
    /// their insert transaction, not opening a connection).
    public var measuredSeconds: Double?
    /// Child saves pushed through main (stacks whose import contexts are children of main).
    public var pushesThroughMain: Int
    /// `ok` or what is wrong.
    public var check: String
    /// Free-form findings.
    public var detail: String
    /// Named counts.
    public var counters: [String: Int]

    /// An outcome.
    public init(objects: Int, measuredSeconds: Double? = nil, pushesThroughMain: Int = 0, check: String = "ok",
                detail: String = "", counters: [String: Int] = [:]) {
        self.objects = objects
        self.measuredSeconds = measuredSeconds
        self.pushesThroughMain = pushesThroughMain
        self.check = check
        self.detail = detail
        self.counters = counters
    }
}
