import Foundation
import GRDB
import Testing
@testable import Strata

/// The dynamic model of the inheritance migration tests, a store seeded with it, and the
/// comparison of a migrated store's schema with a fresh one's.
///
/// Version 1: `Attachment` (abstract; searchable `name`, `size`, unique `checksum`) above
/// `Photo` (`width`, searchable `caption`, to-one `album`) and `Video` (`duration`), `Clip`
/// (`source`) below `Video`; a `Post` holds attachments and pins one, an `Album` holds photos,
/// a `Badge` labels attachments (many-to-many).
enum HierarchyFixture {
    static func attachment(root: String = "Attachment", extra: [AttributeDescription] = [], size: AttributeDescription? = nil,
                           labels: String = "labels") -> EntityDescription {
        EntityDescription(root, attributes: [
            AttributeDescription("name", type: .string, isSearchable: true),
            size ?? AttributeDescription("size", type: .int64, defaultValue: .integer(0)),
            AttributeDescription("checksum", type: .string, isUnique: true),
        ] + extra, relationships: [
            RelationshipDescription("note", destination: "Post", inverse: "attachments"),
            RelationshipDescription("pinnedBy", destination: "Post", inverse: "pinned", isToMany: true),
            RelationshipDescription(labels, destination: "Badge", inverse: "attachments", isToMany: true,
                                    renamingIdentifier: labels == "labels" ? nil : "labels"),
        ], renamingIdentifier: root == "Attachment" ? nil : "Attachment", isAbstract: true)
    }

    static func post(root: String = "Attachment", pinnedIsOptional: Bool = true) -> EntityDescription {
        EntityDescription("Post", attributes: [Fixture.string("title")], relationships: [
            RelationshipDescription("attachments", destination: root, inverse: "note", isToMany: true, deleteRule: .cascade),
            RelationshipDescription("pinned", destination: root, inverse: "pinnedBy", isOptional: pinnedIsOptional),
        ])
    }

    /// Version 1's entities by name (a test replaces or removes some), the root named `root`.
    static func base(root: String = "Attachment") -> [String: EntityDescription] {
        [
            "Attachment": attachment(root: root),
            "Photo": EntityDescription("Photo", attributes: [
                AttributeDescription("width", type: .int64, defaultValue: .integer(0)), AttributeDescription("caption", type: .string, isSearchable: true),
            ], relationships: [RelationshipDescription("album", destination: "Album", inverse: "photos")], superentity: root),
            "Video": EntityDescription("Video", attributes: [AttributeDescription("duration", type: .double, defaultValue: .double(0))], superentity: root),
            "Clip": EntityDescription("Clip", attributes: [Fixture.string("source")], superentity: "Video"),
            "Post": post(root: root),
            "Album": EntityDescription("Album", attributes: [Fixture.string("title")], relationships: [
                RelationshipDescription("photos", destination: "Photo", inverse: "album", isToMany: true)]),
            "Badge": EntityDescription("Badge", attributes: [Fixture.string("text")], relationships: [
                RelationshipDescription("attachments", destination: root, inverse: "labels", isToMany: true)]),
        ]
    }

    static func model(_ entities: [String: EntityDescription]) throws -> ObjectModel {
        try ObjectModel(entities: Array(entities.values))
    }

