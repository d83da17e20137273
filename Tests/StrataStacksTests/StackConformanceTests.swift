import Foundation
import Strata
import StrataStacks
import Testing

/// One body per behaviour, run against every stack.
@Suite struct StackConformanceTests {
    @Test(arguments: StackKind.allCases)
    func backgroundWorkRoundTripsToDisk(kind: StackKind) async throws {
        let file = StoreFile()
        let stack = try await Stacks.open(kind, model: stackModel, storeURL: file.url)
        #expect(stack.kind == kind)
        let background = stack.newBackgroundContext()
        try await background.perform {
            let group = background.insert(Group.self); group.name = "g"
            for i in 0..<5 { let item = background.insert(Item.self); item.uid = "u\(i)"; item.title = "t\(i)"; item.group = group }
            try background.save()
        }
        try await stack.save()
        let main = stack.mainContext
        let count = try await main.perform { try main.count(for: FetchRequest<Item>()) }
        #expect(count == 5)
        #expect(try await storedTitles(file) == ["u0": "t0", "u1": "t1", "u2": "t2", "u3": "t3", "u4": "t4"])
    }

    @Test(arguments: StackKind.allCases)
    func importWorkReachesMainAndDisk(kind: StackKind) async throws {
        let file = StoreFile()
        let stack = try await Stacks.open(kind, model: stackModel, storeURL: file.url)
        let main = stack.mainContext
        let importer = stack.newImportContext()
        let id = try await importer.perform { () throws -> ObjectID in
            for i in 0..<20 { let item = importer.insert(Item.self); item.uid = "i\(i)"; item.title = "first" }
            try importer.save()
            return try importer.fetch(FetchRequest<Item>(predicate: try ObjectPredicate("uid == 'i0'"))).first!.objectID  // programmer error: just saved
        }
        try await stack.save()
        // Main holds one of the objects; a later import update must reach it.
        let held = try await main.perform { () throws -> String in
            let objects = try main.fetch(FetchRequest<Item>(predicate: try ObjectPredicate("uid == 'i0'")))
            return objects.first?.title ?? "missing"
        }
        #expect(held == "first")
        try await importer.perform {
            let item = try importer.fetch(FetchRequest<Item>(predicate: try ObjectPredicate("uid == 'i0'"))).first
            item?.title = "second"
            try importer.save()
        }
        try await stack.save()
        try await eventually("main to see the import's update") {
            try await main.perform { () throws -> Bool in
                let item = try main.fetch(FetchRequest<Item>(predicate: try ObjectPredicate("uid == 'i0'"))).first
                return item?.title == "second"
            }
        }
        _ = id
        #expect(try await storedTitles(file)["i0"] == "second")
        #expect(try await storedTitles(file).count == 20)
    }

    @Test(arguments: StackKind.allCases)
    func editorCommitsAndDiscards(kind: StackKind) async throws {
        let file = StoreFile()
        let stack = try await Stacks.open(kind, model: stackModel, storeURL: file.url)
        let main = stack.mainContext
        let id = try await main.perform { () throws -> ObjectID in
            let item = main.insert(Item.self); item.uid = "e"; item.title = "original"
            return item.objectID
        }
        try await stack.save()
        let savedID = try await main.perform { () throws -> ObjectID in try main.fetch(FetchRequest<Item>()).first!.objectID }  // programmer error: saved above
        _ = id
        let committing = stack.newEditorContext(autoUpdating: false)
        try await committing.perform {
            let item = try committing.existingObject(with: savedID) as? Item
            item?.title = "committed"
            try committing.save()
        }
        let discarding = stack.newEditorContext(autoUpdating: false)
        try await discarding.perform {
            let item = try discarding.existingObject(with: savedID) as? Item
            item?.title = "discarded"
        }
        if kind == .hybrid {
            // Its editors commit to disk on their own queue; main merges the save shortly after.
            #expect(try await storedTitles(file)["e"] == "committed")
            try await eventually("main to merge the editor's commit") {
                try await main.perform { (main.object(with: savedID) as? Item)?.title } == "committed"
            }
        } else {
            let inMain = try await main.perform { (main.object(with: savedID) as? Item)?.title }
            #expect(inMain == "committed")
        }
        try await stack.save()
        #expect(try await storedTitles(file)["e"] == "committed")
    }

