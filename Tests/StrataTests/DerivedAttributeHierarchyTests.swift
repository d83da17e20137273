import Foundation
import GRDB
import Testing
@testable import Strata

/// Merchandise in one hierarchy (one table, `Merch`): the root declares a string function, a
/// to-one key path out of the hierarchy and a to-many aggregate into the hierarchy itself;
/// `Novel` declares its own string function, which `SignedNovel` inherits; `Poster`, a
/// sibling, has a stored `author` and a stored `upperAuthor` in the same columns as the
/// novel's, which no novel trigger may write.
class Merch: ManagedObject {
    @Attribute("label") var label = ""
    @Attribute("price") var price: Int64 = 0
    @Relationship("stall", inverse: "merch") var stall: Stall?
    @Relationship("whole", inverse: "parts") var whole: Merch?
    @Relationship("parts", inverse: "whole") var parts: Set<Merch>
    @Relationship("ribbons", inverse: "merch") var ribbons: Set<Ribbon>
    @Relationship("showcasedAt", inverse: "showpiece") var showcasedAt: Stall?
    @Derived("lowerLabel", from: "lowercase:(label)") var lowerLabel = ""
    @Derived("stallName", from: "stall.name") var stallName: String? = nil
    @Derived("partCount", from: "parts.@count") var partCount = 0
}

class Novel: Merch {
    @Attribute("author") var author = ""
    @Relationship("featuredAt", inverse: "featured") var featuredAt: Stall?
    @Derived("upperAuthor", from: "uppercase:(author)") var upperAuthor = ""
    @Derived("ribbonCount", from: "ribbons.@count") var ribbonCount = 0
}

final class SignedNovel: Novel {
    @Attribute("signer") var signer = ""
}

final class Poster: Merch {
    @Attribute("author") var author = ""
    @Attribute("upperAuthor") var upperAuthor = ""
}

/// Aggregates into the hierarchy: over the superentity (members of every kind) and over a
/// subentity (novels, signed ones included); a one-to-one's key path into it.
final class Stall: ManagedObject {
    @Attribute("name") var name = ""
    @Relationship("showpiece", inverse: "showcasedAt") var showpiece: Merch?
    @Derived("showpieceLabel", from: "showpiece.label") var showpieceLabel: String? = nil
    @Relationship("merch", inverse: "stall") var merch: Set<Merch>
    @Relationship("featured", inverse: "featuredAt") var featured: Set<Novel>
    @Derived("merchCount", from: "merch.@count") var merchCount = 0
    @Derived("merchTotal", from: "merch.@sum.price") var merchTotal: Int64 = 0
    @Derived("featuredCount", from: "featured.@count") var featuredCount = 0
    @Derived("featuredTop", from: "featured.@max.price") var featuredTop: Int64? = nil
}

/// A many-to-many into the hierarchy (a novel counts its ribbons through the join table too).
final class Ribbon: ManagedObject {
    @Attribute("word") var word = ""
    @Relationship("merch", inverse: "ribbons") var merch: Set<Merch>
    @Derived("merchCount", from: "merch.@count") var merchCount = 0
    @Derived("merchTop", from: "merch.@max.price") var merchTop: Int64? = nil
}

@Suite struct DerivedAttributeHierarchyTests {
    static let model: ObjectModel = {
        do { return try ObjectModel(Merch.self, Novel.self, SignedNovel.self, Poster.self, Stall.self, Ribbon.self) }
        catch { preconditionFailure("derived hierarchy model: \(error)") }  // programmer error: the model is valid
    }()

    /// A stall holding a mug (Merch), a novel, a signed novel and a poster; the novels are
    /// featured; the mug's parts are the novel and the poster.
    func seeded(_ dir: TemporaryDirectory) async throws -> (StoreCoordinator, ObjectContext, ObjectID) {
        let coordinator = try await StoreCoordinator(model: Self.model, store: .sqlite(dir.file()))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let stallID = try await context.perform {
            let stall = context.insert(Stall.self)
            stall.name = "Été Stall"
            let mug = context.insert(Merch.self)
            (mug.label, mug.price) = ("Mug", 5)
            let novel = context.insert(Novel.self)
            (novel.label, novel.price, novel.author) = ("Dune", 10, "Herbert")
            let signed = context.insert(SignedNovel.self)
            (signed.label, signed.price, signed.author, signed.signer) = ("Earthsea", 30, "le Guin", "Ursula")
            let poster = context.insert(Poster.self)
            (poster.label, poster.price, poster.author, poster.upperAuthor) = ("Job", 7, "Mucha", "kept as written")
            for item in [mug, novel, signed, poster] as [Merch] { item.stall = stall }
            stall.featured = [novel, signed]
            mug.parts = [novel, poster]
            try context.save()
            return stall.objectID
        }
        return (coordinator, context, stallID)
    }

