import Foundation
import Strata
import StrataRandom
import Testing
@testable import StrataSync

/// How a random sync run is set up; `STRATA_SEED=n` replays one seed, `STRATA_LONG=1` runs
/// more seeds and steps.
struct SyncRunSettings: Sendable {
    var peers: Int
    var steps: Int
    var baselineEventThreshold = 100
    /// When set, the memory cloud injects these faults until the final round.
    var faults: FaultPlan?
    var useFolder = false
    /// When set, the cloud is a fresh one of this backend (a real server) instead of memory or a folder.
    var backend: Backend?
    /// When set, the cloud is an `EncryptedCloudFileSystem` over the memory cloud or folder.
    var encrypted = false
    /// Objects per store save when a sync materializes its merge (``EnsembleOptions/mergePieceSize``).
    var mergePieceSize = EnsembleOptions().mergePieceSize
    /// Whether authors and tags are inheritance hierarchies (``SyncTestModel/makeHierarchy()``),
    /// so books link into them.
    var hierarchies = false

    static var environment: [String: String] { ProcessInfo.processInfo.environment }
    static var isLong: Bool { environment["STRATA_LONG"] == "1" }

    /// The seeds to run: `STRATA_SEED` alone, or `count` seeds from `first`.
    static func seeds(_ count: Int, longCount: Int, first: UInt64) -> [UInt64] {
        if let text = environment["STRATA_SEED"], let seed = UInt64(text) { return [seed] }
        return (0..<UInt64(isLong ? longCount : count)).map { first &+ $0 }
    }
}

/// One device in a random run: its store, its edit context, and its ensemble (replaced by a
/// new instance over the same store and state to model the app being killed and relaunched).
final class SyncDevice {
    let index: Int
    let folder: TemporaryFolder
    let coordinator: StoreCoordinator
    let context: ObjectContext
    let cloud: any CloudFileSystem
    let options: EnsembleOptions
    var ensemble: Ensemble
    var counter = 0

    init(_ index: Int, cloud: any CloudFileSystem, model: ObjectModel, options: EnsembleOptions) async throws {
        self.index = index
        self.cloud = cloud
        self.options = options
        folder = TemporaryFolder("device-\(index)")
        var storeOptions = StoreOptions()
        storeOptions.recordsHistory = true
        coordinator = try await StoreCoordinator(model: model, store: .sqlite(folder.url.appending(path: "store.sqlite"), options: storeOptions))
        ensemble = try await Ensemble(identifier: "Random", coordinator: coordinator, cloudFileSystem: cloud,
                                      globalIdentifiers: .attribute("uniqueIdentifier"), options: options)
        context = ObjectContext(.privateQueue, coordinator: coordinator, name: "device-\(index)")
        context.mergePolicy = .mergeByPropertyObjectTrump
        context.automaticallyMergesChangesFromParent = true
    }

    /// Drops the ensemble object and opens a new one over the same store and state, as a
    /// relaunched app does.
    func relaunch() async throws {
        ensemble = try await Ensemble(identifier: "Random", coordinator: coordinator, cloudFileSystem: cloud,
                                      globalIdentifiers: .attribute("uniqueIdentifier"), options: options)
    }

    /// Every tracked property of the store's objects, by label (`Author:<id>`, `Book:<title>`).
    func trackedValues() async throws -> [TrackedKey: String] {
        let context = self.context
        return try await context.perform {
            var values: [TrackedKey: String] = [:]
            for author in try context.fetch(FetchRequest<ManagedObject>(entityName: "Author")) {
                let label = "Author:\(author.primitiveValue(forKey: "uniqueIdentifier"))"
                values[TrackedKey(label: label, property: "name")] = "\(author.primitiveValue(forKey: "name"))"
            }
            for book in try context.fetch(FetchRequest<ManagedObject>(entityName: "Book")) {
                let label = "Book:\(book.primitiveValue(forKey: "title"))"
                values[TrackedKey(label: label, property: "rating")] = "\(book.primitiveValue(forKey: "rating"))"
                values[TrackedKey(label: label, property: "cover")] = "\(book.primitiveValue(forKey: "cover"))"
                let author = (book.value(forKey: "author") as? ManagedObject).map { "\($0.primitiveValue(forKey: "uniqueIdentifier"))" } ?? "none"
                values[TrackedKey(label: label, property: "author")] = author
            }
            return values
        }
    }
}

/// A property of an object named by something every peer sees the same (not its row).
struct TrackedKey: Hashable, Sendable, CustomStringConvertible {
    var label: String
    var property: String
    var description: String { "\(label).\(property)" }
}

/// Which devices wrote a tracked property, and the last value written.
struct TrackedWrite {
    var writers: Set<Int> = []
    var last: String
    var lastWriter: Int
}

/// One random edit, drawn outside the context (the generator can't cross into its queue).
struct RandomEdit: Sendable {
    enum Kind: Sendable, CaseIterable { case insertAuthor, insertBook, insertTag, renameAuthor, updateBook, setAuthor, editTags, deleteBook, deleteTag, deleteAuthor }
    var kind: Kind
    var draws: [UInt64]
    var device: Int
    var counter: Int
    /// Authors and tags are made as subentities (``SyncRunSettings/hierarchies``).
    var hierarchies = false

