import Foundation
import Strata
import StrataStacks
import Testing

/// One import context reused across several saves, the stack saved to disk in between: the
/// objects of each round join groups the importer itself inserted. On the async-saving stack
/// the groups' permanent IDs used to reach the importer after its next fetch, which then held
/// each group twice, and a later round's push dropped the earlier rounds' members.
@Suite struct ReusedImportContextTests {
    @Test(arguments: StackKind.allCases)
    func laterInsertsRelateToEarlierOnesCorrectly(kind: StackKind) async throws {
        let file = StoreFile()
        let stack = try await Stacks.open(kind, model: stackModel, storeURL: file.url)
        let importer = stack.newImportContext()
        let groupCount = 20, rounds = 5, perRound = 40
        try await importer.perform {
            for g in 0..<groupCount { let group = importer.insert(Group.self); group.name = "g\(g)" }
            try importer.save()
        }
        try await stack.save()
        for round in 0..<rounds {
            try await importer.perform {
                let groups = try importer.fetch(FetchRequest<Group>())
                let byName = Dictionary(uniqueKeysWithValues: groups.map { ($0.name, $0) })
                for i in 0..<perRound {
                    let n = round * perRound + i
                    let item = importer.insert(Item.self)
                    item.uid = "u\(n)"; item.title = "g\(n % groupCount)"
                    item.group = byName["g\(n % groupCount)"]
                }
                try importer.save()
            }
            try await stack.save()
        }
        let coordinator = try await StoreCoordinator(model: stackModel, store: .sqlite(file.url))
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        let wrong = try await reader.perform {
            try reader.fetch(FetchRequest<Item>()).filter { $0.group?.name != $0.title }.map { "\($0.uid): \($0.title) → \($0.group?.name ?? "nil")" }
        }
        let count = try await reader.perform { try reader.count(for: FetchRequest<Item>()) }
        #expect(count == rounds * perRound)
        #expect(wrong.isEmpty, "\(wrong.count) wrong: \(wrong.prefix(5))")
    }
}
