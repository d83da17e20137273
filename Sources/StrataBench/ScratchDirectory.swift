/// A temporary directory for the benchmark's SQLite files, removed at the end of the run.
import Foundation

/// Hands out fresh, unique file URLs in one temporary directory.
final class ScratchDirectory {
    let url: URL
    private var counter = 0

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-bench-\(UUID().uuidString)")
        do { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) } catch {
            fail("cannot create \(url.path): \(error)")
        }
    }

    /// A new file name that has never been used in this directory.
    func newFile(_ prefix: String) -> URL {
        counter += 1
        return url.appendingPathComponent("\(prefix)-\(counter).sqlite")
    }

    /// Deletes the directory and every store in it.
    func remove() { try? FileManager.default.removeItem(at: url) }
}
