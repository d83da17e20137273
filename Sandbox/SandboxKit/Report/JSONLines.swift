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
        return try results.map { result in
            // Counters also stand at the top level (`delegateCallsDuringMoves`, say), unless a
            // field of the same name is there already.
            guard var object = try JSONSerialization.jsonObject(with: try encoder.encode(result)) as? [String: Any] else {
                return String(decoding: try encoder.encode(result), as: UTF8.self)
            }
            for (key, value) in result.counters where object[key] == nil { object[key] = value }
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            return String(decoding: data, as: UTF8.self)
        }
    }
}
