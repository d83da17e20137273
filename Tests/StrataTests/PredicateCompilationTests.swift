import Foundation
import GRDB
import Testing
@testable import Strata

@Suite struct PredicateCompilationTests {
    let model: ObjectModel
    let item: EntityDescription

    init() throws {
        model = try PredicateTestModel.make()
        item = try #require(model.entity(named: "Item"))
    }

    private func sql(_ format: String, _ arguments: Any?...) throws -> (String, [DatabaseValue]) {
        var values: [DatabaseValue] = []
        let text = try ObjectPredicate(format: format, arguments: arguments).compiled(for: item, in: model).sql(alias: "t0", arguments: &values)
        return (text, values)
    }

    @Test func rejectsInvalidKeyPathsAndTypes() {
        let group = model.entity(named: "Group")!  // programmer error: test model
        let cases: [(String, [Any?], String)] = [
            ("nope == 1", [], "nope"),
            ("title.length == 1", [], "title.length"),
            ("count BEGINSWITH 'a'", [], "count"),
            ("count ==[c] 1", [], "count"),
            ("title == 3", [], "title"),
            ("count == 'x'", [], "count"),
            ("group > %@", [ObjectID(entity: group, key: 1)], "group"),
            ("group == %@", [ObjectID(entity: item, key: 1)], "group"),
            ("title.@count == 1", [], "title.@count"),
            ("@count == 1", [], "@count"),
            ("ANY title == 'x'", [], "title"),
            ("ANY tags.@count == 1", [], "tags.@count"),
            ("group.nope == 1", [], "group.nope"),
            ("blob < %@", [Data()], "blob"),
            ("title MATCHES[d] 'x'", [], "title"),
            ("title MATCHES '('", [], "title"),
        ]
        for (format, arguments, key) in cases {
            do {
                let p = try ObjectPredicate(format: format, arguments: arguments)
                _ = try p.compiled(for: item, in: model)
                Issue.record("\(format) compiled")
            } catch {
                #expect(error.code == .malformedPredicate, "\(format)")
                #expect(error.key == key, "\(format): \(error)")
            }
        }
    }

    @Test func plainEqualityUsesIsSoIndexesApply() throws {
        let (text, values) = try sql("title == %@", "x")
        #expect(text == "t0.\"title\" IS ?")
        #expect(values == ["x".databaseValue])
        #expect(try sql("title != nil").0 == "t0.\"title\" IS NOT NULL")
    }

    @Test func valuesAreNeverSplicedIntoSQL() throws {
        let (text, values) = try sql("title BEGINSWITH[c] %@ OR name IN {'a\\'', 'b'} OR count BETWEEN {1, 2}", "x'); DROP TABLE Item; --")
        #expect(!text.contains("DROP") && !text.contains("'"))
        #expect(values.count == 5)
    }

    @Test func layoutOfRelationships() throws {
        let group = model.entity(named: "Group")!  // programmer error: test model
        #expect(try sql("group == %@", ObjectID(entity: group, key: 3)).0 == "t0.\"group\" IS ?")
        #expect(try sql("group.name == 'x'").0 == "(SELECT t0_1.\"name\" FROM \"Group\" t0_1 WHERE t0_1._id = t0.\"group\") IS ?")
        #expect(try sql("detail == nil").0 == "(SELECT t0_1._id FROM \"Detail\" t0_1 WHERE t0_1.\"item\" = t0._id) IS NULL")
        #expect(try sql("ANY tags.name == 'x'").0
            == "EXISTS (SELECT 1 FROM \"_join_Item_tags\" t0_j2 JOIN \"Tag\" t0_1 ON t0_1._id = t0_j2.\"target\" WHERE t0_j2.\"source\" = t0._id AND t0_1.\"name\" IS ?)")
        #expect(try sql("ALL group.items.count > 1").0
            == "NOT EXISTS (SELECT 1 FROM \"Item\" t0_1 WHERE t0_1.\"group\" = t0.\"group\" AND NOT (COALESCE(t0_1.\"count\" > ?, 0)))")
        #expect(try sql("tags.@count > 2").0
            == "COALESCE((SELECT COUNT(*) FROM \"_join_Item_tags\" t0_j2 JOIN \"Tag\" t0_1 ON t0_1._id = t0_j2.\"target\" WHERE t0_j2.\"source\" = t0._id) > ?, 0)")
        #expect(try sql("price > 1").0 == "COALESCE(CAST(t0.\"price\" AS REAL) > ?, 0)")
    }

    @Test func temporaryObjectIDsMatchNothingInSQL() throws {
        let group = model.entity(named: "Group")!  // programmer error: test model
        let temporary = ObjectID.temporary(group)
        #expect(try sql("group == %@", temporary).0 == "0")
        #expect(try sql("group != %@", temporary).0 == "1")
        #expect(try sql("group IN %@", [temporary]).0 == "0")
    }

    @Test func nilInOrderingIsFalse() throws {
        #expect(try sql("count > nil").0 == "0")
        #expect(try sql("title BEGINSWITH nil").0 == "0")
        #expect(try sql("count IN {nil}").0 == "0")
    }

    @Test func foldingFastPathMatchesFoundation() {
        var ascii = (32..<127).map { String(UnicodeScalar(UInt8($0))) }
        ascii += ["Hello World", "ABCxyz_09", "MiXeD CaSe"]
        for text in ascii {
            for options: ObjectPredicate.StringOptions in [.caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive]] {
                var compare: String.CompareOptions = []
                if options.contains(.caseInsensitive) { compare.insert(.caseInsensitive) }
                if options.contains(.diacriticInsensitive) { compare.insert(.diacriticInsensitive) }
                #expect(PredicateFunctions.fold(text, options) == text.folding(options: compare, locale: nil), "\(text)")
            }
        }
        #expect(PredicateFunctions.fold("Ébc", [.caseInsensitive, .diacriticInsensitive]) == "ebc")
        #expect(PredicateFunctions.fold("Ébc", .caseInsensitive) == "ébc")
    }

    @Test func likeSemantics() {
        func like(_ text: String, _ pattern: String) -> Bool { PredicateFunctions.match(text, pattern, .like, [], regex: nil) }
        #expect(like("abc", "a*"))
        #expect(like("abc", "?b?"))
        #expect(!like("abc", "?b"))
        #expect(like("a*c", "a\\*c"))
        #expect(!like("abc", "a\\*c"))
        #expect(like("", "*"))
        #expect(!like("", "?"))
        #expect(like("日本語", "日?語"))
        #expect(like("aXbXc", "a*b*c"))
        #expect(!like("ABC", "abc"))
    }
}
