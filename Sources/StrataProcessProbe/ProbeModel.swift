import Foundation
import Strata

/// One acknowledged save of a writer: `token` is unique, `sequence` counts the writer's saves
/// from 1, so the entries of a writer in any snapshot are exactly 1...n.
final class Entry: ManagedObject {
    @Attribute("token", .unique) var token = ""
    @Attribute("writer") var writer = ""
    @Attribute("sequence") var sequence: Int64 = 0
}

/// The row every writer updates: one counter key per writer (`a` … `d`), and `label`, which
/// every writer sets (so two writers always change a common key: a conflict under `.error`).
final class Tally: ManagedObject {
    @Attribute("name", .unique) var name = ""
    @Attribute("label") var label = ""
    @Attribute("a") var a: Int64 = 0
    @Attribute("b") var b: Int64 = 0
    @Attribute("c") var c: Int64 = 0
    @Attribute("d") var d: Int64 = 0
}

/// The probe's model and the names it uses.
enum ProbeModel {
    /// The writer IDs: each is the name of a counter key of ``Tally``.
    static let writerIDs: Set<String> = ["a", "b", "c", "d"]
    /// The name of the one shared ``Tally`` row.
    static let sharedName = "shared"

    static func make() throws -> ObjectModel { try ObjectModel(Entry.self, Tally.self) }

    /// The shared row, inserted when missing. The insert runs under
    /// `.mergeByPropertyStoreTrump`, so two processes inserting it at once end with one row
    /// (the unique name makes the second insert that row) holding what the first one saved
    /// since: under `.mergeByPropertyObjectTrump` the late insert wrote its zero counters over
    /// a row another writer had already counted a save in, and a reader saw an entry its
    /// counter did not cover.
    static func sharedTally(in context: ObjectContext) throws -> Tally {
        let request = FetchRequest<Tally>(predicate: try ObjectPredicate("name == %@", sharedName))
        if let tally = try context.fetch(request).first { return tally }
        let policy = context.mergePolicy
        context.mergePolicy = .mergeByPropertyStoreTrump
        defer { context.mergePolicy = policy }
        let tally = context.insert(Tally.self)
        tally.name = sharedName
        try context.save()
        return tally
    }
}
