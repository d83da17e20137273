import Foundation
import Strata
import StrataFetchedResults
import Testing

final class Entry: ManagedObject {
    @Attribute("title", .searchable) var title = ""
    @Attribute("group") var group = ""
}

extension Entry: Groupable, TextSearchable {
    static var defaultSortKeys: [SortKey] { [SortKey("group"), SortKey("title")] }
    static var sectionKeyPath: String { "group" }
    /// A substring filter the data source must not use once `searchableKeys` names the index.
    static func searchPredicate(for term: String?) -> ObjectPredicate? {
        guard let term, !term.isEmpty else { return nil }
        return ObjectPredicate.key("title").contains(term, options: .caseInsensitive)
    }
    static var searchableKeys: [String] { ["title"] }
}

/// Counts the batches a controller reports.
final class BatchCounter: FetchedResultsControllerDelegate {
    typealias Object = Entry
    var batches: [FetchedResultsChanges] = []
    func controller(_ controller: FetchedResultsController<Entry>, didChangeContentWith changes: FetchedResultsChanges) { batches.append(changes) }
}

@Suite("Full-text search in data sources")
struct FullTextDataSourceTests {
    @Test func searchUsesTheIndexAndFollowsSaves() async throws {
        let directory = TemporaryDirectory()
        let model = try ObjectModel(Entry.self)
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(directory.url.appendingPathComponent("store.sqlite")))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try context.performAndWait {
            for (title, group) in [("Milk", "Dairy"), ("Butter", "Dairy"), ("Buttermilk", "Dairy"), ("Milk the cow", "Farm"), ("Apples", "Fruit")] {
                let entry = context.insert(Entry.self)
                entry.title = title
                entry.group = group
            }
            try context.save()
            let source = try FetchedDataSource<Entry>(context: context)
            let counter = BatchCounter()
            source.controller.delegate = counter
            #expect(source.controller.fetchRequest.textSearch == nil)

            try source.setSearchTerm("mil")
            #expect(source.controller.fetchRequest.textSearch?.query == "\"mil\"*")
            // Word prefixes: "Buttermilk" has no word starting with "mil" (a CONTAINS filter would find it).
            #expect(source.controller.fetchedObjects.map(\.title) == ["Milk", "Milk the cow"])
            #expect(source.controller.sections.map(\.name) == ["Dairy", "Farm"])

            try source.setSearchTerm("ilk")
            #expect(source.controller.fetchedObjects.isEmpty)

            try source.setSearchTerm("milk")
            let before = counter.batches.count
            let added = context.insert(Entry.self)
            added.title = "Milk shake"
            added.group = "Dairy"
            try context.save()
            #expect(source.controller.fetchedObjects.map(\.title) == ["Milk", "Milk shake", "Milk the cow"])
            #expect(counter.batches.count > before)
            #expect(counter.batches.last?.rows.contains { $0.type == .insert } == true)

            // An edit that stops matching leaves the list at the save.
            added.title = "Shake"
            try context.save()
            #expect(source.controller.fetchedObjects.map(\.title) == ["Milk", "Milk the cow"])

            try source.setSearchTerm(nil)
            #expect(source.controller.fetchedObjects.count == 6)
        }
    }

    /// A `fetchLimit` window with a text search: an object outside it whose searched text
    /// changes to match comes in. Before, the window passed over updates of keys its predicate
    /// and sort keys do not read, and the searched keys were not among them.
    @Test(arguments: [false, true])
    func aWindowTakesInAnObjectWhoseSearchedTextStartsToMatch(fromAnotherContext: Bool) async throws {
        let directory = TemporaryDirectory()
        let model = try ObjectModel(Entry.self)
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(directory.url.appendingPathComponent("store.sqlite")))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let butter = try context.performAndWait { () throws -> ObjectID in
            for (title, group) in [("Milk", "b"), ("Butter", "a"), ("Cheese", "c")] {
                let entry = context.insert(Entry.self)
                entry.title = title
                entry.group = group
            }
            try context.save()
            return try context.fetch(FetchRequest<Entry>(predicate: ObjectPredicate.key("title") == "Butter")).first!.objectID
        }
        var request = FetchRequest<Entry>(sortKeys: [SortKey("group")])   // the searched key is not a sort key
        request.textSearch = .words("milk")
        request.textSearch?.ordersByRelevance = false
        request.fetchLimit = 10
        let controller = try context.performAndWait {
            let controller = try FetchedResultsController(fetchRequest: request, context: context)
            try controller.performFetch()
            return controller
        }
        #expect(context.performAndWait { controller.fetchedObjects.map(\.title) } == ["Milk"])
        try retitle(butter, to: "Butter milk", in: context, fromAnotherContext: fromAnotherContext)
        #expect(context.performAndWait { controller.fetchedObjects.map(\.title) } == ["Butter milk", "Milk"])
    }

    /// A `fetchLimit` window ordered by relevance: an object outside it whose searched text
    /// becomes more relevant than the window's last result comes in, even though its sort
    /// keys (which only break ties) sort after that result. The window's boundary orders by
    /// sort keys, so it must not be used to pass over updates when relevance orders first.
    @Test(arguments: [false, true])
    func anObjectBecomingMoreRelevantComesIntoTheWindow(fromAnotherContext: Bool) async throws {
        let directory = TemporaryDirectory()
        let model = try ObjectModel(Entry.self)
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(directory.url.appendingPathComponent("store.sqlite")))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let cheese = try context.performAndWait { () throws -> ObjectID in
            for (title, group) in [("milk bread butter eggs flour sugar salt yeast", "a"), ("cheese", "z")] {
                let entry = context.insert(Entry.self)
                entry.title = title
                entry.group = group
            }
            try context.save()
            return try context.fetch(FetchRequest<Entry>(predicate: ObjectPredicate.key("title") == "cheese")).first!.objectID
        }
        var request = FetchRequest<Entry>(sortKeys: [SortKey("group")])
        request.textSearch = .words("milk")   // ordered by relevance first
        request.fetchLimit = 1
        let controller = try context.performAndWait {
            let controller = try FetchedResultsController(fetchRequest: request, context: context)
            try controller.performFetch()
            return controller
        }
        #expect(context.performAndWait { controller.fetchedObjects.map(\.group) } == ["a"])
        try retitle(cheese, to: "milk milk", in: context, fromAnotherContext: fromAnotherContext)
        // What a fetch now returns, and what the controller shows.
        let fetched = try context.performAndWait { try context.fetch(request).map(\.group) }
        #expect(fetched == ["z"])
        #expect(context.performAndWait { controller.fetchedObjects.map(\.group) } == fetched)
    }

    /// Sets the title of entry `id` and saves it: in `context`, or in another context of its
    /// coordinator whose change sets `context` then merges.
    private func retitle(_ id: ObjectID, to title: String, in context: ObjectContext, fromAnotherContext: Bool) throws {
        guard fromAnotherContext else {
            try context.performAndWait {
                (context.object(with: id) as? Entry)?.title = title
                try context.save()
            }
            return
        }
        let other = ObjectContext(.privateQueue, coordinator: context.coordinator)
        let collector = ChangeCollector()
        let token = other.observeChanges { changes in collector.sets.withLock { $0.append(changes) } }
        defer { token.cancel() }
        try other.performAndWait {
            (other.object(with: id) as? Entry)?.title = title
            try other.save()
        }
        let changes = collector.take()
        #expect(!changes.isEmpty)
        context.performAndWait { for set in changes { context.merge(set) } }
    }
}
