import StrataRandom
import Foundation
import Strata
import StrataFetchedResults
import Testing

@Suite("Generic data sources and snapshots")
struct DataSourceTests {
    @Test func searchAndConstraintRefetchAndReportTheDifference() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try context.performAndWait {
            let groceries = context.insert(RowList.self); groceries.name = "groceries"
            let chores = context.insert(RowList.self); chores.name = "chores"
            for (title, group, list) in [("Milk", "Dairy", groceries), ("Butter", "Dairy", groceries), ("Apples", "Fruit", groceries),
                                         ("Sweep", "Home", chores), ("Milk the cow", "Farm", chores)] {
                let row = context.insert(Row.self)
                row.title = title
                row.group = group
                row.list = list
            }
            try context.save()

            let source = try FetchedDataSource<Row>(context: context)
            let recorder = Recorder()
            source.controller.delegate = recorder
            #expect(source.controller.sections.map(\.name) == ["Dairy", "Farm", "Fruit", "Home"])
            var model = ListModel(source.controller)

            let search = try source.setSearchTerm("milk")
            #expect(source.controller.fetchedObjects.map(\.title) == ["Milk", "Milk the cow"])
            #expect(search.sections.filter { $0.type == .delete }.count == 2)
            #expect(applyEvents(recorder, from: 0, to: &model))
            #expect(model == ListModel(source.controller))

            var start = recorder.events.count
            try source.setConstraint(groceries)
            #expect(source.controller.fetchedObjects.map(\.title) == ["Milk"])
            #expect(applyEvents(recorder, from: start, to: &model))
            #expect(model == ListModel(source.controller))

            start = recorder.events.count
            try source.setSearchTerm(nil)
            #expect(source.controller.fetchedObjects.map(\.title) == ["Butter", "Milk", "Apples"])
            #expect(applyEvents(recorder, from: start, to: &model))
            #expect(model == ListModel(source.controller))

            // It keeps following the context.
            start = recorder.events.count
            let pears = context.insert(Row.self); pears.title = "Pears"; pears.group = "Fruit"; pears.list = groceries
            try context.save()
            #expect(applyEvents(recorder, from: start, to: &model))
            #expect(model == ListModel(source.controller))
            #expect(source.controller.sections.map(\.numberOfObjects) == [2, 2])

            // Ungrouped: one section.
            let flat = try FetchedDataSource<Row>(context: context, grouped: false, searchTerm: "e")
            #expect(flat.controller.sections.count == 1)
            #expect(flat.controller.sectionKeyPath == nil)
        }
    }

    @Test(arguments: 0..<100)
    func snapshotDifferenceTurnsOldIntoNew(seed: Int) async throws {
        var random = SplitMix64(seed: UInt64(seed))
        let coordinator = try await StoreCoordinator(model: rowModel, store: .inMemory)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let fakeIDs = context.performAndWait { (0..<15).map { _ in context.insert(Row.self).objectID } }
        func make() -> FetchedResultsSnapshot {
            var sections: [FetchedResultsSnapshot.Section] = []
            var used = Set<Int>()
            for name in ["A", "B", "C", "D"] where random.next() % 3 != 0 {
                var ids: [Int] = []
                for _ in 0..<(random.next() % 6) {
                    let id = Int(random.next() % 15)
                    if used.insert(id).inserted { ids.append(id) }
                }
                sections.append(.init(name: name, objectIDs: ids.map { fakeIDs[$0] }))
            }
            return FetchedResultsSnapshot(sections: sections)
        }
        let old = make(), new = make()
        let changes = new.difference(from: old)
        var sections = old.sections.map { ($0.name, $0.objectIDs) }
        var insertions: [(FetchedIndexPath, ObjectID)] = []
        for row in changes.rows.filter({ $0.type == .delete || $0.type == .move }).sorted(by: { $0.indexPath! > $1.indexPath! }) {
            #expect(sections[row.indexPath!.section].1[row.indexPath!.row] == row.objectID)
            sections[row.indexPath!.section].1.remove(at: row.indexPath!.row)
        }
        for change in changes.sections.filter({ $0.type == .delete }).sorted(by: { $0.index > $1.index }) { sections.remove(at: change.index) }
        for change in changes.sections.filter({ $0.type == .insert }).sorted(by: { $0.index < $1.index }) { sections.insert((change.name, []), at: change.index) }
        for row in changes.rows where row.type == .insert || row.type == .move { insertions.append((row.newIndexPath!, row.objectID)) }
        for (path, id) in insertions.sorted(by: { $0.0 < $1.0 }) { sections[path.section].1.insert(id, at: path.row) }
        #expect(sections.map(\.0) == new.sectionIdentifiers, "seed \(seed)")
        #expect(sections.flatMap(\.1) == new.itemIdentifiers, "seed \(seed)")
    }
}

