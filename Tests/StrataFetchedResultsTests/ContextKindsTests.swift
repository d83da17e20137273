import Foundation
import Strata
import StrataFetchedResults
import Testing

/// Holds a controller between `perform` blocks of its (one) context.
final class ControllerBox: @unchecked Sendable {  // safe: touched only on the controller's context queue
    var controller: FetchedResultsController<Row>?
    let recorder = Recorder()
    var model: ListModel?
}

/// The controller on a child context and on a main-queue context, following changes that
/// arrive by merge (a parent's save, a sibling's push, an import on another context).
@Suite struct ContextKindsTests {
    static func request() -> FetchRequest<Row> { FetchRequest<Row>(sortKeys: [SortKey("group"), SortKey("rank")]) }

    @Test func controllerOnAnAutoMergingChildFollowsParentAndSiblings() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let root = ObjectContext(.privateQueue, coordinator: coordinator)
        try await root.perform {
            for i in 0..<6 { let row = root.insert(Row.self); row.group = i % 2 == 0 ? "A" : "B"; row.rank = Int64(i) }
            try root.save()
        }
        let child = ObjectContext(.privateQueue, parent: root)
        let sibling = ObjectContext(.privateQueue, parent: root)
        let box = ControllerBox()
        try await child.perform {
            child.automaticallyMergesChangesFromParent = true
            let controller = try FetchedResultsController(fetchRequest: Self.request(), context: child, sectionKeyPath: "group")
            controller.delegate = box.recorder
            try controller.performFetch()
            box.controller = controller
            box.model = ListModel(controller)
            #expect(controller.sections.map(\.numberOfObjects) == [3, 3])
        }
        try await sibling.perform {
            let row = sibling.insert(Row.self); row.group = "C"; row.rank = 9
            try sibling.fetch(Self.request()).first?.rank = 100          // moves within section A
            try sibling.save()                                            // pushed into root; root publishes to child
        }
        try await root.perform {
            try root.fetch(FetchRequest<Row>(predicate: ObjectPredicate.key("rank") == 5)).first.map(root.delete)
            try root.save()
        }
        let (matches, sections, calls) = try await child.perform { () throws -> (Bool, [Int], Int) in
            let controller = try #require(box.controller)
            var model = try #require(box.model)
            var start = 0
            for (index, event) in box.recorder.events.enumerated() {
                if case .did = event {
                    let applied = model.apply(box.recorder.events[start...index])
                    #expect(applied, "a report did not apply")
                    start = index + 1
                }
            }
            let fresh = try child.fetch(Self.request())
            let expected = ListModel(fetched: fresh, key: { $0.group })
            return (model == expected && ListModel(controller) == expected, controller.sections.map(\.numberOfObjects), box.recorder.calls)
        }
        #expect(matches)
        #expect(sections == [3, 2, 1])
        #expect(calls > 0)
    }

    @Test func controllerOnTheMainQueueFollowsABackgroundImport() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let main = ObjectContext(.mainQueue, coordinator: coordinator)
        let importer = ObjectContext(.privateQueue, coordinator: coordinator)
        let box = ControllerBox()
        try await main.perform {
            main.automaticallyMergesChangesFromParent = true             // a root: merges sibling roots' saves
            let controller = try FetchedResultsController(fetchRequest: Self.request(), context: main, sectionKeyPath: nil)
            controller.delegate = box.recorder
            try controller.performFetch()
            box.controller = controller
        }
        try await importer.perform {
            for i in 0..<20 { let row = importer.insert(Row.self); row.group = "G"; row.rank = Int64(i) }
            try importer.save()
        }
        // The importer's save queued the automatic merge on the main queue before returning;
        // this block, queued after it on the same serial queue, runs after it (no polling).
        let count = try await main.perform { box.controller?.fetchedObjects.count ?? 0 }
        #expect(count == 20)
        let inserts = try await main.perform { box.recorder.batches.reduce(0) { $0 + $1.rows.filter { $0.type == .insert }.count } }
        #expect(inserts == 20)
    }
}