    @Test(arguments: StackKind.allCases)
    func temporaryContextSavesGoNowhere(kind: StackKind) async throws {
        let file = StoreFile()
        let stack = try await Stacks.open(kind, model: stackModel, storeURL: file.url)
        let temporary = stack.newTemporaryContext()
        try await temporary.perform {
            let item = temporary.insert(Item.self); item.uid = "tmp"
            try temporary.save()
            #expect(try temporary.count(for: FetchRequest<Item>()) == 1)   // it sees its own save, held by the throwaway layer
        }
        try await stack.save()
        let main = stack.mainContext
        #expect(try await main.perform { try main.count(for: FetchRequest<Item>()) } == 0)
        #expect(try await storedTitles(file).isEmpty)
    }

    @Test(arguments: StackKind.allCases)
    func autoUpdatingEditorFollowsImportsAndKeepsItsEdits(kind: StackKind) async throws {
        let file = StoreFile()
        let stack = try await Stacks.open(kind, model: stackModel, storeURL: file.url)
        let importer = stack.newImportContext()
        try await importer.perform { let item = importer.insert(Item.self); item.uid = "x"; item.title = "v1"; try importer.save() }
        try await stack.save()
        let editor = stack.newEditorContext(autoUpdating: true)
        try await editor.perform {
            let item = try editor.fetch(FetchRequest<Item>()).first
            #expect(item?.title == "v1")
            item?.rank = 7                          // an unsaved edit of another key
        }
        try await importer.perform {
            try importer.fetch(FetchRequest<Item>()).first?.title = "v2"
            try importer.save()
        }
        try await stack.save()
        try await eventually("the editor to follow the import") {
            try await editor.perform { (try editor.fetch(FetchRequest<Item>()).first?.title) == "v2" }
        }
        let rank = try await editor.perform { try editor.fetch(FetchRequest<Item>()).first?.rank }
        #expect(rank == 7)
        try await editor.perform { try editor.save() }
        try await stack.save()
        let stored = try await storedTitles(file)
        #expect(stored["x"] == "v2")
    }

    @Test(arguments: StackKind.allCases, [MergePolicy.error, .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump])
    func conflictsWithAnotherWriterFollowThePolicy(kind: StackKind, policy: MergePolicy) async throws {
        let file = StoreFile()
        var options = StackOptions()
        options.mergePolicy = policy
        let stack = try await Stacks.open(kind, model: stackModel, storeURL: file.url, options: options)
        let main = stack.mainContext
        try await main.perform { let item = main.insert(Item.self); item.uid = "c"; item.title = "original" }
        try await stack.save()
        try await main.perform { try main.fetch(FetchRequest<Item>()).first?.title = "ours" }
        // Another process (here: another coordinator) changes the row meanwhile.
        let other = try await StoreCoordinator(model: stackModel, store: .sqlite(file.url))
        let external = ObjectContext(.privateQueue, coordinator: other)
        try await external.perform { try external.fetch(FetchRequest<Item>()).first?.title = "theirs"; try external.save() }
        var failure: StrataError?
        do { try await stack.save() } catch let error as StrataError { failure = error }
        let stored = try await storedTitles(file)["c"]
        switch policy {
        case .error:
            #expect(failure?.code == .conflict)
            #expect(stored == "theirs")
        case .mergeByPropertyObjectTrump:
            #expect(failure == nil)
            #expect(stored == "ours")
        default:
            #expect(failure == nil)
            #expect(stored == "theirs")
        }
    }

    @Test(arguments: StackKind.allCases)
    func aStacksSavesWriteSQLiteOffTheMainQueue(kind: StackKind) async throws {
        let file = StoreFile()
        let stack = try await Stacks.open(kind, model: stackModel, storeURL: file.url)
        let main = stack.mainContext
        try await main.perform { for i in 0..<3 { main.insert(Item.self).uid = "m\(i)" } }
        try await stack.save()
        let importer = stack.newImportContext()
        try await importer.perform { importer.insert(Item.self).uid = "imp"; try importer.save() }
        try await stack.save()
        let writes: Int
        switch stack {
        case let s as MainContextStack: writes = s.coordinator.mainQueueWrites
        case let s as AsyncSavingStack: writes = s.coordinator.mainQueueWrites
        case let s as HybridStack: writes = s.coordinator.mainQueueWrites + s.importCoordinator.mainQueueWrites
        default: writes = -1
        }
        #expect(writes == 0)   // mainContext too: its stack's save writes off the main queue
        #expect(try await storedTitles(file).count == 4)
    }
}
