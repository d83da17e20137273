import Dispatch
public import Strata
import StrataFetchedResults
import Synchronization

/// What a UI does while data changes underneath it: a fetched results controller on the main
/// context shows the first 50 books, sorted, and follows every change set the main context
/// publishes (a child's push, a merge, its own save) from memory where it can decide the
/// window itself, fetching the window again only when it cannot (see
/// `FetchedResultsController`'s fetch-limit handling). In notify-only mode main merges
/// nothing, so each import notification schedules a refetch of the window on the main queue
/// (coalesced: one pending at a time). The refetches' time goes to the clock; the controller's
/// own work runs inside main's merges, which main's busy time counts.
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
    private let main = Locked<ObjectContext?>(nil)
    private let token = Locked<ChangeObservation?>(nil)
    private let follower = Locked<ListFollower?>(nil)
    private let pending = Atomic<Bool>(false)
    private let changeCount = Atomic<Int>(0)
    private let refreshCount = Atomic<Int>(0)

    /// A list whose main-queue time goes to `clock`.
    public init(clock: MainQueueClock) { self.clock = clock }

    /// Change sets (or import notifications) the list was told about.
    public var changeSets: Int { changeCount.load(ordering: .relaxed) }
    /// Refetches done by the list itself (the first fetch, and one per coalesced import
    /// notification in notify-only mode; the controller's own window refetches are not counted).
    public var refreshes: Int { refreshCount.load(ordering: .relaxed) }
    /// Whether a refetch is scheduled and not yet done.
    public var isRefreshPending: Bool { pending.load(ordering: .relaxed) }
    /// The titles shown now.
    public var titles: [String] { follower.withLock { $0?.titles.withLock { $0 } ?? [] } }

    /// Starts following `context` (a main-queue context) and schedules the first fetch.
    public func attach(to context: ObjectContext) {
        main.withLock { $0 = context }
        let observation = context.observeChanges { [weak self] _ in self?.changeCount.add(1, ordering: .relaxed) }
        token.withLock { $0 = observation }
        setNeedsRefresh()
    }

    /// Stops following.
    public func detach() {
        token.withLock { $0?.cancel(); $0 = nil }
        if let context = main.withLock({ $0 }), let follower = follower.withLock({ $0 }) {
            context.performAndWait { follower.controller = nil }
        }
        follower.withLock { $0 = nil }
        main.withLock { $0 = nil }
    }

    /// Something changed that main did not merge (an import notification in notify-only mode).
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
        let existing = follower.withLock { $0 }
        let made: ListFollower? = clock.measure {
            context.performAndWait {
                let current = existing ?? ListFollower()
                do {
                    if current.controller == nil {
                        var request = FetchRequest<Book>(sortKeys: [SortKey("position")])
                        request.fetchLimit = Self.rows
                        let controller = try FetchedResultsController(fetchRequest: request, context: context)
                        controller.delegate = current
                        current.controller = controller
                    }
                    try current.controller?.performFetch()
                } catch {
                    return existing
                }
                current.show()
                return current
            }
        }
        if existing == nil { follower.withLock { $0 = made } }
        refreshCount.add(1, ordering: .relaxed)
    }
}

/// Holds the list's controller and shows its titles after each change report.
final class ListFollower: FetchedResultsControllerDelegate, @unchecked Sendable {  // safe: the controller is touched only on the main context's queue; titles are behind a mutex
    typealias Object = Book
    var controller: FetchedResultsController<Book>?
    let titles = Locked<[String]>([])

    func show() {
        let shown = controller?.fetchedObjects.map(\.title) ?? []
        titles.withLock { $0 = shown }
    }

    func controllerDidChangeContent(_ controller: FetchedResultsController<Book>) { show() }
}
