public import Foundation
import Synchronization

/// A folder for the Sandbox's store files: every run gets new files in it. A temporary
/// folder is removed when the Sandbox is done; a folder the caller gave is kept.
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
    /// Whether ``remove()`` deletes the folder (false for a folder the caller owns).
    public let isTemporary: Bool
    private let counter = Atomic<Int>(0)

    /// Creates a fresh folder under the system's temporary directory.
    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-sandbox-\(UUID().uuidString)")
        isTemporary = true
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Uses the caller's folder `url` (created if missing); ``remove()`` leaves it and its
    /// stores in place, for the caller to inspect and delete.
    public init(keeping url: URL) throws {
        self.url = url
        isTemporary = false
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A store file name never used before in this folder.
    public func newFile(_ prefix: String) -> URL {
        let n = counter.add(1, ordering: .relaxed).newValue
        return url.appendingPathComponent("\(prefix)-\(n).sqlite")
    }

    /// Deletes the folder and every store in it, unless the folder is the caller's.
    public func remove() {
        guard isTemporary else { return }
        try? FileManager.default.removeItem(at: url)
    }
}
