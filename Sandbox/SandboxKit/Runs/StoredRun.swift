public import Foundation

/// `--json-out FILE`: an invocation kept in a file for a later `--compare FILE` — what
/// `--json` prints (each run's median figures) plus every repeat, the command and the date,
/// under a format name and version.
///
/// For example:
/// ```swift
/// let stored = StoredRun(command: "Sandbox --repeat 3", runs: runs)
/// try stored.write(to: URL(fileURLWithPath: "runs.json"))
/// let earlier = try StoredRun.read(from: URL(fileURLWithPath: "runs.json"))
/// ```
public struct StoredRun: Sendable, Codable, Hashable {
    /// The `format` every stored run carries.
    public static let formatName = "strata-sandbox-run"
    /// The version this Sandbox writes and reads.
    public static let currentVersion = 1

    /// ``formatName``.
    public var format: String
    /// The file's version (``currentVersion`` when written by this Sandbox).
    public var version: Int
    /// The command line that made the run.
    public var command: String
    /// When it was made, ISO 8601 in UTC.
    public var recorded: String
    /// `--repeat`: how many times each run was measured.
    public var repeats: Int
    /// The runs, in the order they ran.
    public var runs: [RepeatedResult]

    /// A stored run of `runs`, recorded `date`.
    public init(command: String, runs: [RepeatedResult], date: Date = Date()) {
        format = Self.formatName
        version = Self.currentVersion
        self.command = command
        recorded = ISO8601DateFormatter().string(from: date)
        repeats = runs.map(\.repeats.count).max() ?? 0
        self.runs = runs
    }

    /// The file's text: pretty-printed JSON with sorted keys (a diff of two runs stays readable).
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Writes the file.
    public func write(to url: URL) throws {
        try encoded().write(to: url, options: .atomic)
    }

    /// Reads a file written by ``write(to:)``.
    ///
    /// - Throws: ``SandboxError`` when the file cannot be read, is not a stored run, or has a
    ///   version this Sandbox does not read.
    public static func read(from url: URL) throws -> StoredRun {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw SandboxError("cannot read \(url.path): \(error.localizedDescription)")
        }
        return try decode(data, name: url.path)
    }

    /// Decodes a stored run; `name` is used in errors.
    public static func decode(_ data: Data, name: String) throws -> StoredRun {
        struct Header: Decodable { var format: String?; var version: Int? }
        guard let header = try? JSONDecoder().decode(Header.self, from: data), header.format == formatName else {
            throw SandboxError("\(name) is not a stored Sandbox run (write one with --json-out)")
        }
        guard header.version == currentVersion else {
            throw SandboxError("\(name) is a stored run of version \(header.version.map(String.init) ?? "none"); this Sandbox reads version \(currentVersion)")
        }
        do { return try JSONDecoder().decode(StoredRun.self, from: data) } catch {
            throw SandboxError("\(name) is a damaged stored run: \(error)")
        }
    }
}
