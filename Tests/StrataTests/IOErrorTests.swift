import Foundation
import GRDB
import StrataFaultVFS
import Testing
@testable import Strata

/// I/O errors (`SQLITE_IOERR`: a failing disk, a network mount gone; issue 12, "Proof under
/// faults"), injected by a test-only SQLite VFS (`Tests/StrataFaultVFS`) that wraps the unix
/// VFS and fails the reads, writes or syncs of the files of one temporary directory on command.
/// A save that meets one throws a typed error, writes nothing, keeps the context's changes and
/// succeeds once the fault is gone; the store stays intact.
@Suite(.serialized) struct IOErrorTests {
    init() {
        // Every connection opened from now on goes through the VFS; unarmed, it only forwards.
        #expect(strata_fault_vfs_install() == 0)   // SQLITE_OK
    }

    /// Fails `kinds` on the files under `directory` while `body` runs.
    func withFaults<T>(_ kinds: Int32, in directory: TemporaryDirectory, _ body: () async throws -> T) async rethrows -> T {
        strata_fault_vfs_arm(directory.url.path, kinds)
        defer { strata_fault_vfs_disarm() }
        return try await body()
    }

    @Test func aSaveThatMeetsAWriteErrorKeepsItsChangesAndSucceedsOnceTheDiskWorks() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        var options = StoreOptions()
        options.recordsHistory = true
        let coordinator = try await StoreCoordinator(model: try CrashModel.make(version: 1), store: .sqlite(url, options: options))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let first = try await context.perform { () throws -> String in
            let owner = try context.insert(entityNamed: "Owner")
            try owner.setValue("first", forKey: "name")
            let doomed = try context.insert(entityNamed: "Tag")
            try doomed.setValue("doomed", forKey: "label")
            try context.save()
            return try CrashState.read(context).digest
        }

        let injectedBefore = strata_fault_vfs_injected()
        let (error, pendingDigest) = try await withFaults(Int32(STRATA_FAULT_WRITE), in: directory) {
            try await context.perform { () throws -> (StrataError?, String) in
                let owner = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Owner")).first)
                try owner.setValue("renamed", forKey: "name")                    // an update
                let tag = try context.insert(entityNamed: "Tag")                 // inserts with relationships
                try tag.setValue("t", forKey: "label")
                for i in 0..<50 {
                    let item = try context.insert(entityNamed: "Item")
                    try item.setValue("item-\(i)", forKey: "name")
                    try item.setValue(owner, forKey: "owner")
                    try item.setValue(Set([tag]), forKey: "tags")
                }
                let doomed = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag")).first { $0.value(forKey: "label") as? String == "doomed" })
                context.delete(doomed)                                           // a delete
                var error: StrataError?
                do { try context.save() } catch let caught as StrataError { error = caught }
                #expect(context.hasChanges)
                #expect(context.insertedObjects.count == 51)
                #expect(context.updatedObjects.count == 1)
                #expect(context.deletedObjects.count == 1)
                return (error, try CrashState.read(context).digest)   // the fetch includes the unsaved changes
            }
        }
        #expect(strata_fault_vfs_injected() > injectedBefore, "the VFS failed no write")
        let failure = try #require(error, "the save succeeded although every write failed")
        #expect(failure.code == .storeFailure)
        #expect((failure.underlying as? DatabaseError)?.resultCode == .SQLITE_IOERR)

        // Nothing was written, and the file is sound.
        let afterFailure = try DiskFullTests.census(url)
        #expect(afterFailure.integrity == ["ok"])
        #expect(afterFailure.items == 0)
        #expect(afterFailure.history == 1)

        // The disk works again: the same save succeeds and writes everything once.
        let saved = try await context.perform { () throws -> String in
            try context.save()
            #expect(!context.hasChanges)
            context.reset()
            return try CrashState.read(context).digest
        }
        #expect(saved == pendingDigest)
        #expect(saved != first)
        #expect(try coordinator.history(after: nil).count == 2)
        try coordinator.close()
        let afterRetry = try DiskFullTests.census(url)
        #expect(afterRetry.integrity == ["ok"])
        #expect(afterRetry.items == 50)
        #expect(afterRetry.history == 2)
    }

    @Test func aStoreWhoseReadsFailIsATypedErrorAndOpensOnceTheDiskWorks() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        let model = try CrashModel.make(version: 1)
        do {
            let coordinator = try await StoreCoordinator(model: model, store: .sqlite(url))
            let context = ObjectContext(.privateQueue, coordinator: coordinator)
            try await context.perform {
                let owner = try context.insert(entityNamed: "Owner")
                try owner.setValue("kept", forKey: "name")
                try context.save()
            }
            try coordinator.close()
        }
        let code = await withFaults(Int32(STRATA_FAULT_READ), in: directory) { () async -> StrataError.Code? in
            do { _ = try await StoreCoordinator(model: model, store: .sqlite(url)); return nil } catch { return (error as? StrataError)?.code ?? StrataError.Code(rawValue: "not a StrataError: \(error)") }
        }
        #expect(code != nil, "the store opened although every read failed")
        #expect(code == .storeFailure)

        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(url))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let names = try await context.perform { try context.fetch(FetchRequest<ManagedObject>(entityName: "Owner")).map { $0.value(forKey: "name") as? String } }
        #expect(names == ["kept"])
        try coordinator.close()
        #expect(try DiskFullTests.census(url).integrity == ["ok"])
    }

    @Test func aSaveThatMeetsASyncErrorIsATypedErrorOrDurable() async throws {
        // With WAL and `synchronous = NORMAL` a commit does not sync (a checkpoint does), so a
        // failing fsync may never be met by a save; when it is, the save is a typed error.
        let directory = TemporaryDirectory()
        let url = directory.file()
        let coordinator = try await StoreCoordinator(model: try CrashModel.make(version: 1), store: .sqlite(url))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let outcome = try await withFaults(Int32(STRATA_FAULT_SYNC), in: directory) {
            try await context.perform { () throws -> StrataError? in
                let owner = try context.insert(entityNamed: "Owner")
                try owner.setValue("synced", forKey: "name")
                do { try context.save(); return nil } catch let error as StrataError { #expect(context.hasChanges); return error }
            }
        }
        if let outcome { #expect(outcome.code == .storeFailure) }
        try await context.perform { if context.hasChanges { try context.save() } }
        try coordinator.close()
        let census = try DiskFullTests.census(url)
        #expect(census.integrity == ["ok"])
    }
}
