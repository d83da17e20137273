import Foundation
import Strata

/// The crash harness's model (Tests/StrataTests/Support/CrashGraph.swift builds the same one;
/// the harness compares the stored model hash with its own, so a drift between the two fails
/// the test instead of migrating the store). Version 1:
///
/// - `Owner(name)` —`items` (to-many, cascade)→ `Item`
/// - `Item(name, value)` —`owner` (to-one, nullify)→ `Owner`, —`tags` (many-to-many)→ `Tag`
/// - `Tag(label)` —`items` (many-to-many, nullify)→ `Item`
///
/// Version `v` adds to `Item` the attributes `extra2` … `extra<v>` (required, default `k`):
/// each version step is an inferred migration that fills every existing row.
enum CrashModel {
    static func make(version: Int) throws -> ObjectModel {
        var itemAttributes = [
            AttributeDescription("name", type: .string, isOptional: false, defaultValue: .string(""), isUnique: true),
            AttributeDescription("value", type: .int64, isOptional: false, defaultValue: .integer(0)),
        ]
        if version >= 2 {
            for k in 2...version {
                itemAttributes.append(AttributeDescription("extra\(k)", type: .int64, isOptional: false, defaultValue: .integer(Int64(k))))
            }
        }
        return try ObjectModel(entities: [
            EntityDescription("Owner", attributes: [AttributeDescription("name", type: .string, isOptional: false, defaultValue: .string(""), isUnique: true)],
                              relationships: [RelationshipDescription("items", destination: "Item", inverse: "owner", isToMany: true, deleteRule: .cascade)]),
            EntityDescription("Item", attributes: itemAttributes,
                              relationships: [RelationshipDescription("owner", destination: "Owner", inverse: "items"),
                                              RelationshipDescription("tags", destination: "Tag", inverse: "items", isToMany: true)]),
            EntityDescription("Tag", attributes: [AttributeDescription("label", type: .string, isOptional: false, defaultValue: .string(""), isUnique: true)],
                              relationships: [RelationshipDescription("items", destination: "Item", inverse: "tags", isToMany: true)]),
        ])
    }
}

/// The object graph of a crash-harness store as plain values: what the child expects after
/// each save, and what it reads back. Its ``digest`` is stable across processes (FNV-1a of a
/// canonical text), so the parent can compare a reopened store with what the child reported.
struct CrashState: Equatable {
    struct Item: Equatable {
        var value: Int64
        var owner: String?
        var tags: Set<String>
    }
    var owners: Set<String> = []
    var items: [String: Item] = [:]
    var tags: Set<String> = []

    /// One sorted line per object: `O name`, `I name value owner tag,tag`, `T label`.
    var canonicalText: String {
        var lines = owners.map { "O \($0)" } + tags.map { "T \($0)" }
        for (name, item) in items { lines.append("I \(name) \(item.value) \(item.owner ?? "-") \(item.tags.sorted().joined(separator: ","))") }
        return lines.sorted().joined(separator: "\n")
    }

    var digest: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in canonicalText.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }

    /// Reads the graph through `context` (which should have no unsaved changes).
    static func read(_ context: ObjectContext) throws -> CrashState {
        var state = CrashState()
        for owner in try context.fetch(FetchRequest<ManagedObject>(entityName: "Owner")) {
            state.owners.insert(owner.value(forKey: "name") as? String ?? "?")
        }
        for tag in try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag")) {
            state.tags.insert(tag.value(forKey: "label") as? String ?? "?")
        }
        for item in try context.fetch(FetchRequest<ManagedObject>(entityName: "Item")) {
            let tags = (item.value(forKey: "tags") as? Set<ManagedObject> ?? []).map { $0.value(forKey: "label") as? String ?? "?" }
            state.items[item.value(forKey: "name") as? String ?? "?"] = Item(
                value: item.value(forKey: "value") as? Int64 ?? -1,
                owner: (item.value(forKey: "owner") as? ManagedObject)?.value(forKey: "name") as? String,
                tags: Set(tags))
        }
        return state
    }
}
