import SandboxKit
import Testing

/// The progress line's text, the live line's rate limit, the plain lines and `--quiet`, on a
/// clock the test advances and a terminal flag the test chooses (nothing sleeps).
@Suite struct ProgressTests {
    static let erase = ProgressLog.eraseLine

    @Test func lineShowsDoneOfTotalElapsedAndWhatIsLeft() {
        let line = ProgressLine(label: "import/hybrid", done: 50_000, total: 200_000, unit: "objects+relationships",
                                elapsedSeconds: 5, measuredSeconds: 4)
        #expect(line.secondsLeft == 12)
        #expect(line.render() == "import/hybrid  50000/200000 objects+relationships (25%)  5.0 s, ~12 s left")
        // Cut to a narrow terminal, one column spare so the cursor never wraps.
        #expect(line.render(width: 20) == "import/hybrid  5000")
    }

    @Test func lineBeforeTheWorkAndWithoutATotal() {
        let preparing = ProgressLine(label: "paging/hybrid", done: 0, total: 0, unit: "objects", elapsedSeconds: 0.26, measuredSeconds: nil)
        #expect(preparing.render() == "paging/hybrid  setting up  0.3 s")
        let untracked = ProgressLine(label: "paging/hybrid", done: 0, total: 0, unit: "objects", elapsedSeconds: 75, measuredSeconds: 70)
        #expect(untracked.secondsLeft == nil)
        #expect(untracked.render() == "paging/hybrid  running  1 min 15 s")
        let done = ProgressLine(label: "x", done: 10, total: 10, unit: "moves", elapsedSeconds: 12.4, measuredSeconds: 12)
        #expect(done.render() == "x  10/10 moves (100%)  12 s, finishing")
    }

    @Test func liveLineIsRedrawnInPlaceAtMostTenTimesASecond() {
        let clock = ManualClock(), sink = TextSink()
        let log = ProgressLog(style: .live, now: clock.read, write: sink.write)
        log.begin("import/hybrid", note: "import/hybrid: 1000 objects, batch 100")
        log.measuring()
        #expect(sink.writes.count == 1)                  // drawn at once, the note not written
        // 300 ms of updates every 10 ms: a redraw at 100, 200 and 300 ms only.
        for step in 1...30 {
            clock.advance(milliseconds: 10)
            log.update(ProgressCounter.Snapshot(done: step * 30, total: 1000, unit: "objects"))
        }
        let draws = sink.writes
        #expect(draws.count == 4)
        #expect(draws.allSatisfy { $0.hasPrefix(Self.erase + "[sandbox] import/hybrid  ") && !$0.contains("\n") })
        #expect(draws.last == Self.erase + "[sandbox] import/hybrid  900/1000 objects (90%)  0.3 s, <1 s left")
        // A quiet spell, then one update: drawn at once.
        clock.advance(milliseconds: 500)
        log.update(ProgressCounter.Snapshot(done: 950, total: 1000, unit: "objects"))
        #expect(sink.writes.count == 5)
        log.end("import/hybrid: 0.85 s, max stall 2.0 ms, check ok")
        #expect(sink.writes.last == Self.erase + "[sandbox] import/hybrid: 0.85 s, max stall 2.0 ms, check ok\n")
        // After the run's end, a late sample from the timer draws nothing.
        clock.advance(milliseconds: 200)
        log.update(ProgressCounter.Snapshot(done: 1000, total: 1000, unit: "objects"))
        #expect(sink.writes.count == 6)
    }

    @Test func noteDuringALiveLineErasesItFirst() {
        let clock = ManualClock(), sink = TextSink()
        let log = ProgressLog(style: .live, now: clock.read, write: sink.write)
        log.begin("a", note: "")
        log.note("hello")
        #expect(sink.writes.last == Self.erase + "[sandbox] hello\n")
        log.note("again")                                 // no live line on screen now
        #expect(sink.writes.last == "[sandbox] again\n")
        log.update(ProgressCounter.Snapshot(done: 1, total: 2, unit: "objects"))   // redrawn without waiting
        #expect(sink.writes.count == 4)
        log.interrupt()                                   // a failed run leaves its line ended
        #expect(sink.writes.last == "\n")
    }

    @Test func withoutATerminalPlainLinesAtEachTenth() {
        let clock = ManualClock(), sink = TextSink()
        let log = ProgressLog(style: .lines, now: clock.read, write: sink.write)
        log.begin("single-saves/hybrid", note: "single-saves/hybrid: 200 objects, batch 50")
        log.measuring()
        for done in stride(from: 0, through: 200, by: 5) {
            clock.advance(milliseconds: 1)
            log.update(ProgressCounter.Snapshot(done: done, total: 200, unit: "objects"))
        }
        log.end("single-saves/hybrid: 0.20 s, max stall 1.0 ms, check ok")
        let lines = sink.writes
        #expect(lines.allSatisfy { $0.hasSuffix("\n") && !$0.contains("\r") && !$0.contains("\u{1B}") })
        #expect(lines.count == 12)                        // the note, ten tenths, the summary
        #expect(lines[0] == "[sandbox] single-saves/hybrid: 200 objects, batch 50\n")
        #expect(lines[1] == "[sandbox] single-saves/hybrid objects: 20/200\n")
        #expect(lines[10] == "[sandbox] single-saves/hybrid objects: 200/200\n")
    }

    @Test func quietWritesNothing() {
        let sink = TextSink()
        let log = ProgressLog(style: .off, now: ManualClock().read, write: sink.write)
        log.begin("a", note: "a: 1 objects")
        log.measuring()
        log.update(ProgressCounter.Snapshot(done: 1, total: 1, unit: "objects"))
        log.note("x")
        log.end("a: done")
        #expect(sink.writes.isEmpty)
    }

    /// A real run reports through the counter: the import's plain lines reach the last tenth.
    @Test func aRunReportsItsProgress() async throws {
        let sink = TextSink()
        var options = ScenarioTests.options("import", .hybrid)
        options.progressLog = ProgressLog(style: .lines, write: sink.write)
        let counter = ProgressCounter()
        counter.report(3, of: 4, unit: "moves")
        #expect(counter.snapshot() == ProgressCounter.Snapshot(done: 3, total: 4, unit: "moves"))
        _ = try await SandboxRunner(options: options).run()
        #expect(sink.text.contains("[sandbox] import/hybrid: 200 objects, batch 50\n"))
        #expect(sink.text.contains("import/hybrid: ") && sink.text.contains("check ok\n"))
    }
}
