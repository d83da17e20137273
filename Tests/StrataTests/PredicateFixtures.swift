import Foundation
@testable import Strata

/// Seeded random rows for the differential tests, with nils, duplicates, mixed case and
/// accents.
enum PredicateFixtures {
    static let strings: [String?] = [
        nil, "abc", "ABC", "Ébc", "ébc", "ebc", "abd", "ABD", "a", "", "b*c", "x?y", "résumé", "resume",
        "Résumé", "Zeta", "zeta", "ß", "SS", "naïve", "e\u{301}bc", "日本", "a\\b", "quote\"d",
    ]
    static let integers: [Int64?] = [nil, -3, -1, 0, 0, 1, 2, 2, 3, 5, 100]
    static let doubles: [Double?] = [nil, -1.5, 0, 0.5, 1, 2, 2.5, 3.25, 100]
    static let decimals: [Decimal?] = [nil, Decimal(string: "0.5"), Decimal(string: "1"), Decimal(string: "2.25"), Decimal(string: "-3")]
    static let dates: [Double?] = [nil, 0, 86_400, 1_000_000_000, 1_000_000_000.5, 1_700_000_000]
    static let uuids: [UUID?] = [nil, UUID(uuidString: "00000000-0000-0000-0000-000000000001"), UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")]
    static let blobs: [Data?] = [nil, Data([1, 2]), Data([1, 3]), Data()]

    /// Fills `store` with groups, tags, details and items, and saves.
    static func populate(_ store: PredicateTestStore, using rng: inout SeededRandom, items: Int = 80) throws {
        var groups: [TestObject] = []
        for _ in 0..<10 {
            let g = store.insert("Group")
            g[attribute: "name"] = string(&rng)
            g[attribute: "rank"] = rng.pick(integers).map(PropertyValue.integer) ?? .null
            if !groups.isEmpty, rng.chance(0.6) { store.link(g, "parent", to: rng.pick(groups)) }
            groups.append(g)
        }
        var tags: [TestObject] = []
        for _ in 0..<8 {
            let t = store.insert("Tag")
            t[attribute: "name"] = string(&rng)
            tags.append(t)
        }
        var details: [TestObject] = []
        for _ in 0..<40 {
            let d = store.insert("Detail")
            d[attribute: "note"] = string(&rng)
            details.append(d)
        }
        details.shuffle(using: &rng)
        for i in 0..<items {
            let item = store.insert("Item")
            item[attribute: "title"] = string(&rng)
            item[attribute: "name"] = string(&rng)
            item[attribute: "count"] = rng.pick(integers).map(PropertyValue.integer) ?? .null
            item[attribute: "score"] = rng.pick(doubles).map(PropertyValue.double) ?? .null
            item[attribute: "flag"] = rng.chance(0.2) ? .null : .bool(rng.chance(0.5))
            item[attribute: "created"] = rng.pick(dates).map { .date(Date(timeIntervalSince1970: $0)) } ?? .null
            item[attribute: "price"] = rng.pick(decimals).map(PropertyValue.decimal) ?? .null
            item[attribute: "uid"] = rng.pick(uuids).map(PropertyValue.uuid) ?? .null
            item[attribute: "blob"] = rng.pick(blobs).map(PropertyValue.data) ?? .null
            if rng.chance(0.8) { store.link(item, "group", to: rng.pick(groups)) }
            for tag in tags where rng.chance(0.25) { store.addToMany(item, "tags", tag) }
            if i < details.count, rng.chance(0.6) { store.link(details[i], "item", to: item) }
        }
        try store.save()
    }

    private static func string(_ rng: inout SeededRandom) -> PropertyValue {
        rng.pick(strings).map(PropertyValue.string) ?? .null
    }
}
