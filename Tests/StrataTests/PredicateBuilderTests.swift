import Foundation
import Testing
@testable import Strata

@Suite struct PredicateBuilderTests {
    @Test func builderMatchesFormat() throws {
        let cases: [(ObjectPredicate, String)] = [
            (.key("title").beginsWith("he", options: .caseInsensitive) && .key("folder.name") == "Inbox",
             "title BEGINSWITH[c] \"he\" AND folder.name == \"Inbox\""),
            (.key("a") == 1 || .key("b") != nil, "a == 1 OR b != nil"),
            (!(.key("a") < 2.5), "NOT a < 2.5"),
            (.key("a") <= 1 && .key("b") > 2 && .key("c") >= 3, "a <= 1 AND b > 2 AND c >= 3"),
            (.any("tags.name") == "x", "ANY tags.name == \"x\""),
            (.all("tags.name").like("a*", options: [.caseInsensitive, .diacriticInsensitive]), "ALL tags.name LIKE[cd] \"a*\""),
            (.none("tags.name").contains("x"), "NONE tags.name CONTAINS \"x\""),
            (.key("tags").count > 2, "tags.@count > 2"),
            (.key("rating").between(1, 3), "rating BETWEEN {1, 3}"),
            (.key("rating").isIn([1, 2]), "rating IN {1, 2}"),
            (.key("name").equals("x", options: .diacriticInsensitive), "name ==[d] \"x\""),
            (.key("name").endsWith("z"), "name ENDSWITH \"z\""),
            (.key("zip").matches("[0-9]+"), "zip MATCHES \"[0-9]+\""),
            (.key("flag") == true, "flag == TRUE"),
            (.key("group.items").sum("score") > 2, "group.items.@sum.score > 2"),
            (.key("items").average("price") == nil, "items.@avg.price == nil"),
            (.key("items").min("group.rank") <= 1 || .key("items").max("count") >= 3, "items.@min.group.rank <= 1 OR items.@max.count >= 3"),
            (.subquery("tags", "$t", .key("$t.name").beginsWith("s") && .key("$t.items").count > 1) >= 2,
             "SUBQUERY(tags, $t, $t.name BEGINSWITH \"s\" AND $t.items.@count > 1).@count >= 2"),
            (ObjectPredicate.subquery("group.items", "i", .key("$i.score") < 1) == 0, "SUBQUERY(group.items, $i, $i.score < 1).@count == 0"),
            (ObjectPredicate.and([]), "TRUEPREDICATE"),
            (ObjectPredicate.or([]), "FALSEPREDICATE"),
        ]
        for (built, format) in cases {
            #expect(built.description == format)
            #expect(try ObjectPredicate(format) == built, "\(format)")
        }
    }

    @Test func builtPredicatesSelectTheSameRows() throws {
        let store = try PredicateTestStore(model: try PredicateTestModel.make())
        var rng = SeededRandom(seed: 5)
        try PredicateFixtures.populate(store, using: &rng)
        let item = store.entity("Item")
        let built: ObjectPredicate = .key("title").beginsWith("e", options: [.caseInsensitive, .diacriticInsensitive])
            || (.any("tags.name") == "abc" && !(.key("count") == nil))
        let parsed = try ObjectPredicate("title BEGINSWITH[cd] 'e' OR (ANY tags.name == 'abc' AND NOT count == nil)")
        let a = try built.compiled(for: item, in: store.model)
        let b = try parsed.compiled(for: item, in: store.model)
        let selected = try store.sqlKeys(a, entity: "Item")
        #expect(!selected.isEmpty)
        #expect(selected == store.memoryKeys(b, entity: "Item"))
        #expect(selected == (try store.sqlKeys(b, entity: "Item")))
    }
}
