import Foundation
import Testing

/// `MainQueue.isCurrent`'s first answer in a process. It marks the main queue on first use;
/// when it asked the queue before marking it, the first question asked on the main queue was
/// answered `false`. Only a fresh process has a first question, so a child process
/// (`StrataProcessProbe main-write`) asks it: its one write, on the main queue, must count in
/// `StoreCoordinator.mainQueueWrites`.
@Suite struct MainQueueFirstQuestionTests {
    @Test func aProcesssFirstWriteOnTheMainQueueCountsAsOne() async throws {
        let directory = TemporaryDirectory()
        let probe = try ProbeProcess(["main-write", directory.file().path])
        let status = try await probe.finish()
        #expect(status == .exited(0), "\(status): \(probe.errors)")
        #expect(probe.lines == ["mainQueueWrites 1"])
    }
}
