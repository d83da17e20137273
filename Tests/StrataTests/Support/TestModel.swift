import Foundation
@testable import Strata

final class Folder: ManagedObject {
    @Attribute("name") var name = ""
    @Relationship("notes", inverse: "folder", deleteRule: .cascade) var notes: Set<Note>
    @Relationship("owner", inverse: "folders") var owner: Person?
}

final class Note: ManagedObject {
    @Attribute("title") var title = ""
    @Attribute("created") var created = Date()
    @Attribute("uniqueIdentifier", .unique) var uniqueIdentifier = ""
    @Attribute("metadata", transformer: .json) var metadata: [String: String] = [:]
    @Attribute("rating") var rating: Int16 = 0
    @Attribute("subtitle") var subtitle: String? = nil
    @Relationship("folder", inverse: "notes") var folder: Folder?
    @Relationship("tags", inverse: "notes") var tags: Set<Tag>

    /// How many times `awakeFromFetch()` ran on this object (a plain stored property: reading
    /// it fires no fault).
    var awakeFromFetchCount = 0
    /// Whether `awakeFromFetch()` ran at least once.
    var awakenedFromFetch: Bool { awakeFromFetchCount > 0 }
    override func awakeFromInsert() { uniqueIdentifier = UUID().uuidString }
    override func awakeFromFetch() { awakeFromFetchCount += 1 }
    override func validateForUpdate() throws {
        if title == "invalid" { throw NoteError.invalidTitle }
    }
    override func validateForInsert() throws {
        if title == "invalid" { throw NoteError.invalidTitle }
    }
}

enum NoteError: Error { case invalidTitle }

final class Tag: ManagedObject {
    @Attribute("label") var label = ""
    @Relationship("notes", inverse: "tags") var notes: Set<Note>
}

final class Person: ManagedObject {
    @Attribute("name") var name = ""
    @Relationship("folders", inverse: "owner", deleteRule: .deny) var folders: Set<Folder>
    @Relationship("playlist", inverse: "person") var playlist: [Track]
}

final class Track: ManagedObject {
    @Attribute("title") var title = ""
    @Relationship("person", inverse: "playlist", deleteRule: .nullify) var person: Person?
}

/// A temporary directory removed when the value is dropped (a failing test drops it too).
///
/// An exit test's child process may trap before any `deinit` runs: there the parent owns the
/// directory and the child gets its path through the capture list (see `makeStore(file:)`).
final class TemporaryDirectory: @unchecked Sendable {  // safe: immutable after init
    let url: URL
    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func file(_ name: String = "store.sqlite") -> URL { url.appendingPathComponent(name) }
    deinit { try? FileManager.default.removeItem(at: url) }
}

let testModel: ObjectModel = {
    do { return try ObjectModel(Folder.self, Note.self, Tag.self, Person.self, Track.self) }
    catch { preconditionFailure("test model: \(error)") }  // programmer error: the test model is valid
}()

/// A coordinator on a fresh SQLite file, and a private context on it.
func makeStore(_ directory: TemporaryDirectory, name: String = "store.sqlite") async throws -> (StoreCoordinator, ObjectContext) {
    try await makeStore(file: directory.file(name))
}

/// A coordinator on the SQLite file `url`, and a private context on it: for an exit test's
/// child process, whose directory the parent owns (the child may trap before it could remove it).
///
/// For example:
/// ```swift
/// let directory = TemporaryDirectory(), url = directory.file()
/// await #expect(processExitsWith: .failure) { [url = url as URL] in
///     let (coordinator, context) = try await makeStore(file: url)
/// }
/// ```
func makeStore(file url: URL) async throws -> (StoreCoordinator, ObjectContext) {
    let coordinator = try await StoreCoordinator(model: testModel, store: .sqlite(url))
    return (coordinator, ObjectContext(.privateQueue, coordinator: coordinator))
}