    static func draw(_ random: inout SplitMix64, device: Int, counter: Int, hierarchies: Bool = false) -> RandomEdit {
        // Weights: inserts and updates often, deletes rarely (an author's delete cascades).
        let table: [(Kind, Int)] = [(.insertAuthor, 6), (.insertBook, 14), (.insertTag, 6), (.renameAuthor, 10), (.updateBook, 16),
                                    (.setAuthor, 10), (.editTags, 14), (.deleteBook, 5), (.deleteTag, 3), (.deleteAuthor, 2)]
        var roll = Int(random.next() % UInt64(table.reduce(0) { $0 + $1.1 }))
        var kind = Kind.insertBook
        for (candidate, weight) in table { if roll < weight { kind = candidate; break }; roll -= weight }
        return RandomEdit(kind: kind, draws: (0..<6).map { _ in random.next() }, device: device, counter: counter, hierarchies: hierarchies)
    }

    /// Applies the edit in `context` (on its queue); returns the tracked properties written.
    func apply(in context: ObjectContext) throws -> [(TrackedKey, String)] {
        func all(_ entity: String) throws -> [ManagedObject] {
            try context.fetch(FetchRequest<ManagedObject>(entityName: entity)).sorted { "\($0.objectID)" < "\($1.objectID)" }
        }
        func pick(_ objects: [ManagedObject], _ draw: UInt64) -> ManagedObject? { objects.isEmpty ? nil : objects[Int(draw % UInt64(objects.count))] }
        func label(_ object: ManagedObject) -> String {
            object.entity.attribute(named: "uniqueIdentifier") != nil ? "Author:\(object.primitiveValue(forKey: "uniqueIdentifier"))" : "Book:\(object.primitiveValue(forKey: "title"))"
        }
        func authorName(_ author: ManagedObject?) -> String { author.map { "\($0.primitiveValue(forKey: "uniqueIdentifier"))" } ?? "none" }
        let stamp = "d\(device)-\(counter)"
        var written: [(TrackedKey, String)] = []
        func write(_ object: ManagedObject, _ property: String, _ value: Any?) throws {
            try object.setValue(value, forKey: property)
            let shown = property == "author" ? authorName(value as? ManagedObject) : "\(object.primitiveValue(forKey: property))"
            written.append((TrackedKey(label: label(object), property: property), shown))
        }
        switch kind {
        case .insertAuthor:
            let id = "a\(draws[0] % 12)"
            // One entity per identifier: objects of two entities of a hierarchy never share one.
            let entity = hierarchies ? ["Author", "Poet", "Novelist"][Int(draws[0] % 12 % 3)] : "Author"
            let author = try all("Author").first { $0.primitiveValue(forKey: "uniqueIdentifier") == .string(id) }
                ?? context.make(entity, ["uniqueIdentifier": id])
            try write(author, "name", "n-\(stamp)")
        case .insertBook:
            let book = try context.make("Book", ["title": "b-\(stamp)"])
            try write(book, "rating", Int(draws[0] % 10))
            try write(book, "cover", draws[1] % 3 == 0 ? nil : Data(stamp.utf8))
            try write(book, "author", draws[2] % 4 == 0 ? nil : pick(try all("Author"), draws[3]))
            if let tag = pick(try all("Tag"), draws[4]) { try book.setValue(Set([tag]), forKey: "tags") }
        case .insertTag:
            try context.make(hierarchies ? (draws[0] % 2 == 0 ? "Genre" : "Mood") : "Tag", ["name": "t-\(stamp)"])
        case .renameAuthor:
            if let author = pick(try all("Author"), draws[0]) { try write(author, "name", "n-\(stamp)") }
        case .updateBook:
            guard let book = pick(try all("Book"), draws[0]) else { break }
            if draws[1] % 2 == 0 { try write(book, "rating", Int(draws[2] % 10)) } else { try write(book, "cover", draws[2] % 4 == 0 ? nil : Data(stamp.utf8)) }
        case .setAuthor:
            guard let book = pick(try all("Book"), draws[0]) else { break }
            try write(book, "author", draws[1] % 5 == 0 ? nil : pick(try all("Author"), draws[2]))
        case .editTags:
            guard let book = pick(try all("Book"), draws[0]), let tag = pick(try all("Tag"), draws[1]) else { break }
            var tags = (book.value(forKey: "tags") as? Set<ManagedObject>) ?? []
            if tags.contains(tag) { tags.remove(tag) } else { tags.insert(tag) }
            try book.setValue(tags, forKey: "tags")
        case .deleteBook:
            if let book = pick(try all("Book"), draws[0]) { context.delete(book) }
        case .deleteTag:
            if let tag = pick(try all("Tag"), draws[0]) { context.delete(tag) }
        case .deleteAuthor:
            if let author = pick(try all("Author"), draws[0]) { context.delete(author) }
        }
        try context.save()
        return written
    }
}
