// StrataProcessProbe: one role of a multi-process test, run as a child process by
// Tests/StrataTests/MultiProcessTests.swift (not a product). Each role opens the store with the
// probe's model and writes one line to stdout per event the test checks.
//
//   writer <store> <writerID> <count> [policy]   saves `count` times; "ack <writer> <seq> <token>" after each,
//                                                 "failed <code> hasChanges=<bool>" if a save throws
//   reader <store> <seconds>                      checks invariants while others write; exit 1 on a violation
//   edit <store> <policy> <writerID> <label>      reads the shared row, "ready", waits for a line, saves once
//   watch <store> <seconds>                       saves once, "own <bool>", "ready", then "external" when another process saves
//   sync <store> <cloud> <label> <count>          a sync peer: "attached", then per round "saved <token>", "synced <n>"
//   mixed <store> <version> <seed> <firstStep>    the crash harness's writer (MixedRole): "opened", then "pending <n> <kind> <digest>"
//                                                 and "ack <n>" per step, forever
//   open <store> <version>                        opens the crash model's store (migrating it), "opened <ms>" (ms since
//                                                 the probe's code started), closes it; "step <name>" for each migration step
//                                                 reached, and with STRATA_KILL_AT_MIGRATION_STEP=<name> it kills itself
//                                                 (SIGKILL) at that step (MigrationStepKillTests)
//   open-hierarchy <store> <version>              the same with HierarchyCrashModel (MigrationHierarchyKillTests)
//   main-write <store>                            inserts one Entry with a batch insert on the main queue, the
//                                                 process's first main-queue question: "mainQueueWrites <n>"
//   read <store> <version> [write]                opens the crash model's store and reads its graph: "read <digest> <items>",
//                                                 or "error <code>" for a StrataError (at open or at read); with `write`,
//                                                 then saves one object: "saved" or "save-error <code> hasChanges=<bool>"
//
// STRATA_DROP_PRIVILEGES=1: a probe started as root becomes `nobody` first, so file modes apply to it.
//
// STRATA_BUSY_TIMEOUT in the environment sets StoreOptions.busyTimeout (seconds).
// Exit status: 0 done, 1 an invariant was violated, 2 a Strata error, 64 bad usage.
import Foundation
@_spi(StrataTesting) import Strata

let arguments = Array(CommandLine.arguments.dropFirst())
/// When the probe's own code started (the `open` role reports its open time from here).
let probeStarted = Date()

if ProcessInfo.processInfo.environment["STRATA_DROP_PRIVILEGES"] == "1", getuid() == 0 {
    guard setgid(65534) == 0, setuid(65534) == 0 else { fail("cannot drop privileges", status: 64) }
}

/// Writes a line to stdout unbuffered (one `write`), so a parent reading a pipe sees it at
/// once and a kill right after loses nothing already acknowledged.
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Writes to stderr and exits with `status`.
func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(status)
}

func openStore(_ path: String) async -> StoreCoordinator {
    do {
        let model = try ProbeModel.make()
        var options = StoreOptions()
        if let timeout = ProcessInfo.processInfo.environment["STRATA_BUSY_TIMEOUT"].flatMap(Double.init) { options.busyTimeout = timeout }
        return try await StoreCoordinator(model: model, store: .sqlite(URL(fileURLWithPath: path), options: options))
    } catch {
        fail("open \(path): \(error)", status: 2)
    }
}

func policy(named name: String) -> MergePolicy {
    guard let policy = MergePolicy(rawValue: name) else { fail("unknown merge policy \(name)", status: 64) }
    return policy
}

