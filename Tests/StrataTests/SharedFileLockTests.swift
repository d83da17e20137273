import Foundation
import Strata
import Testing

/// A process keeps its SQLite locks on a store for as long as its connections are open.
///
/// POSIX record locks belong to the process, and closing *any* descriptor on a file drops all
/// of them. Opening a store once read its header with a descriptor of its own; when the process
/// already had connections on the file (a second coordinator, as a hybrid stack's import
/// coordinator; or the pool itself, after a lost creation race), that dropped their shared
/// locks. Another process closing its last connection then took itself for the last one,
/// checkpointed, and deleted the -wal the first process went on appending to: every later save
/// of that process was acknowledged and lost (seen as `MultiProcessTests.twoWritersAndAReaderLoseNothing`
/// failing now and then with the last ~150 saves of one writer missing).
@Suite(.serialized) struct SharedFileLockTests {
    /// Inserts one `Item` named `name` through `context` and saves.
    func save(_ name: String, _ context: ObjectContext) async throws {
        try await context.perform {
            try context.insert(entityNamed: "Item").setValue(name, forKey: "name")
            try context.save()
        }
    }

    /// The items another process reads in the store. A line other than `read <digest> <count>`
    /// (the probe's `error <code>`) is recorded with the probe's output, so a failure says why.
    func itemsSeenByAnotherProcess(_ url: URL) async throws -> String? {
        let reader = try ProbeProcess(["read", url.path, "1"])
        #expect(try await reader.finish() == .exited(0), "\(reader.errors)")
        let line = reader.lines.first
        #expect(line?.hasPrefix("read ") == true, "the probe printed \(reader.lines), stderr: \(reader.errors)")
        return line?.split(separator: " ").last.map(String.init)
    }

    /// How many POSIX record locks this process holds on the file at `url` (Linux: from
    /// `/proc/locks`, whose lines read `1: POSIX ADVISORY READ <pid> <maj:min:inode> <start> <end>`).
    func locksHeldByThisProcess(on url: URL) throws -> Int {
        let inode = try #require((try FileManager.default.attributesOfItem(atPath: url.path))[.systemFileNumber] as? NSNumber).uint64Value
        // Read to the end with read(2): /proc files report size 0, and a one-shot read can
        // stop at the first page while other tests hold many locks.
        let descriptor = open("/proc/locks", O_RDONLY)
        try #require(descriptor >= 0, "cannot open /proc/locks")
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }   // interrupted (a loaded machine): read on, not stop short
            try #require(count >= 0, "reading /proc/locks failed: errno \(errno)")
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
        let table = String(decoding: bytes, as: UTF8.self)
        return table.split(separator: "\n").filter { line in
            let fields = line.split(separator: " ")
            return fields.count >= 6 && fields[1] == "POSIX" && fields[4] == "\(getpid())"
                && fields[5].split(separator: ":").last.flatMap { UInt64($0) } == inode
        }.count
    }

    @Test func aSecondCoordinatorOnTheFileKeepsTheFirstOnesLocks() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        let model = try CrashModel.make(version: 1)  // the probe's `read` role opens the store with it
        let first = try await StoreCoordinator(model: model, store: .sqlite(url))
        let context = ObjectContext(.privateQueue, coordinator: first)
        try await save("before", context)
        #if os(Linux)
        #expect(try locksHeldByThisProcess(on: url) > 0, "an open WAL store holds a shared lock on its file")
        #endif

        // The trigger: opening the same file again in this process while `first` is open (a
        // hybrid stack does this for its import coordinator).
        let second = try await StoreCoordinator(model: model, store: .sqlite(url))
        #if os(Linux)
        #expect(try locksHeldByThisProcess(on: url) > 0, "opening a second coordinator dropped the first one's locks")
        #endif

        // Another process opens the store, reads, and exits, closing its connections. Ours are
        // still open, so it is not the last connection: it must leave the -wal in place.
        #expect(try await itemsSeenByAnotherProcess(url) == "1")
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal"), "another process deleted the -wal while this one had the store open")

        // A save acknowledged now is in the file other processes read (before the fix it went to
        // the deleted -wal: another process saw 1 item, and the save was lost unless this
        // process checkpointed it at close).
        try await save("after", context)
        #expect(try await itemsSeenByAnotherProcess(url) == "2")

        try second.close()
        try first.close()
    }
}
