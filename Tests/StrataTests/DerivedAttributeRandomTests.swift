import Foundation
import Testing
@testable import Strata

/// Random edits from every side — moves from the disc's and the rack's side, member values,
/// renames, deletes, many-to-many changes, batch updates and deletes — each saved (or
/// executed and merged), then every derived value the context holds is checked against the
/// value computed in Swift from the objects, and a fresh context reading the store agrees.
@Suite struct DerivedAttributeRandomTests {
    static let names = ["Été", "ÉTÉ", "Rock", "rock", "Straße", "Jazz", "ça"]

    @Test(arguments: SeededRandom.seeds([1, 2, 3, 4]))
    func storedValuesMatchValuesComputedFromTheObjects(seed: UInt64) async throws {
        let dir = TemporaryDirectory()
        let coordinator = try await StoreCoordinator(model: DerivedAttributeTests.model, store: .sqlite(dir.file()))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        var random = SeededRandom(seed: seed)
        for step in 0..<40 {
            let state = random
            let (batch, next) = try await context.perform { () -> (Strata.ChangeSet?, SeededRandom) in
                var random = state
                let racks = try context.fetch(FetchRequest<Rack>(sortKeys: [SortKey("name")]))
                let discs = try context.fetch(FetchRequest<Disc>(sortKeys: [SortKey("title")]))
                let stickers = try context.fetch(FetchRequest<Sticker>(sortKeys: [SortKey("text")]))
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    switch Int.random(in: 0..<12, using: &random) {
                    case 0, 1:
                        let rack = context.insert(Rack.self)
                        rack.name = random.pick(Self.names)
                    case 2, 3:
                        let disc = context.insert(Disc.self)
                        disc.title = random.pick(Self.names) + " \(step)"
                        disc.minutes = Int64.random(in: 1...90, using: &random)
                        disc.rack = racks.isEmpty || random.chance(0.2) ? nil : random.pick(racks)
                    case 4 where !discs.isEmpty:
                        random.pick(discs).rack = racks.isEmpty || random.chance(0.2) ? nil : random.pick(racks)
                    case 5 where !discs.isEmpty && !racks.isEmpty:
                        random.pick(racks).discs.insert(random.pick(discs))
                    case 6 where !discs.isEmpty:
                        let disc = random.pick(discs)
                        disc.minutes = Int64.random(in: 1...90, using: &random)
                        if random.chance(0.5) { disc.title = random.pick(Self.names) }
                    case 7 where !racks.isEmpty:
                        random.pick(racks).name = random.pick(Self.names)
                    case 8 where !discs.isEmpty:
                        let disc = random.pick(discs)
                        if !disc.isDeleted { context.delete(disc) }
                    case 9 where !racks.isEmpty && random.chance(0.3):
                        let rack = random.pick(racks)
                        if !rack.isDeleted { context.delete(rack) }
                    case 10:
                        if stickers.isEmpty || random.chance(0.3) {
                            let sticker = context.insert(Sticker.self)
                            sticker.text = "s\(step)"
                            sticker.weight = Int64.random(in: 0...9, using: &random)
                        } else if !racks.isEmpty {
                            let sticker = random.pick(stickers), rack = random.pick(racks)
                            if random.chance(0.5) { sticker.racks.insert(rack) } else { rack.stickers.remove(sticker) }
                            if random.chance(0.3) { sticker.weight = Int64.random(in: 0...9, using: &random) }
                        }
                    default:
                        continue
                    }
                }
                try context.save()
                // Now and then a batch request, merged like any change set.
                switch Int.random(in: 0..<6, using: &random) {
                case 0:
                    let limit = Int.random(in: 1...90, using: &random)
                    return (try coordinator.execute(BatchUpdateRequest(entityName: "Disc", predicate: try ObjectPredicate("minutes < %d", limit),
                                                                       propertiesToUpdate: ["minutes": .integer(Int64(limit))])), random)
                case 1:
                    return (try coordinator.execute(BatchDeleteRequest(entityName: "Disc", predicate: try ObjectPredicate("minutes > %d", 80))), random)
                default:
                    return (nil, random)
                }
            }
            random = next
            try await context.perform {
                if let batch { context.merge(batch) }
                try Self.check(context, "seed \(seed) step \(step)")
            }
            let fresh = ObjectContext(.privateQueue, coordinator: coordinator)
            try await fresh.perform { try Self.check(fresh, "seed \(seed) step \(step), read from the store") }
        }
    }

    /// The same over a hierarchy (`Merch` and its subentities in one table): random inserts of
    /// every kind, moves between stalls, featured novels, parts, prices, labels and authors,
    /// deletes and batch requests on subentities; every value checked after each step.
    @Test(arguments: SeededRandom.seeds([5, 6, 7]))
    func storedValuesMatchInAHierarchy(seed: UInt64) async throws {
        let dir = TemporaryDirectory()
        let coordinator = try await StoreCoordinator(model: DerivedAttributeHierarchyTests.model, store: .sqlite(dir.file()))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        var random = SeededRandom(seed: seed)
        for step in 0..<40 {
            let state = random
            let (batch, next) = try await context.perform { () -> (Strata.ChangeSet?, SeededRandom) in
                var random = state
                let stalls = try context.fetch(FetchRequest<Stall>(sortKeys: [SortKey("name")]))
                let items = try context.fetch(FetchRequest<Merch>(sortKeys: [SortKey("label")]))
                let novels = items.compactMap { $0 as? Novel }
                let ribbons = try context.fetch(FetchRequest<Ribbon>(sortKeys: [SortKey("word")]))
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    switch Int.random(in: 0..<13, using: &random) {
                    case 0:
                        context.insert(Stall.self).name = random.pick(Self.names)
                    case 1, 2:
                        let item: Merch = switch Int.random(in: 0..<4, using: &random) {
                        case 0: context.insert(Merch.self)
                        case 1: context.insert(Novel.self)
                        case 2: context.insert(SignedNovel.self)
                        default: context.insert(Poster.self)
                        }
                        item.label = random.pick(Self.names) + " \(step)"
                        item.price = Int64.random(in: 1...50, using: &random)
                        (item as? Novel)?.author = random.pick(Self.names)
                        (item as? Poster)?.author = random.pick(Self.names)
                        item.stall = stalls.isEmpty || random.chance(0.2) ? nil : random.pick(stalls)
                    case 3 where !items.isEmpty:
                        random.pick(items).stall = stalls.isEmpty || random.chance(0.2) ? nil : random.pick(stalls)
                    case 4 where !novels.isEmpty && !stalls.isEmpty:
                        let novel = random.pick(novels)
                        if random.chance(0.7) { random.pick(stalls).featured.insert(novel) } else { novel.featuredAt = nil }
                    case 5 where items.count > 1:
                        let part = random.pick(items), whole = random.pick(items)
                        if part !== whole { part.whole = random.chance(0.8) ? whole : nil }
                    case 6 where !items.isEmpty:
                        let item = random.pick(items)
                        item.price = Int64.random(in: 1...50, using: &random)
                        if random.chance(0.5) { item.label = random.pick(Self.names) }
                        (item as? Novel)?.author = random.pick(Self.names)
                        (item as? Poster)?.author = random.pick(Self.names)
                    case 7 where !stalls.isEmpty:
                        random.pick(stalls).name = random.pick(Self.names)
                    case 8 where !items.isEmpty:
                        let item = random.pick(items)
                        if !item.isDeleted { context.delete(item) }
                    case 9 where !stalls.isEmpty && random.chance(0.3):
                        let stall = random.pick(stalls)
                        if !stall.isDeleted { context.delete(stall) }
                    case 10 where !items.isEmpty:
                        if ribbons.isEmpty || random.chance(0.2) {
                            context.insert(Ribbon.self).word = random.pick(Self.names)
                        } else {
                            let ribbon = random.pick(ribbons), item = random.pick(items)
                            if random.chance(0.6) { ribbon.merch.insert(item) } else { item.ribbons.remove(ribbon) }
                        }
                    case 11 where !items.isEmpty && !stalls.isEmpty:
                        let stall = random.pick(stalls)
                        if random.chance(0.5) { stall.showpiece = random.chance(0.8) ? random.pick(items) : nil }
                        else { random.pick(items).showcasedAt = stall }
                    default:
                        continue
                    }
                }
                try context.save()
                switch Int.random(in: 0..<6, using: &random) {
                case 0:
                    let entity = random.pick(["Merch", "Novel", "Poster"]), limit = Int.random(in: 1...50, using: &random)
                    return (try coordinator.execute(BatchUpdateRequest(entityName: entity, predicate: try ObjectPredicate("price < %d", limit),
                                                                       propertiesToUpdate: ["price": .integer(Int64(limit))])), random)
                case 1:
                    let entity = random.pick(["SignedNovel", "Poster", "Novel"])
                    return (try coordinator.execute(BatchDeleteRequest(entityName: entity, predicate: try ObjectPredicate("price > %d", 40))), random)
                default:
                    return (nil, random)
                }
            }
            random = next
            try await context.perform {
                if let batch { context.merge(batch) }
                try Self.checkHierarchy(context, "seed \(seed) step \(step)")
            }
            let fresh = ObjectContext(.privateQueue, coordinator: coordinator)
            try await fresh.perform { try Self.checkHierarchy(fresh, "seed \(seed) step \(step), read from the store") }
        }
    }

    /// Every stall's and item's derived values equal those computed from its relationships;
    /// a poster's stored `upperAuthor` (a novel's derived column) stays empty.
    static func checkHierarchy(_ context: ObjectContext, _ label: String) throws {
        for stall in try context.fetch(FetchRequest<Stall>()) {
            let prices = stall.merch.map(\.price), featured = stall.featured.map(\.price)
            #expect(stall.merchCount == prices.count && stall.merchTotal == prices.reduce(0, +), "\(label): \(stall.name)")
            #expect(stall.featuredCount == featured.count && stall.featuredTop == featured.max(), "\(label): \(stall.name)")
            #expect(stall.showpieceLabel == stall.showpiece?.label, "\(label): \(stall.name)")
        }
        for ribbon in try context.fetch(FetchRequest<Ribbon>()) {
            let prices = ribbon.merch.map(\.price)
            #expect(ribbon.merchCount == prices.count && ribbon.merchTop == prices.max(), "\(label): \(ribbon.word)")
        }
        for item in try context.fetch(FetchRequest<Merch>()) {
            #expect(item.lowerLabel == item.label.lowercased() && item.stallName == item.stall?.name && item.partCount == item.parts.count,
                    "\(label): \(type(of: item)) \(item.label)")
            if let novel = item as? Novel {
                #expect(novel.upperAuthor == novel.author.uppercased() && novel.ribbonCount == novel.ribbons.count, "\(label): \(item.label)")
            }
            if let poster = item as? Poster { #expect(poster.upperAuthor == "", "\(label): \(item.label)") }
        }
    }

    /// Every rack's and disc's derived values equal those computed from its relationships.
    static func check(_ context: ObjectContext, _ label: String) throws {
        for rack in try context.fetch(FetchRequest<Rack>()) {
            let minutes = rack.discs.map(\.minutes)
            let expected = DerivedAttributeTests.RackValues(
                count: minutes.count, total: minutes.reduce(0, +), shortest: minutes.min(), longest: minutes.max(),
                average: minutes.isEmpty ? nil : Double(minutes.reduce(0, +)) / Double(minutes.count),
                stickers: rack.stickers.count, weight: rack.stickers.map(\.weight).reduce(0, +),
                key: PredicateFunctions.fold(rack.name, [.caseInsensitive, .diacriticInsensitive]))
            #expect(DerivedAttributeTests.RackValues(rack) == expected, "\(label): \(rack.name)")
        }
        for disc in try context.fetch(FetchRequest<Disc>()) {
            #expect(disc.rackName == disc.rack?.name, "\(label): \(disc.title)")
            #expect(disc.lowerTitle == disc.title.lowercased() && disc.upperTitle == disc.title.uppercased(), "\(label): \(disc.title)")
        }
    }
}
