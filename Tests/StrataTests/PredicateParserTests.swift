import Foundation
import Testing
@testable import Strata

@Suite struct PredicateParserTests {
    /// The single comparison a format parses to.
    private func comparison(_ format: String, _ arguments: Any?...) throws -> PredicateComparison {
        let p = try ObjectPredicate(format: format, arguments: arguments)
        guard case .comparison(let c) = p.node else { throw StrataError(.malformedPredicate, "not a comparison: \(p)") }
        return c
    }

    @Test(arguments: [
        ("a == 1", PredicateOperator.equalTo), ("a = 1", .equalTo), ("a != 1", .notEqualTo), ("a <> 1", .notEqualTo),
        ("a < 1", .lessThan), ("a <= 1", .lessThanOrEqualTo), ("a =< 1", .lessThanOrEqualTo), ("a > 1", .greaterThan),
        ("a >= 1", .greaterThanOrEqualTo), ("a => 1", .greaterThanOrEqualTo), ("a BETWEEN {1, 2}", .between),
        ("a IN {1, 2, 3}", .in), ("a BEGINSWITH 'x'", .beginsWith), ("a endswith 'x'", .endsWith),
        ("a Contains 'x'", .contains), ("a LIKE 'x*'", .like), ("a MATCHES 'x.*'", .matches),
    ])
    func operators(format: String, op: PredicateOperator) throws {
        let c = try comparison(format)
        #expect(c.op == op)
        #expect(c.keyPath == ["a"])
    }

    @Test func modifiers() throws {
        #expect(try comparison("a ==[c] 'x'").options == .caseInsensitive)
        #expect(try comparison("a BEGINSWITH[d] 'x'").options == .diacriticInsensitive)
        #expect(try comparison("a LIKE[cd] 'x'").options == [.caseInsensitive, .diacriticInsensitive])
        #expect(try comparison("a CONTAINS[DC] 'x'").options == [.caseInsensitive, .diacriticInsensitive])
        #expect(try comparison("a CONTAINS 'x'").options == [])
    }

    @Test func precedenceAndKeywordCase() throws {
        let p = try ObjectPredicate("a == 1 or b == 2 AND NOT c == 3")
        guard case .or(let parts) = p.node, parts.count == 2, case .and(let right) = parts[1], right.count == 2,
              case .not = right[1] else { Issue.record("wrong tree: \(p.node)"); return }
        #expect(p.description == "a == 1 OR b == 2 AND NOT c == 3")
        #expect(try ObjectPredicate("(a == 1 || b == 2) && !c == 3").description == "(a == 1 OR b == 2) AND NOT c == 3")
        #expect(try ObjectPredicate("NOT (a == 1 AND b == 2)").description == "NOT (a == 1 AND b == 2)")
        #expect(try ObjectPredicate("truepredicate OR FALSEPREDICATE").description == "TRUEPREDICATE OR FALSEPREDICATE")
    }

    @Test func literals() throws {
        #expect(try comparison("a == 'it\\'s'").value == .single(.string("it's")))
        #expect(try comparison("a == \"say \\\"hi\\\"\\n\"").value == .single(.string("say \"hi\"\n")))
        #expect(try comparison("a == -12").value == .single(.integer(-12)))
        #expect(try comparison("a == -1.5").value == .single(.double(-1.5)))
        #expect(try comparison("a == 2.5e3").value == .single(.double(2500)))
        #expect(try comparison("a == nil").value == .single(.null))
        #expect(try comparison("a == NULL").value == .single(.null))
        #expect(try comparison("a == YES").value == .single(.bool(true)))
        #expect(try comparison("a == false").value == .single(.bool(false)))
        #expect(try comparison("a IN {1, 'x', nil}").value == .list([.integer(1), .string("x"), .null]))
        #expect(try comparison("a IN {}").value == .list([]))
        #expect(try comparison("a BETWEEN {-1, 2.5}").value == .list([.integer(-1), .double(2.5)]))
        #expect(try comparison("a > CAST(0, \"NSDate\")").value == .single(.date(Date(timeIntervalSinceReferenceDate: 0))))
        #expect(try comparison("#in == 1").keyPath == ["in"])
    }

    @Test func keyPathsAndQuantifiers() throws {
        #expect(try comparison("folder.parent.name == 'x'").keyPath == ["folder", "parent", "name"])
        #expect(try comparison("tags.@count > 2").keyPath == ["tags", "@count"])
        #expect(try comparison("ANY tags.name == 'x'").quantifier == .any)
        #expect(try comparison("some tags.name == 'x'").quantifier == .any)
        #expect(try comparison("ALL tags.name == 'x'").quantifier == .all)
        #expect(try comparison("NONE tags.name == 'x'").quantifier == .noneMatch)
        #expect(try comparison("tags.name == 'x'").quantifier == nil)
        let mirrored = try comparison("3 < rating")
        #expect(mirrored.op == .greaterThan && mirrored.keyPath == ["rating"] && mirrored.value == .single(.integer(3)))
        let member = try comparison("'x' IN tags.name")
        #expect(member.op == .equalTo && member.keyPath == ["tags", "name"])
    }

