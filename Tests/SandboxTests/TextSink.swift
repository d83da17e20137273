import Strata

/// Collects what a ``ProgressLog`` writes, in order, instead of standard error.
///
/// For example:
/// ```swift
/// let sink = TextSink()
/// let log = ProgressLog(style: .live, write: sink.write)
/// #expect(sink.writes.isEmpty)
/// ```
final class TextSink: Sendable {
    private let texts = Locked<[String]>([])

    /// Records one write.
    @Sendable func write(_ text: String) { texts.withLock { $0.append(text) } }

    /// Every write so far.
    var writes: [String] { texts.withLock { $0 } }

    /// Everything written, joined.
    var text: String { writes.joined() }
}
