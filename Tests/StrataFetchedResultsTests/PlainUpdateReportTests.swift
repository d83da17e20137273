import Strata
import Testing
@testable import StrataFetchedResults

/// A merged batch that only updates results in keys the request does not read (an import's
/// second pass) is reported row by row where each result stands, in row order, without the
/// general path's work; anything else in the batch sends it down the general path.
@Suite struct PlainUpdateReportTests {
    /// A list by rank on the fixture's context, following `count` rows that `other` saved with
    /// their ranks scrambled against their keys (so key order is not row order); the rows' IDs
    /// in list order.
    private static func scrambledList(_ fixture: TwoContexts, count: Int, recorder: any FetchedResultsControllerDelegate<Row>) throws
        -> (controller: FetchedResultsController<Row>, ids: [ObjectID]) {
        let controller = try fixture.context.performAndWait {
            let controller = try FetchedResultsController(fetchRequest: FetchRequest<Row>(sortKeys: [SortKey("rank")]), context: fixture.context)
            controller.delegate = recorder
            try controller.performFetch()
            return controller
        }
        try fixture.other.performAndWait {
            for i in 0..<count { fixture.other.insert(Row.self).rank = Int64((i * 37) % count) }
            try fixture.other.save()
        }
        fixture.mergeOthersSaves()
        let ids = fixture.context.performAndWait { controller.snapshot.itemIdentifiers }
        return (controller, ids)
    }

    @Test func updatesOfUnreadKeysAreReportedWhereEachRowStandsInRowOrder() async throws {
        let fixture = try await TwoContexts()
        let recorder = Recorder()
        let (controller, ids) = try Self.scrambledList(fixture, count: 64, recorder: recorder)
        #expect(ids.count == 64)
        let ranks = Set((0..<64).filter { $0 % 3 != 1 }.map(Int64.init))
        let before = fixture.context.performAndWait { controller.statistics }
        try fixture.changeInOther(ranks: ranks) { $0.title = "retitled \($0.rank)" }
        fixture.context.performAndWait {
            let rows = recorder.batches.last?.rows ?? []
            #expect(rows.count == ranks.count)
            #expect(rows.allSatisfy { $0.type == .update && $0.indexPath != nil && $0.indexPath == $0.newIndexPath })
            // Each at its own row, which is its rank here; reported first row first.
            #expect(rows.allSatisfy { ids[$0.indexPath?.row ?? -1] == $0.objectID })
            #expect(Set(rows.compactMap { $0.indexPath.map { Int64($0.row) } }) == ranks)
            #expect(rows.compactMap { $0.indexPath?.row } == rows.compactMap { $0.indexPath?.row }.sorted())
            // Nothing evaluated or read: the rows' places were known.
            #expect(controller.statistics.evaluations == before.evaluations)
            #expect(controller.statistics.sortValueReads == before.sortValueReads)
            #expect(controller.snapshot.itemIdentifiers == ids)
            #expect(controller.object(at: FetchedIndexPath(section: 0, row: 3)).title == "retitled 3")
        }
    }

    @Test func rowsWrittenInOrderAreFoundFromTheOneBeforeAcrossSections() async throws {
        let fixture = try await TwoContexts()
        let recorder = Recorder()
        let controller = try fixture.context.performAndWait {
            let request = FetchRequest<Row>(sortKeys: [SortKey("group"), SortKey("rank")])
            let controller = try FetchedResultsController(fetchRequest: request, context: fixture.context, sectionKeyPath: "group")
            controller.delegate = recorder
            try controller.performFetch()
            return controller
        }
        // Written in list order: keys follow rows, across three sections.
        try fixture.other.performAndWait {
            for i in 0..<30 {
                let row = fixture.other.insert(Row.self)
                row.group = ["a", "b", "c"][i / 10]
                row.rank = Int64(i)
            }
            try fixture.other.save()
        }
        fixture.mergeOthersSaves()
        // Every row but each third (so the row after a found one is not always the next found),
        // and the last of a section next to the first of the following one.
        let ranks = Set((0..<30).filter { $0 % 3 != 1 || $0 == 10 }.map(Int64.init))   // 9 and 10: a section's last, the next's first
        try fixture.changeInOther(ranks: ranks) { $0.title = "seen" }
        fixture.context.performAndWait {
            let rows = recorder.batches.last?.rows ?? []
            #expect(rows.count == ranks.count && rows.allSatisfy { $0.type == .update && $0.indexPath == $0.newIndexPath })
            for row in rows {
                guard let path = row.indexPath else { Issue.record("no path"); continue }
                let rank = Int64(path.section * 10 + path.row)
                #expect(ranks.contains(rank))
                #expect(controller.object(at: path).objectID == row.objectID)
            }
        }
    }

