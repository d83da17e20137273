/// The tiny model the benchmark measures (`Folder` ⟷ `Note`), and the source rows every
/// benchmark writes, generated once so that raw SQLite and the engine write identical data.
import Foundation
import Strata

/// A folder of notes.
final class Folder: ManagedObject {
    @Attribute("name") var name = ""
    @Relationship("notes", inverse: "folder") var notes: Set<Note>
}

/// A note: the measured entity. Its table is
/// `_id INTEGER PRIMARY KEY, _version INTEGER, title TEXT, created REAL, rating INTEGER, folder INTEGER`.
final class Note: ManagedObject {
    @Attribute("title") var title = ""
    @Attribute("created") var created = Date(timeIntervalSince1970: 0)
    @Attribute("rating") var rating: Int64 = 0
    @Relationship("folder", inverse: "notes") var folder: Folder?
}

/// One note's values, as the source data of an import.
struct NoteRow: Sendable {
    let title: String
    let created: Date
    let rating: Int64
    /// Which of the ``BenchData/folderCount`` folders the note belongs to.
    let folderIndex: Int
}

/// The data set: `count` notes spread over 100 folders.
struct BenchData: Sendable {
    static let folderCount = 100
    let notes: [NoteRow]

    init(count: Int) {
        notes = (0..<count).map { i in
            NoteRow(title: "Note number \(i)", created: Date(timeIntervalSince1970: 1_700_000_000 + Double(i)),
                    rating: Int64(i % 5), folderIndex: i % Self.folderCount)
        }
    }
}

/// Builds the model, or exits: the model is fixed, so failing here is a bench bug.
func makeBenchModel() -> ObjectModel {
    do { return try ObjectModel(Folder.self, Note.self) } catch {
        fail("cannot build the model: \(error)")
    }
}

/// Prints `message` to standard error and exits with status 1.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("StrataBench: \(message)\n".utf8))
    exit(1)
}