    /// Every item's values, by label: lowerLabel, stallName, partCount, upperAuthor.
    static func values(_ items: [Merch]) -> [String: String] {
        var result: [String: String] = [:]
        for item in items {
            let upper = (item as? Novel)?.upperAuthor ?? (item as? Poster)?.upperAuthor ?? "-"
            result[item.label] = "\(item.lowerLabel) \(item.stallName ?? "nil") \(item.partCount) \(upper)"
        }
        return result
    }

    @Test func derivedAttributesOfSuperentitiesAndSubentitiesAreComputedForEveryKind() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context, stallID) = try await seeded(dir)
        defer { try? coordinator.close() }
        let expected = ["Mug": "mug Été Stall 2 -", "Dune": "dune Été Stall 0 HERBERT",
                        "Earthsea": "earthsea Été Stall 0 LE GUIN", "Job": "job Été Stall 0 kept as written"]
        try await context.perform {
            let stall = try #require(context.object(with: stallID) as? Stall)
            #expect(stall.merchCount == 4 && stall.merchTotal == 52, "members of every kind count")
            #expect(stall.featuredCount == 2 && stall.featuredTop == 30, "a signed novel is a novel")
            #expect(Self.values(Array(stall.merch)) == expected, "the saving context shows the values")
            #expect(!context.hasChanges)
        }
        // A fresh context reads them from the store, each object of its own class.
        let fresh = ObjectContext(.privateQueue, coordinator: coordinator)
        try await fresh.perform {
            let items = try fresh.fetch(FetchRequest<Merch>())
            #expect(Set(items.map { "\(type(of: $0))" }) == ["Merch", "Novel", "SignedNovel", "Poster"])
            #expect(Self.values(items) == expected)
            let upper = try fresh.fetch(FetchRequest<Novel>(predicate: try ObjectPredicate("upperAuthor BEGINSWITH %@", "LE")))
            #expect(upper.map(\.label) == ["Earthsea"], "predicates read the inherited column")
        }
    }

    @Test func valuesFollowChangesFromEverySideAndReachMergingContexts() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context, stallID) = try await seeded(dir)
        defer { try? coordinator.close() }
        let other = ObjectContext(.privateQueue, coordinator: coordinator)
        let changes = Locked<[ChangeSet]>([])
        let token = other.observeChanges { set in changes.withLock { $0.append(set) } }
        defer { token.cancel() }
        try await other.perform {
            let items = Dictionary(uniqueKeysWithValues: try other.fetch(FetchRequest<Merch>()).map { ($0.label, $0) })
            let stall = try #require(other.object(with: stallID) as? Stall)
            stall.name = "Renamed"                                        // reaches every kind's key path
            let signed = try #require(items["Earthsea"] as? SignedNovel)
            signed.author = "Ursula K. le Guin"                          // a subentity's inherited trigger
            signed.price = 40
            let poster = try #require(items["Job"] as? Poster)
            poster.author = "Alfons Mucha"                               // a sibling's same-named column: no trigger
            try #require(items["Dune"] as? Novel).featuredAt = nil       // leaves the featured aggregate
            try #require(items["Mug"]).parts.remove(poster)
            let second = other.insert(Stall.self)
            second.name = "Second"
            poster.stall = second
            try other.save()
            #expect(stall.merchCount == 3 && stall.merchTotal == 55 && stall.featuredCount == 1 && stall.featuredTop == 40)
            #expect(second.merchCount == 1 && second.merchTotal == 7 && second.featuredTop == nil)
            #expect(signed.upperAuthor == "URSULA K. LE GUIN" && signed.stallName == "Renamed")
            #expect(poster.upperAuthor == "kept as written" && poster.stallName == "Second")
            #expect(items["Mug"]?.partCount == 1)
        }
        // The first context holds the objects loaded and takes the values from the change sets.
        try await context.perform {
            let stall = try #require(context.object(with: stallID) as? Stall)
            let items = Array(stall.merch)
            #expect(stall.merchCount == 4, "not merged yet")
            for set in changes.withLock({ $0 }) { context.merge(set) }
            #expect(stall.merchCount == 3 && stall.merchTotal == 55 && stall.featuredCount == 1 && stall.featuredTop == 40)
            #expect(Self.values(items) == ["Mug": "mug Renamed 1 -", "Dune": "dune Renamed 0 HERBERT",
                                           "Earthsea": "earthsea Renamed 0 URSULA K. LE GUIN", "Job": "job Second 0 kept as written"])
            #expect(!context.hasChanges)
        }
        // The IDs the change sets carried name each row's own entity.
        let updated = changes.withLock { $0.flatMap { $0.updated.keys } }
        #expect(updated.contains { $0.entity.name == "SignedNovel" } && updated.contains { $0.entity.name == "Poster" })
        #expect(Set(updated.map(\.entity.name)).isSubset(of: ["Merch", "Novel", "SignedNovel", "Poster", "Stall"]))
    }

    /// A sibling's rows are never written by another entity's triggers, the triggers are the
    /// declaring entities' (unique names, one set per declaration), and batch requests on a
    /// subentity keep the values current.
    @Test func siblingRowsAreUntouchedAndTriggersBelongToTheDeclaringEntity() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context, stallID) = try await seeded(dir)
        defer { try? coordinator.close() }
        let triggers = try await coordinator.database.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '\\_derived\\_%' ESCAPE '\\' ORDER BY name")
        }
        let owners = Set(triggers.map { $0.dropFirst("_derived_".count).split(separator: ".")[0] })
        #expect(owners == ["Merch", "Novel", "Stall", "Ribbon"], "\(triggers)")
        // A batch update of every poster's author, and of every novel's (the signed one too).
        let posters = try coordinator.execute(BatchUpdateRequest(entityName: "Poster", predicate: nil, propertiesToUpdate: ["author": .string("Nobody")]))
        #expect(posters.updated.allSatisfy { $0.value["upperAuthor"] == nil }, "\(posters)")
        let novels = try coordinator.execute(BatchUpdateRequest(entityName: "Novel", predicate: nil, propertiesToUpdate: ["author": .string("Anon")]))
        let reported = novels.updated.filter { $0.value["upperAuthor"] == .string("ANON") }.map(\.key.entity.name).sorted()
        #expect(reported == ["Novel", "SignedNovel"], "\(novels)")
        let rows = try await coordinator.database.read { db in
            try Row.fetchAll(db, sql: "SELECT _entity, author, upperAuthor, lowerLabel FROM Merch ORDER BY label").map {
                "\($0["_entity"] as String) \($0["author"] as String? ?? "nil") \($0["upperAuthor"] as String? ?? "nil") \($0["lowerLabel"] as String)"
            }
        }
        #expect(rows == ["Novel Anon ANON dune", "SignedNovel Anon ANON earthsea", "Poster Nobody kept as written job", "Merch nil nil mug"])
        // A batch insert of a signed novel and a poster: each kind's triggers only.
        let inserted = try coordinator.execute(BatchInsertRequest(entityName: "SignedNovel", objects: [
            ["label": .string("Batch"), "price": .integer(1), "author": .string("ça"), "stall": .objectID(stallID)]]))
        _ = try coordinator.execute(BatchInsertRequest(entityName: "Poster", objects: [
            ["label": .string("Print"), "price": .integer(2), "author": .string("ça"), "upperAuthor": .string("own")]]))
        let batchRows = try await coordinator.database.read { db in
            try String.fetchAll(db, sql: "SELECT _entity || ' ' || lowerLabel || ' ' || coalesce(stallName, '-') || ' ' || upperAuthor FROM Merch WHERE label IN ('Batch', 'Print') ORDER BY label")
        }
        #expect(batchRows == ["SignedNovel batch Été Stall ÇA", "Poster print - own"])
        #expect(inserted.count == 1 && inserted.first?.entity.name == "SignedNovel")
        let stallRow = try await coordinator.database.read { db in try Int.fetchOne(db, sql: "SELECT merchCount FROM Stall") }
        #expect(stallRow == 5)
        // A batch delete of a subentity's rows reaches the aggregates over the superentity.
        let deleted = try coordinator.execute(BatchDeleteRequest(entityName: "SignedNovel", predicate: nil))
        #expect(deleted.updated[stallID]?["merchCount"] == .integer(3) && deleted.updated[stallID]?["featuredTop"] == .integer(10), "\(deleted)")
        try await context.perform {
            let stall = try #require(context.object(with: stallID) as? Stall)
            context.merge(deleted)
            #expect(stall.merchCount == 3 && stall.merchTotal == 22 && stall.featuredCount == 1)
        }
    }

    /// A many-to-many into the hierarchy counts every kind; a subentity's aggregate over an
    /// inherited many-to-many counts its own rows only; a one-to-one's key path into the
    /// hierarchy follows the target from either side.
    @Test func manyToManysAndOneToOnesIntoTheHierarchy() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context, stallID) = try await seeded(dir)
        defer { try? coordinator.close() }
        try await context.perform {
            let stall = try #require(context.object(with: stallID) as? Stall)
            let items = Dictionary(uniqueKeysWithValues: stall.merch.map { ($0.label, $0) })
            let red = context.insert(Ribbon.self), blue = context.insert(Ribbon.self)
            (red.word, blue.word) = ("red", "blue")
            red.merch = Set(items.values)
            let signed = try #require(items["Earthsea"] as? SignedNovel), poster = try #require(items["Job"] as? Poster)
            signed.ribbons.insert(blue)
            poster.ribbons.insert(blue)
            stall.showpiece = signed
            try context.save()
            #expect(red.merchCount == 4 && red.merchTop == 30 && blue.merchCount == 2)
            #expect(signed.ribbonCount == 2 && (items["Dune"] as? Novel)?.ribbonCount == 1)
            #expect(stall.showpieceLabel == "Earthsea")
            // From the other sides: a ribbon taken off, a price, the showpiece's label and owner.
            red.merch.remove(signed)
            signed.price = 3
            poster.price = 90
            signed.label = "Earthsea (signed)"
            try context.save()
            #expect(red.merchCount == 3 && red.merchTop == 90 && blue.merchTop == 90)
            #expect(signed.ribbonCount == 1)
            #expect(stall.showpieceLabel == "Earthsea (signed)")
            poster.showcasedAt = stall
            try context.save()
            #expect(stall.showpieceLabel == "Job" && signed.showcasedAt == nil)
            context.delete(poster)
            try context.save()
            #expect(stall.showpieceLabel == nil && blue.merchCount == 1 && red.merchTop == 10)
        }
        let rows = try await coordinator.database.read { db in
            try Row.fetchAll(db, sql: "SELECT _entity, ribbonCount FROM Merch ORDER BY label").map { "\($0["_entity"] as String) \($0["ribbonCount"] as Int? ?? -1)" }
        }
        #expect(rows == ["Novel 1", "SignedNovel 1", "Merch -1"], "only novels have the column set")
    }

    /// The statements a migration runs to fill derived columns (``DerivedColumns/recomputeStatements(_:)``)
    /// set every kind's values from the rows and leave a sibling's same-named column alone.
    @Test func recomputingFromTheRowsRestoresEveryKindsValues() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, _, _) = try await seeded(dir)
        defer { try? coordinator.close() }
        let read = "SELECT _entity || ' ' || lowerLabel || ' ' || coalesce(stallName, '-') || ' ' || partCount || ' ' || coalesce(upperAuthor, '-') FROM Merch ORDER BY label"
        let before = try await coordinator.database.read { db in try String.fetchAll(db, sql: read) }
        let after = try await coordinator.database.write { db in
            // The columns are scrambled directly (the poster's stored upperAuthor is not).
            try db.execute(sql: "UPDATE Merch SET lowerLabel = 'x', stallName = NULL, partCount = 9")
            try db.execute(sql: "UPDATE Merch SET upperAuthor = 'x' WHERE _entity IN ('Novel', 'SignedNovel')")
            for statement in DerivedColumns.recomputeStatements(Self.model) { try db.execute(sql: statement) }
            return try String.fetchAll(db, sql: read)
        }
        #expect(after == before)
        #expect(before == ["Novel dune Été Stall 0 HERBERT", "SignedNovel earthsea Été Stall 0 LE GUIN",
                           "Poster job Été Stall 0 kept as written", "Merch mug Été Stall 2 -"])
    }

    /// Values answered to the saving context evict the rows from the row cache, for every kind.
    @Test func aDerivedValueOfASubentityRowIsNotServedStaleFromTheRowCache() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, writer, stallID) = try await seeded(dir)
        defer { try? coordinator.close() }
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        let signedID = try await reader.perform {
            let signed = try #require(try reader.fetch(FetchRequest<SignedNovel>()).first)
            #expect(signed.stallName == "Été Stall")
            return signed.objectID
        }
        try await writer.perform {
            try #require(writer.object(with: stallID) as? Stall).name = "Moved"
            try writer.save()
        }
        let third = ObjectContext(.privateQueue, coordinator: coordinator)
        let name = try await third.perform { try #require(try third.existingObject(with: signedID) as? SignedNovel).stallName }
        #expect(name == "Moved")
    }
}