    @Test func anUpdateOfASortKeyInTheBatchMovesItsRow() async throws {
        let fixture = try await TwoContexts()
        let recorder = Recorder()
        let (controller, ids) = try Self.scrambledList(fixture, count: 20, recorder: recorder)
        // Rank 5 goes to the end; the others' titles change.
        try fixture.changeInOther(ranks: Set((0..<20).map(Int64.init))) { row in
            if row.rank == 5 { row.rank = 100 } else { row.title = "t" }
        }
        fixture.context.performAndWait {
            let rows = recorder.batches.last?.rows ?? []
            let move = rows.first { $0.objectID == ids[5] }
            #expect(move?.type == .move && move?.newIndexPath == FetchedIndexPath(section: 0, row: 19))
            #expect(rows.filter { $0.type == .update }.count == 19)
            #expect(controller.snapshot.itemIdentifiers == ids.filter { $0 != ids[5] } + [ids[5]])
        }
    }

    @Test func aRowShownSinceItWasPlacedIsHeldWithItsObject() async throws {
        let fixture = try await TwoContexts()
        let recorder = BatchesOnly()   // takes no rows: the rows' objects are not made
        let (controller, ids) = try Self.scrambledList(fixture, count: 10, recorder: recorder)
        // Made by something else than the controller (a cell reading the row by its ID).
        let made = fixture.context.performAndWait { fixture.context.object(with: ids[4]) }
        fixture.context.performAndWait { #expect(controller.members[ids[4]]?.object == nil) }
        try fixture.changeInOther(ranks: [4, 6]) { $0.title = "seen" }
        fixture.context.performAndWait {
            #expect(recorder.last?.rows.map(\.objectID) == [ids[4], ids[6]])
            #expect(controller.members[ids[4]]?.object === made)
            #expect(controller.indexPath(for: made as! Row) == FetchedIndexPath(section: 0, row: 4))
        }
    }

    @Test func aRowWithUnsavedEditsHereGoesTheGeneralWayAndItsEditsStayShown() async throws {
        let fixture = try await TwoContexts()
        let recorder = Recorder()
        let (controller, ids) = try Self.scrambledList(fixture, count: 10, recorder: recorder)
        // An edit here of a key the list does not read, not yet processed, then another
        // context's update of the same row.
        fixture.context.performAndWait { controller.object(at: FetchedIndexPath(section: 0, row: 2)).visible = false }
        let batchesBefore = fixture.context.performAndWait { recorder.batches.count }
        try fixture.changeInOther(ranks: [2]) { $0.title = "theirs" }
        fixture.context.performAndWait {
            #expect(recorder.batches.count == batchesBefore + 1)
            #expect(recorder.batches.last?.rows.map(\.objectID) == [ids[2]])
            #expect(recorder.batches.last?.rows.first?.type == .update)
            // The row was reported with the edit in it: processing the edit reports nothing again.
            #expect(controller.shownValues[ids[2]]?["visible"] == .bool(false))
            fixture.context.processPendingChanges()
            #expect(recorder.batches.count == batchesBefore + 1)
        }
    }
}
