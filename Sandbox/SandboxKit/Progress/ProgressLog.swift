import Foundation
import Strata

/// Progress on standard error (so `--json` on standard output stays clean), in one of three
/// styles: ``Style/live`` redraws one line per run in place (a terminal), ``Style/lines``
/// writes plain lines (a file or a pipe), ``Style/off`` writes nothing (`--quiet`, tests).
///
/// The runner calls ``begin(_:note:)`` when a run starts, ``measuring()`` when its measured
/// work starts, ``update(_:)`` from a timer with the run's ``ProgressCounter``, and
/// ``end(_:)`` with the run's summary. The live line is redrawn at most once per
/// ``minimumRedrawNanoseconds`` of the log's clock however often `update` is called.
///
/// For example:
/// ```swift
/// let log = ProgressLog(style: isatty(STDERR_FILENO) == 1 ? .live : .lines)
/// log.begin("import/hybrid", note: "import/hybrid: 100000 objects, batch 1000")
/// log.measuring()
/// log.update(ProgressCounter.Snapshot(done: 500, total: 1000, unit: "objects"))
/// log.end("import/hybrid: 1.95 s, max stall 14.1 ms, check ok")
/// ```
public final class ProgressLog: Sendable {
    /// How progress is shown.
    public enum Style: Sendable, Equatable {
        /// Nothing.
        case off
        /// Plain lines: a run's start, each tenth of its units, its end.
        case lines
        /// One line per run redrawn in place (carriage return and erase-line), then its summary.
        case live
    }

    /// The style.
    public let style: Style
    /// The shortest time between two redraws of the live line: 100 ms (ten a second).
    public let minimumRedrawNanoseconds: UInt64 = 100_000_000
    private let now: @Sendable () -> UInt64
    private let width: Int?
    private let write: @Sendable (String) -> Void
    private let state = Locked(State())

    /// What erases the line the cursor is on: back to its start, erase to its end.
    public static let eraseLine = "\r\u{1B}[K"
    /// Put before every line written.
    public static let prefix = "[sandbox] "

    struct State {
        var label = ""
        var active = false
        var started: UInt64 = 0
        var measuring: UInt64?
        var lastDraw: UInt64?
        var lastTenth: Int?
        var lineShown = false
        var latest = ProgressCounter.Snapshot(done: 0, total: 0, unit: "objects")
    }

    /// A log.
    ///
    /// - Parameters:
    ///   - now: The clock in nanoseconds (nil: the system's uptime); tests pass one they advance.
    ///   - width: The terminal's width, to cut the live line to (nil: not cut).
    ///   - write: Where text goes (nil: standard error); tests collect it.
    public init(style: Style, now: (@Sendable () -> UInt64)? = nil, width: Int? = nil, write: (@Sendable (String) -> Void)? = nil) {
        self.style = style
        self.now = now ?? { DispatchTime.now().uptimeNanoseconds }
        self.width = width
        self.write = write ?? { text in FileHandle.standardError.write(Data(text.utf8)) }
    }

    /// A log writing plain lines when `enabled`, nothing otherwise.
    public convenience init(enabled: Bool) { self.init(style: enabled ? .lines : .off) }

    /// Writes one plain line (erasing the live line first, which the next update redraws).
    public func note(_ line: String) {
        guard style != .off else { return }
        state.withLock { state in
            // Written under the lock, so a redraw from the timer never splits a line.
            write((state.lineShown ? Self.eraseLine : "") + Self.prefix + line + "\n")
            state.lineShown = false
            state.lastDraw = nil
        }
    }

    /// A run called `label` starts: `note` is written as a plain line, or the live line is drawn.
    public func begin(_ label: String, note: String) {
        guard style != .off else { return }
        let time = now()
        state.withLock { $0 = State(label: label, active: true, started: time) }
        if style == .lines { self.note(note) } else { draw(force: true) }
    }

    /// The run's measured work starts: the estimate of what is left counts from here.
    public func measuring() {
        guard style != .off else { return }
        let time = now()
        state.withLock { $0.measuring = time }
    }

    /// The run's counter now reads `snapshot`: redraws the live line (at most ten times a second),
    /// or writes a plain line when another tenth of the total is done.
    public func update(_ snapshot: ProgressCounter.Snapshot) {
        switch style {
        case .off: return
        case .live:
            state.withLock { $0.latest = snapshot }
            draw(force: false)
        case .lines:
            guard snapshot.total > 0 else { return }
            let tenth = min(10, snapshot.done * 10 / snapshot.total)
            let label = state.withLock { state -> String? in
                guard state.active, tenth > 0, state.lastTenth != tenth else { return nil }
                state.lastTenth = tenth
                return state.label
            }
            if let label { note("\(label) \(snapshot.unit): \(snapshot.done)/\(snapshot.total)") }
        }
    }

    /// The run ended: its live line is replaced by `summary` (a plain line in both styles).
    public func end(_ summary: String) {
        note(summary)
        state.withLock { $0 = State() }
    }

    /// Ends a live line left on screen by a run that failed (nothing after ``end(_:)``), so
    /// what is written next starts on a line of its own.
    public func interrupt() {
        state.withLock { state in
            if state.lineShown { write("\n") }
            state = State()
        }
    }

    /// The line the live style would draw now.
    public func currentLine() -> ProgressLine {
        let time = now()
        return state.withLock { Self.line(of: $0, at: time) }
    }

    private static func line(of state: State, at time: UInt64) -> ProgressLine {
        ProgressLine(label: state.label, done: state.latest.done, total: state.latest.total, unit: state.latest.unit,
                     elapsedSeconds: Double(time &- state.started) / 1e9,
                     measuredSeconds: state.measuring.map { Double(time &- $0) / 1e9 })
    }

    private func draw(force: Bool) {
        let time = now()
        let lineWidth = width.map { $0 - Self.prefix.count }
        state.withLock { state in
            guard state.active else { return }
            if !force, let last = state.lastDraw, time &- last < minimumRedrawNanoseconds { return }
            state.lastDraw = time
            state.lineShown = true
            write(Self.eraseLine + Self.prefix + Self.line(of: state, at: time).render(width: lineWidth))
        }
    }
}
