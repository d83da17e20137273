public import Foundation
import Synchronization

/// A temporary folder for the Sandbox's store files: every run gets new files in it, and
/// the folder is removed when the Sandbox is done.
///
/// For example:
/// ```swift
/// let scratch = try ScratchDirectory()
/// let url = scratch.newFile("import-hybrid")
/// scratch.remove()
/// ```
public final class ScratchDirectory: Sendable {
    /// The folder.
    public let url: URL
    private let counter = Atomic<Int>(0)

    /// Creates a fresh folder under the system's temporary directory.
    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-sandbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A store file name never used before in this folder.
    public func newFile(_ prefix: String) -> URL {
        let n = counter.add(1, ordering: .relaxed).newValue
        return url.appendingPathComponent("\(prefix)-\(n).sqlite")
    }

    /// Deletes the folder and every store in it.
    public func remove() { try? FileManager.default.removeItem(at: url) }
}
