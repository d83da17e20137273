import Foundation
import Strata

/// The model of the hierarchy migration kill test (`MigrationHierarchyKillTests`), shared by
/// the probe (`open-hierarchy <store> <version>`) and the tests (symlinked into
/// Tests/StrataTests/Support).
///
/// Version 1: `Owner` (plain) holds `Attachment`s; `Attachment` (searchable `name`, `size`)
/// above `Photo` (`width`) and `Video` (`duration`), `Clip` (`source`) below `Video`.
/// Version 2, a migration that rebuilds both tables: `Owner` gains a subentity `Team`,
/// `Attachment` a required `rating` (default 3), `Photo.width` is renamed `pixels`, `Video`
/// is renamed `Movie`, `Clip` is removed with its rows, and `Audio` is added.
enum HierarchyCrashModel {
    static func make(version: Int) throws -> ObjectModel {
        let owner = EntityDescription("Owner", attributes: [AttributeDescription("name", type: .string, isUnique: true)], relationships: [
            RelationshipDescription("attachments", destination: "Attachment", inverse: "owner", isToMany: true)])
        var attachmentAttributes = [
            AttributeDescription("name", type: .string, isSearchable: true),
            AttributeDescription("size", type: .int64, defaultValue: .integer(0)),
        ]
        if version >= 2 { attachmentAttributes.append(AttributeDescription("rating", type: .int64, isOptional: false, defaultValue: .integer(3))) }
        let attachment = EntityDescription("Attachment", attributes: attachmentAttributes, relationships: [
            RelationshipDescription("owner", destination: "Owner", inverse: "attachments")], isAbstract: true)
        guard version >= 2 else {
            return try ObjectModel(entities: [
                owner, attachment,
                EntityDescription("Photo", attributes: [AttributeDescription("width", type: .int64, defaultValue: .integer(0))], superentity: "Attachment"),
                EntityDescription("Video", attributes: [AttributeDescription("duration", type: .double, defaultValue: .double(0))], superentity: "Attachment"),
                EntityDescription("Clip", attributes: [AttributeDescription("source", type: .string)], superentity: "Video"),
            ])
        }
        return try ObjectModel(entities: [
            owner, attachment,
            EntityDescription("Team", attributes: [AttributeDescription("members", type: .int64, defaultValue: .integer(0))], superentity: "Owner"),
            EntityDescription("Photo", attributes: [AttributeDescription("pixels", type: .int64, defaultValue: .integer(0), renamingIdentifier: "width")],
                              superentity: "Attachment"),
            EntityDescription("Movie", attributes: [AttributeDescription("duration", type: .double, defaultValue: .double(0))],
                              renamingIdentifier: "Video", superentity: "Attachment"),
            EntityDescription("Audio", attributes: [AttributeDescription("bitrate", type: .int64)], superentity: "Attachment"),
        ])
    }
}