    /// Creates a store at `url` (version 1 by default): a post "trip", an album "holiday", a
    /// badge "loud", then photo-0, video-1, clip-2, photo-3 (keys 1 to 4, one save each), all
    /// in the post, the photos in the album, video-1 and clip-2 labelled, clip-2 pinned.
    static func seed(_ url: URL, model: ObjectModel? = nil) async throws {
        let coordinator = try await StoreCoordinator(model: try model ?? Self.model(base()), store: .sqlite(url))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let post = try context.insert(entityNamed: "Post")
            post["title"] = "trip"
            let album = try context.insert(entityNamed: "Album")
            album["title"] = "holiday"
            let badge = try context.insert(entityNamed: "Badge")
            badge["text"] = "loud"
            try context.save()
            var made: [ManagedObject] = []
            for (i, kind) in ["Photo", "Video", "Clip", "Photo"].enumerated() {
                let a = try context.insert(entityNamed: kind)
                a["name"] = "\(kind.lowercased())-\(i)"
                a["size"] = Int64(10 * (i + 1))
                a["checksum"] = "c\(i)"
                a["note"] = post
                if kind == "Photo" {
                    a["width"] = Int64(100 * (i + 1))
                    a["caption"] = "beach sunset \(i)"
                    a["album"] = album
                } else {
                    a["duration"] = Double(i)
                }
                if kind == "Clip" { a["source"] = "camera \(i)" }
                try context.save()
                made.append(a)
            }
            post["pinned"] = made[2]
            badge["attachments"] = Set([made[1], made[2]])
            try context.save()
        }
        try coordinator.close()
    }

    /// Every object of `root` (a fetch of the superentity), by "<entity> <label value>": its
    /// non-nil `attributes` and non-empty `relationships` (as the related objects' names or
    /// titles) that its entity has, sorted.
    static func read(_ url: URL, _ model: ObjectModel, _ attributes: [String], relationships: [String],
                     root: String = "Attachment", label: String = "name") async throws -> [String: String] {
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(url))
        defer { try? coordinator.close() }
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        return try await context.perform {
            var result: [String: String] = [:]
            for object in try context.fetch(FetchRequest<ManagedObject>(entityName: root)) {
                let entity = object.entity
                var parts: [String] = []
                for key in attributes where entity.attribute(named: key) != nil {
                    if let value = object[key] { parts.append("\(key)=\(value)") }
                }
                for key in relationships where entity.relationship(named: key) != nil {
                    var related: [ManagedObject] = []
                    if let one = object[key] as? ManagedObject { related = [one] }
                    if let many = object[key] as? Set<ManagedObject> { related = Array(many) }
                    if let ordered = object[key] as? [ManagedObject] { related = ordered }
                    guard !related.isEmpty else { continue }
                    parts.append("\(key)=[\(related.map(title).sorted().joined(separator: ","))]")
                }
                result["\(entity.name) \(object[label] ?? "")"] = parts.sorted().joined(separator: " ")
            }
            return result
        }
    }

    private static func title(_ object: ManagedObject) -> String {
        for key in ["name", "title", "text"] where object.entity.attribute(named: key) != nil { return "\(object[key] ?? "")" }
        return "?"
    }

    /// The `label` values of the objects of `entity` matching a text search for `query`, sorted.
    static func search(_ url: URL, _ model: ObjectModel, _ entity: String, _ query: String, label: String = "name") async throws -> [String] {
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(url))
        defer { try? coordinator.close() }
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        return try await context.perform {
            var request = FetchRequest<ManagedObject>(entityName: entity)
            request.textSearch = TextSearch(query, ordersByRelevance: false)
            return try context.fetch(request).map { "\($0[label] ?? "")" }.sorted()
        }
    }

    /// The schema of a store: every table, index, trigger and virtual table but SQLite's own,
    /// by "<type> <name>". A table is described by its columns (name, declared type, NOT NULL,
    /// primary key; sorted by name) and foreign keys, since a table altered in place lists an
    /// added column last, with its `DEFAULT`; everything else by its SQL.
    static func schema(_ url: URL) throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try Fixture.rows(url, "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'") {
            let type: String = row["type"], name: String = row["name"]
            let sql: String? = row["sql"]
            if type == "table", sql?.hasPrefix("CREATE VIRTUAL TABLE") != true {
                let columns = try Fixture.rows(url, "SELECT name, type, \"notnull\", pk FROM pragma_table_info('\(name)') ORDER BY name")
                    .map { "\($0["name"] as String) \($0["type"] as String) \($0["notnull"] as Int) \($0["pk"] as Int)" }
                let keys = try Fixture.rows(url, "SELECT \"from\", \"table\", \"to\" FROM pragma_foreign_key_list('\(name)') ORDER BY \"from\"")
                    .map { "\($0["from"] as String)→\($0["table"] as String).\($0["to"] as String? ?? "")" }
                result["table \(name)"] = (columns + keys).joined(separator: ", ")
            } else {
                result["\(type) \(name)"] = sql ?? ""
            }
        }
        return result
    }

    /// The `CREATE TABLE` statements of a store, by table name.
    static func tableSQL(_ url: URL) throws -> [String: String] {
        Dictionary(try Fixture.rows(url, "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE TABLE%'")
            .map { ($0["name"] as String, $0["sql"] as String) }, uniquingKeysWith: { a, _ in a })
    }

    /// Opens the store at `url` with `model` (migrating it) and expects its schema to be a
    /// fresh store's of `model`: the same tables, columns, foreign keys, indexes, triggers and
    /// full-text indexes, and for the tables of hierarchies the very same `CREATE TABLE` (a
    /// hierarchy's table is rebuilt in the new layout). The store must pass `integrity_check`
    /// and `foreign_key_check`.
    static func expectSchemaLikeFresh(_ url: URL, _ model: ObjectModel, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await Fixture.open(url, model)
        let directory = TemporaryDirectory(), freshURL = directory.file("fresh.sqlite")
        try await Fixture.open(freshURL, model)
        let migrated = try schema(url), fresh = try schema(freshURL)
        for key in Set(migrated.keys).union(fresh.keys).sorted() where migrated[key] != fresh[key] {
            Issue.record("\(key): migrated \(migrated[key] ?? "missing"), fresh \(fresh[key] ?? "missing")", sourceLocation: sourceLocation)
        }
        let migratedSQL = try tableSQL(url), freshSQL = try tableSQL(freshURL)
        for entity in model.entities where entity.hierarchy.storesKind && entity.hierarchy.rootIndex == entity.index {
            #expect(migratedSQL[entity.name] == freshSQL[entity.name], "the table of \(entity.name)", sourceLocation: sourceLocation)
        }
        #expect(try Fixture.rows(url, "PRAGMA integrity_check").first?[0] == "ok", sourceLocation: sourceLocation)
        #expect(try Fixture.rows(url, "PRAGMA foreign_key_check").isEmpty, sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: StoreMigrator.backupPath(for: url.path)), sourceLocation: sourceLocation)
    }
}