    struct Slug: PredicateArgumentConvertible {
        var text: String
        var predicateArgument: PropertyValue { .string(text) }
    }

    @Test func arguments() throws {
        let uuid = UUID()
        let date = Date(timeIntervalSince1970: 12)
        #expect(try comparison("a == %@", "x").value == .single(.string("x")))
        #expect(try comparison("a == %@", 5).value == .single(.integer(5)))
        #expect(try comparison("a == %@", UInt8(5)).value == .single(.integer(5)))
        #expect(try comparison("a == %@", Float(1.5)).value == .single(.double(1.5)))
        #expect(try comparison("a == %@", true).value == .single(.bool(true)))
        #expect(try comparison("a == %@", date).value == .single(.date(date)))
        #expect(try comparison("a == %@", uuid).value == .single(.uuid(uuid)))
        #expect(try comparison("a == %@", Data([1])).value == .single(.data(Data([1]))))
        #expect(try comparison("a == %@", Decimal(2)).value == .single(.decimal(2)))
        #expect(try comparison("a == %@", URL(string: "https://x.org")).value == .single(.url(URL(string: "https://x.org")!)))  // programmer error: literal URL
        #expect(try comparison("a == %@", nil).value == .single(.null))
        #expect(try comparison("a == %@", Optional<Int>.none).value == .single(.null))
        #expect(try comparison("a == %@", Optional(7)).value == .single(.integer(7)))
        #expect(try comparison("a == %@", PropertyValue.integer(3)).value == .single(.integer(3)))
        #expect(try comparison("a == %@", Slug(text: "s")).value == .single(.string("s")))
        #expect(try comparison("a IN %@", [1, 2]).value == .list([.integer(1), .integer(2)]))
        #expect(try comparison("a IN %@", Set(["z"])).value == .list([.string("z")]))
        #expect(try comparison("a IN %@", [1, nil] as [Int?]).value == .list([.integer(1), .null]))
        #expect(try comparison("%K == %d", "b.c", 4).keyPath == ["b", "c"])
        #expect(try comparison("a == %i", Int16(4)).value == .single(.integer(4)))
        #expect(try comparison("a == %ld", 4).value == .single(.integer(4)))
        #expect(try comparison("a < %f", 2.5).value == .single(.double(2.5)))
        #expect(try comparison("a < %f", 2).value == .single(.double(2)))
    }

    @Test func malformedStringsReportPosition() {
        let cases: [(String, Int, [Any?])] = [
        ("title ==", 8, [Any?]()), ("title == 'abc", 9, []), ("(a == 1", 7, []), ("a == 1 b", 7, []), ("a === 1", 4, []),
        ("a ==[x] 1", 5, []), ("a BETWEEN 1", 10, []), ("a BETWEEN {1}", 10, []), ("a IN 3", 5, []), ("a == %@", 5, []),
        ("%K == 1", 0, [5]), ("a == %d", 5, ["x"]), ("a BETWEEN b", 10, []), ("AND a == 1", 0, []), ("a.b. == 1", 0, []),
        ("a BEGINSWITH 1", 13, []), ("1 == 2", 0, []), ("a CONTAINS b", 11, []), ("a IN $x.y", 5, []), ("a == 1 AND", 10, []), ("a == %x", 5, []),
        ("a == {1, 2", 10, []), ("a == 1", 6, [1]), ("ANY 1 == a", 4, []), ("a == %@", 5, [NSObject()]),
        ("d < CAST(8e400, \"NSDate\")", 9, []),   // found by fuzzing: the number overflows to infinity
        ]
        for (format, position, arguments) in cases {
            do {
                let p = try ObjectPredicate(format: format, arguments: arguments)
                Issue.record("\(format) parsed as \(p)")
            } catch {
                #expect(error.code == .malformedPredicate, "\(format)")
                #expect(error.position == position, "\(format): \(error)")
            }
        }
    }

    @Test func printsParseableFormat() throws {
        for format in ["title BEGINSWITH[cd] \"a\\\"b\" AND (count > -2 OR score <= 2.5)", "ANY tags.name IN {\"x\", nil}",
                       "NONE tags.name LIKE[c] \"a*\"", "tags.@count BETWEEN {1, 3}", "NOT #in == TRUE", "ALL items.score != nil"] {
            let p = try ObjectPredicate(format)
            #expect(p.description == format)
            #expect(try ObjectPredicate(p.description) == p)
        }
    }

    @Test func constantsAndHashing() throws {
        #expect(ObjectPredicate.truePredicate.description == "TRUEPREDICATE")
        #expect(ObjectPredicate.falsePredicate.description == "FALSEPREDICATE")
        #expect(try ObjectPredicate("a == 1") == ObjectPredicate("a = 1"))
        #expect(try ObjectPredicate("a == 1") != ObjectPredicate("a == 2"))
        #expect(Set([try ObjectPredicate("a == 1"), try ObjectPredicate("a = 1")]).count == 1)
    }
}
