import Foundation

/// `--json`: one JSON object per run, one per line, keys sorted.
///
/// For example:
/// ```swift
/// for line in try JSONLines.lines(results) { print(line) }
/// ```
public enum JSONLines {
    /// One JSON text per result.
    public static func lines(_ results: [RunResult]) throws -> [String] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try results.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
    }
}
