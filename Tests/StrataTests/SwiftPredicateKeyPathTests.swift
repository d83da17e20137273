import Foundation
import Testing
@testable import Strata

/// A base class whose Swift property names differ from its model keys.
class ProbeBase: ManagedObject {
    @Attribute("heading") var title = ""
    @Attribute("rank") var rank = 0
    @Attribute("weight") var weight: Double? = nil
    @Attribute("stamp") var stamp: Date? = nil
    @Attribute("flag") var flag = false
    /// Computed from a modelled property: not a model key.
    var shout: String { title.uppercased() }
    var doubled: Int { rank * 2 }
    var negated: Bool { !flag }
    /// Returns the modelled property unchanged: the same question, so accepted as its key.
    var alias: String { title }
    /// Reads two modelled properties.
    var both: String { title + "\(rank)" }
    /// A plain stored property.
    var cache = 0
}

final class ProbeLeaf: ProbeBase {
    @Attribute("body") var body: String? = nil
    @Relationship("holder", inverse: "leaves") var holder: ProbeHolder?
    /// Through a relationship, computed.
    var holderName: String { holder?.name ?? "" }
    /// Traps when the holder is nil: a probe never runs it with a nil holder.
    var forcedHolderName: String { holder!.name }
}

final class ProbeHolder: ManagedObject {
    @Attribute("name") var name = ""
    @Relationship("leaves", inverse: "holder") var leaves: Set<ProbeLeaf>
    @Relationship("ordered", inverse: "list") var ordered: [ProbeItem]
    @Relationship("parent", inverse: "children") var parent: ProbeHolder?
    @Relationship("children", inverse: "parent") var children: Set<ProbeHolder>
    var firstLeafBody: String? { leaves.first?.body }
}

final class ProbeItem: ManagedObject {
    @Attribute("label") var label = ""
    @Relationship("list", inverse: "ordered") var list: ProbeHolder?
}

/// A class with no modelled property at all.
final class Unmodelled: ManagedObject {
    var plain = ""
}

/// Swift key paths mapped to model keys by reading them on probe objects.
@Suite struct SwiftPredicateKeyPathTests {
    func key(_ keyPath: PartialKeyPath<some ManagedObject>) throws -> String { try SortKey(keyPath).keyPath }

    @Test func mapsPropertiesToTheirModelKeys() throws {
        #expect(try key(\ProbeBase.title) == "heading")
        #expect(try key(\ProbeBase.rank) == "rank")
        #expect(try key(\ProbeBase.weight) == "weight")
        #expect(try key(\ProbeBase.stamp) == "stamp")
        #expect(try key(\ProbeBase.flag) == "flag")
        #expect(try key(\ProbeHolder.ordered) == "ordered")
        #expect(try key(\ProbeHolder.parent?.parent?.name) == "parent.parent.name")
        #expect(try key(\ProbeHolder.ordered.count) == "ordered.@count")
        #expect(try key(\ProbeHolder.leaves.count) == "leaves.@count")
        #expect(try key(\ProbeItem.list?.name) == "list.name")
        #expect(try key(\ProbeItem.list?.leaves.count) == "list.leaves.@count")
        #expect(try key(\ProbeItem.list?.parent) == "list.parent")
    }

