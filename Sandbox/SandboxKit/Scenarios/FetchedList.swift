import Dispatch
public import Strata
import Synchronization

/// What a UI does while data changes underneath it: after each change set the main context
/// publishes (a child's push, a merge, its own save) — or each import notification in
/// notify-only mode — it refetches the first 50 books, sorted, on the main queue. Refreshes
/// coalesce (one pending at a time) and their time is measured as main-queue busy time.
///
/// For example:
/// ```swift
/// let list = FetchedList(clock: MainQueueClock())
/// list.attach(to: stack.mainContext)
/// ```
public final class FetchedList: Sendable {
    /// How many rows the list shows.
    public static let rows = 50
    private let clock: MainQueueClock
    private let main = Mutex<ObjectContext?>(nil)
    private let token = Mutex<ChangeObservation?>(nil)
    private let pending = Atomic<Bool>(false)
    private let changeCount = Atomic<Int>(0)
    private let refreshCount = Atomic<Int>(0)
    private let shown = Mutex<[String]>([])

    /// A list whose main-queue time goes to `clock`.
    public init(clock: MainQueueClock) { self.clock = clock }

    /// Change sets (or import notifications) the list was told about.
    public var changeSets: Int { changeCount.load(ordering: .relaxed) }
    /// Refetches done.
    public var refreshes: Int { refreshCount.load(ordering: .relaxed) }
    /// Whether a refetch is scheduled and not yet done.
    public var isRefreshPending: Bool { pending.load(ordering: .relaxed) }
    /// The titles shown after the last refetch.
    public var titles: [String] { shown.withLock { $0 } }

    /// Starts following `context` (a main-queue context) and schedules the first fetch.
    public func attach(to context: ObjectContext) {
        main.withLock { $0 = context }
        let observation = context.observeChanges { [weak self] _ in self?.changed() }
        token.withLock { $0 = observation }
        setNeedsRefresh()
    }

    /// Stops following.
    public func detach() {
        token.withLock { $0?.cancel(); $0 = nil }
        main.withLock { $0 = nil }
    }

    /// Something changed (an import notification in notify-only mode).
    public func changed() {
        changeCount.add(1, ordering: .relaxed)
        setNeedsRefresh()
    }

    /// Schedules one refetch on the main queue unless one is pending.
    public func setNeedsRefresh() {
        guard pending.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        DispatchQueue.main.async { [self] in refresh() }
    }

    private func refresh() {
        pending.store(false, ordering: .releasing)
        guard let context = main.withLock({ $0 }) else { return }
        let titles: [String] = clock.measure {
            context.performAndWait {
                var request = FetchRequest<Book>(sortKeys: [SortKey("position")])
                request.fetchLimit = Self.rows
                return ((try? context.fetch(request)) ?? []).map(\.title)
            }
        }
        shown.withLock { $0 = titles }
        refreshCount.add(1, ordering: .relaxed)
    }
}