switch (arguments.first, arguments.count) {
case ("writer", 4), ("writer", 5):
    guard let count = Int(arguments[3]), count > 0, ProbeModel.writerIDs.contains(arguments[2]) else {
        fail("usage: writer <store> <a|b|c|d> <count> [policy]", status: 64)
    }
    let coordinator = await openStore(arguments[1])
    let chosen = arguments.count == 5 ? policy(named: arguments[4]) : .mergeByPropertyObjectTrump
    await WriterRole(coordinator: coordinator, writer: arguments[2], count: count, policy: chosen).run()
case ("sync", 5):
    guard let count = Int(arguments[4]), count > 0 else { fail("usage: sync <store> <cloud> <label> <count>", status: 64) }
    await SyncRole(storePath: arguments[1], cloudPath: arguments[2], label: arguments[3], count: count).run()
case ("reader", 3):
    guard let seconds = Double(arguments[2]) else { fail("usage: reader <store> <seconds>", status: 64) }
    let coordinator = await openStore(arguments[1])
    await ReaderRole(coordinator: coordinator, seconds: seconds).run()
case ("edit", 5):
    guard ProbeModel.writerIDs.contains(arguments[3]) else { fail("usage: edit <store> <policy> <a|b|c|d> <label>", status: 64) }
    let coordinator = await openStore(arguments[1])
    await EditRole(coordinator: coordinator, policy: policy(named: arguments[2]), writer: arguments[3], label: arguments[4]).run()
case ("watch", 3):
    guard let seconds = Double(arguments[2]) else { fail("usage: watch <store> <seconds>", status: 64) }
    let coordinator = await openStore(arguments[1])
    await WatchRole(coordinator: coordinator, seconds: seconds).run()
case ("mixed", 5):
    guard let version = Int(arguments[2]), version >= 1, let seed = UInt64(arguments[3]), let first = Int(arguments[4]), first >= 1 else {
        fail("usage: mixed <store> <version> <seed> <firstStep>", status: 64)
    }
    var options = StoreOptions()
    options.recordsHistory = true
    let coordinator: StoreCoordinator
    do { coordinator = try await StoreCoordinator(model: try CrashModel.make(version: version), store: .sqlite(URL(fileURLWithPath: arguments[1]), options: options)) }
    catch { fail("open \(arguments[1]): \(error)", status: 2) }
    emit("opened")
    await MixedRole(coordinator: coordinator, seed: seed, firstStep: first).run()
case ("open", 3):
    guard let version = Int(arguments[2]) else { fail("usage: open <store> <version>", status: 64) }
    let killAt = ProcessInfo.processInfo.environment["STRATA_KILL_AT_MIGRATION_STEP"]
    MigrationStep.observe { step in
        emit("step \(step.name)")
        if step.name == killAt { kill(getpid(), SIGKILL) }
    }
    do {
        let coordinator = try await StoreCoordinator(model: try CrashModel.make(version: version), store: .sqlite(URL(fileURLWithPath: arguments[1])))
        emit("opened \(Int(Date().timeIntervalSince(probeStarted) * 1000))")
        try coordinator.close()
    } catch {
        fail("open: \(error)", status: 2)
    }
case ("open-hierarchy", 3):
    guard let version = Int(arguments[2]) else { fail("usage: open-hierarchy <store> <version>", status: 64) }
    let killAt = ProcessInfo.processInfo.environment["STRATA_KILL_AT_MIGRATION_STEP"]
    MigrationStep.observe { step in
        emit("step \(step.name)")
        if step.name == killAt { kill(getpid(), SIGKILL) }
    }
    do {
        let coordinator = try await StoreCoordinator(model: try HierarchyCrashModel.make(version: version), store: .sqlite(URL(fileURLWithPath: arguments[1])))
        emit("opened")
        try coordinator.close()
    } catch {
        fail("open-hierarchy: \(error)", status: 2)
    }
case ("main-write", 2):
    // A fresh process whose first question "is this the main queue?" is asked by a write on
    // the main queue (MainQueueFirstQuestionTests): nothing here marks the main queue before it.
    let coordinator = await openStore(arguments[1])
    let request = BatchInsertRequest(entityName: "Entry", keys: ["token", "writer", "sequence"], count: 1) { _, values in
        values[0] = .string("main-\(UUID().uuidString)")
        values[1] = .string("a")
        values[2] = .integer(1)
    }
    let writes: Int = await withCheckedContinuation { continuation in
        DispatchQueue.main.async {
            do { _ = try coordinator.execute(request) } catch { fail("main-write: \(error)", status: 2) }
            continuation.resume(returning: coordinator.mainQueueWrites)
        }
    }
    emit("mainQueueWrites \(writes)")
case ("read", 3), ("read", 4):
    guard let version = Int(arguments[2]), arguments.count == 3 || arguments[3] == "write" else { fail("usage: read <store> <version> [write]", status: 64) }
    do {
        let coordinator = try await StoreCoordinator(model: try CrashModel.make(version: version), store: .sqlite(URL(fileURLWithPath: arguments[1])))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let state = try await context.perform { try CrashState.read(context) }
        emit("read \(state.digest) \(state.items.count)")
        if arguments.count == 4 {
            let line = try await context.perform { () throws -> String in
                try context.insert(entityNamed: "Owner").setValue("probe-\(UUID().uuidString)", forKey: "name")
                do {
                    try context.save()
                    return "saved"
                } catch let error as StrataError {
                    return "save-error \(error.code) hasChanges=\(context.hasChanges)"
                }
            }
            emit(line)
        }
    } catch let error as StrataError {
        emit("error \(error.code)")
        FileHandle.standardError.write(Data("\(error)\n".utf8))
    } catch {
        fail("read: not a StrataError: \(error)", status: 2)
    }
default:
    fail("usage: StrataProcessProbe writer|reader|edit|watch|mixed|open|open-hierarchy|read …", status: 64)
}