    @Test func subclassesInheritTheirBaseKeys() throws {
        #expect(try key(\ProbeLeaf.title) == "heading")
        #expect(try key(\ProbeLeaf.rank) == "rank")
        #expect(try key(\ProbeLeaf.body) == "body")
        #expect(try key(\ProbeLeaf.holder?.name) == "holder.name")
        let p = try ObjectPredicate(#Predicate<ProbeLeaf> { $0.title == "x" && $0.rank > 1 && $0.holder?.name == "h" })
        #expect(p == (try ObjectPredicate("heading == \"x\" AND rank > 1 AND holder.name == \"h\"")))
        let flags = try ObjectPredicate(#Predicate<ProbeLeaf> { $0.flag || !$0.flag && $0.body == nil })
        #expect(flags == (try ObjectPredicate("flag == TRUE OR NOT flag == TRUE AND body == nil")))
        let onBase = try ObjectPredicate(#Predicate<ProbeBase> { $0.title == "x" })
        #expect(onBase == (try ObjectPredicate("heading == \"x\"")))
    }

    @Test func computedAndPlainPropertiesAreRefused() throws {
        let refused: [(String, () throws -> String)] = [
            ("shout", { try key(\ProbeBase.shout) }),
            ("doubled", { try key(\ProbeBase.doubled) }),
            ("negated", { try key(\ProbeBase.negated) }),
            ("both", { try key(\ProbeBase.both) }),
            ("cache", { try key(\ProbeBase.cache) }),
            ("holderName", { try key(\ProbeLeaf.holderName) }),
            ("forcedHolderName", { try key(\ProbeLeaf.forcedHolderName) }),
            ("holder!.name", { try key(\ProbeLeaf.holder!.name) }),
            ("firstLeafBody", { try key(\ProbeHolder.firstLeafBody) }),
            ("plain", { try key(\Unmodelled.plain) }),
            ("ManagedObject.isFault", { try key(\ManagedObject.isFault) }),
            ("objectID", { try key(\ProbeLeaf.objectID) }),
        ]
        for (name, probe) in refused {
            let error = #expect(throws: StrataError.self, "\(name)") { _ = try probe() }
            #expect(error?.code == .unsupportedPredicate, "\(name)")
        }
        let inPredicate = #expect(throws: StrataError.self) { try ObjectPredicate(#Predicate<ProbeLeaf> { $0.shout == "X" }) }
        #expect(inPredicate?.code == .unsupportedPredicate)
        #expect(inPredicate?.entity == "ProbeLeaf")
    }

    @Test func aPropertyReturningAnotherUnchangedIsThatKey() throws {
        // `alias` returns `title` as stored: the predicate means the same, so it is accepted.
        #expect(try key(\ProbeBase.alias) == "heading")
    }

    @Test func answersAreCachedAndConcurrentProbesAgree() async throws {
        let keys = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<16 { group.addTask { try SortKey(\ProbeLeaf.holder?.name).keyPath } }
            var all: [String] = []
            for try await k in group { all.append(k) }
            return all
        }
        #expect(keys == Array(repeating: "holder.name", count: 16))
    }
}

/// Maps a key path while a context constructs it, as an initialiser might (only once the
/// test asks, so that the model's own reflection of the class does not map it first).
final class ProbingInInit: ManagedObject {
    static let probes = Locked(false)
    @Attribute("label") var label = "set"
    @Attribute("rank") var rank = 7
    var probed: String?
    required init(_ creation: ObjectCreation) {
        super.init(creation)
        if Self.probes.withLock({ $0 }) { probed = try? SortKey(\ProbeItem.label).keyPath }
    }
}

@Suite struct SwiftPredicateProbeIsolationTests {
    /// The probe made inside an initialiser must not take the slots or defaults of the object
    /// under construction (both have a `label`).
    @Test func aProbeInsideAnInitialiserLeavesTheInsertAlone() async throws {
        let dir = TemporaryDirectory()
        let coordinator = try await StoreCoordinator(model: try ObjectModel(ProbingInInit.self), store: .sqlite(dir.file()))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        ProbingInInit.probes.withLock { $0 = true }
        let (name, rank, probed) = try await context.perform {
            let object = context.insert(ProbingInInit.self)
            try context.save()
            return (object.label, object.rank, object.probed)
        }
        #expect(name == "set")
        #expect(rank == 7)
        #expect(probed == "label")
        let fetched = try await context.perform {
            try context.fetch(FetchRequest<ProbingInInit>(predicate: try ObjectPredicate(#Predicate<ProbingInInit> { $0.label == "set" && $0.rank == 7 }))).count
        }
        #expect(fetched == 1)
    }
}
