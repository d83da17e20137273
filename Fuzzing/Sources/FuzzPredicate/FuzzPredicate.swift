// Fuzzes the predicate format parser users call (`ObjectPredicate(format:arguments:)`), the
// compiler that resolves a parsed predicate against a model, and the SQL it compiles to.
//
// Input: the first byte picks an argument list (for %@, %K, %d, %f); the rest is the format,
// as UTF-8 (invalid bytes become U+FFFD, as a `String` made from any bytes would).
// Properties: parsing and compiling never trap and throw only `StrataError`
// `.malformedPredicate` (typed throws make any other type impossible; the code is checked);
// a predicate that compiles gives SQL that runs on the model's tables (a row in each); the
// predicate's description parses again to the same description.
import FuzzSupport
import Foundation
import GRDB
@testable import Strata

/// Argument lists the first byte chooses from (no data or object IDs: they have no literal
/// form, so their descriptions do not parse back).
// Read only (libFuzzer calls the target on one thread); `Any?` is not Sendable.
nonisolated(unsafe) let argumentLists: [[Any?]] = [
    [], ["abc"], [3], [2.5], ["title"], ["title", "x"], ["count", 7], [[1, 2, 3]], [nil],
    [true], [Date(timeIntervalSince1970: 86_400)], [Decimal(string: "1.25")!], [UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!],
    [URL(string: "https://example.com/a")!], ["group.name", "x", 2], [["a", "b"], "name"], [Int64.max], [-0.0],
]

let model: ObjectModel = {
    do {
        return try ObjectModel(entities: [
            EntityDescription("Item", attributes: [
                AttributeDescription("title", type: .string),
                AttributeDescription("name", type: .string),
                AttributeDescription("count", type: .int64),
                AttributeDescription("small", type: .int16),
                AttributeDescription("score", type: .double),
                AttributeDescription("flag", type: .bool),
                AttributeDescription("created", type: .date),
                AttributeDescription("price", type: .decimal),
                AttributeDescription("uid", type: .uuid),
                AttributeDescription("link", type: .url),
                AttributeDescription("blob", type: .data),
            ], relationships: [
                RelationshipDescription("group", destination: "Group", inverse: "items"),
                RelationshipDescription("tags", destination: "Tag", inverse: "items", isToMany: true),
                RelationshipDescription("detail", destination: "Detail", inverse: "item"),
                RelationshipDescription("steps", destination: "Detail", inverse: "owner", isToMany: true, isOrdered: true),
            ]),
            EntityDescription("Group", attributes: [
                AttributeDescription("name", type: .string),
                AttributeDescription("rank", type: .int64),
            ], relationships: [
                RelationshipDescription("items", destination: "Item", inverse: "group", isToMany: true),
                RelationshipDescription("parent", destination: "Group", inverse: "children"),
                RelationshipDescription("children", destination: "Group", inverse: "parent", isToMany: true),
            ]),
            EntityDescription("Tag", attributes: [AttributeDescription("name", type: .string)], relationships: [
                RelationshipDescription("items", destination: "Item", inverse: "tags", isToMany: true),
            ]),
            EntityDescription("Detail", attributes: [AttributeDescription("note", type: .string)], relationships: [
                RelationshipDescription("item", destination: "Item", inverse: "detail"),
                RelationshipDescription("owner", destination: "Item", inverse: "steps"),
            ]),
        ])
    } catch {
        FuzzCheck.fail("the fuzz model does not build: \(error)")
    }
}()

/// An in-memory database with the model's tables, Strata's SQL functions and a row in each
/// table (so the functions run), to run the compiled SQL on.
let database: DatabaseQueue = {
    do {
        var configuration = Configuration()
        configuration.prepareDatabase { db in PredicateFunctions.register(in: db) }
        let queue = try DatabaseQueue(configuration: configuration)
        try queue.write { db in
            for statement in StoreSchema.createStatements(for: model) { try db.execute(sql: statement) }
            try db.execute(sql: """
                INSERT INTO "Item" (_id, _version, title, name, count, small, score, flag, created, price, uid, link, blob)
                    VALUES (1, 1, 'abc', 'Ébc', 3, -2, 2.5, 1, 86400.0, '1.25', 'E621E1F8-C36C-495A-93FC-0C247A3E6E5F', 'https://example.com/a', X'0102');
                INSERT INTO "Group" (_id, _version, name, rank) VALUES (1, 1, 'résumé', 2);
                INSERT INTO "Tag" (_id, _version, name) VALUES (1, 1, 'x');
                INSERT INTO "Detail" (_id, _version, note) VALUES (1, 1, 'a*b');
                """)
        }
        return queue
    } catch {
        FuzzCheck.fail("the fuzz database does not open: \(error)")
    }
}()

func check(_ error: StrataError, _ format: String) {
    FuzzCheck.expect(error.code == .malformedPredicate, "\(format.debugDescription) threw \(error.code), not malformedPredicate: \(error)")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPredicate(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzCheck.data(bytes, count)
    guard let selector = data.first else { return 0 }
    let arguments = argumentLists[Int(selector) % argumentLists.count]
    let format = String(decoding: data.dropFirst(), as: UTF8.self)
    let predicate: ObjectPredicate
    do { predicate = try ObjectPredicate(format: format, arguments: arguments) } catch { check(error, format); return 0 }

    // The description parses again, to a predicate with the same description.
    let text = predicate.description
    do {
        let again = try ObjectPredicate(format: text, arguments: [])
        FuzzCheck.expect(again.description == text, "\(format.debugDescription) → \(text.debugDescription) → \(again.description.debugDescription)")
    } catch {
        FuzzCheck.fail("\(format.debugDescription) parsed, but its description \(text.debugDescription) does not: \(error)")
    }

    for entity in model.entities {
        let compiled: CompiledPredicate
        do { compiled = try predicate.compiled(for: entity, in: model) } catch { check(error, format); continue }
        var values: [DatabaseValue] = []
        let sql = "SELECT t0._id FROM \(quoted(entity.name)) t0 WHERE " + compiled.sql(alias: "t0", arguments: &values)
        do {
            try database.read { db in
                let statement = try db.makeStatement(sql: sql)
                statement.setUncheckedArguments(StatementArguments(values))
                _ = try Row.fetchAll(statement)
            }
        } catch {
            FuzzCheck.fail("\(format.debugDescription) on \(entity.name) compiled to SQL that fails: \(sql) — \(error)")
        }
    }
    return 0
}

/// The executable's entry point (see `FuzzDriver`).
@_cdecl("FuzzPredicate_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    FuzzDriver.run(argc, argv, fuzzPredicate)
}
