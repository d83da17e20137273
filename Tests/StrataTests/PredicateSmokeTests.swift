import Foundation
import GRDB
import Testing
@testable import Strata

@Suite struct PredicateSmokeTests {
    @Test func simpleStoreRoundTrip() throws {
        let store = try PredicateTestStore(model: try PredicateTestModel.make())
        let a = store.insert("Item"); a[attribute: "title"] = .string("Ébc")
        let b = store.insert("Item"); b[attribute: "title"] = .string("abc")
        let g = store.insert("Group"); g[attribute: "name"] = .string("Inbox")
        store.link(a, "group", to: g)
        let t = store.insert("Tag"); t[attribute: "name"] = .string("x")
        store.addToMany(b, "tags", t)
        try store.save()
        let item = store.entity("Item")
        for (format, expected) in [("title BEGINSWITH[cd] 'e'", Set<Int64>([1])), ("group.name == 'Inbox'", [1]), ("ANY tags.name == 'x'", [2]),
                                   ("tags.@count == 0", [1]), ("title ==[d] 'abc'", [2]), ("NOT title LIKE[cd] 'a*'", [1])] {
            let p = try ObjectPredicate(format).compiled(for: item, in: store.model)
            #expect(try store.sqlKeys(p, entity: "Item") == expected, "\(format)")
            #expect(store.memoryKeys(p, entity: "Item") == expected, "\(format)")
        }
    }
}
