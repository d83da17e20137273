import Foundation
import Testing
@testable import Strata

/// Random combinations of hierarchy changes in one migration (the CASE expressions of a
/// rebuilt table meet renamed, removed and added entities and columns at once): each migrated
/// store has a fresh store's schema, and its objects read back as worked out here from the seed
/// data. `STRATA_SEED=<n>` replays one seed.
@Suite struct MigrationInheritanceRandomTests {
    static let seeds = SeededRandom.seeds([3, 17, 404, 2026, 77_777, 9_001])

    struct Changes: CustomStringConvertible {
        var renameRoot, renameVideo, removeClip, addAudio, renameSize, addRating, dropWidth, renameSource: Bool

        init(_ rng: inout SeededRandom) {
            renameRoot = rng.chance(0.5); renameVideo = rng.chance(0.5); removeClip = rng.chance(0.4); addAudio = rng.chance(0.5)
            renameSize = rng.chance(0.5); addRating = rng.chance(0.5); dropWidth = rng.chance(0.4); renameSource = rng.chance(0.5)
        }

        var description: String {
            let all = [("renameRoot", renameRoot), ("renameVideo", renameVideo), ("removeClip", removeClip), ("addAudio", addAudio),
                       ("renameSize", renameSize), ("addRating", addRating), ("dropWidth", dropWidth), ("renameSource", renameSource)]
            return all.filter(\.1).map(\.0).joined(separator: ",")
        }

        var root: String { renameRoot ? "File" : "Attachment" }
        var video: String { renameVideo ? "Movie" : "Video" }

        /// The new model.
        func model() throws -> ObjectModel {
            var entities = HierarchyFixture.base(root: root)
            entities["Attachment"] = HierarchyFixture.attachment(
                root: root,
                extra: addRating ? [AttributeDescription("rating", type: .int64, isOptional: false, defaultValue: .integer(5))] : [],
                size: renameSize ? AttributeDescription("bytes", type: .int64, defaultValue: .integer(0), renamingIdentifier: "size") : nil)
            entities["Photo"] = EntityDescription("Photo", attributes: (dropWidth ? [] : [AttributeDescription("width", type: .int64, defaultValue: .integer(0))])
                                                  + [AttributeDescription("caption", type: .string, isSearchable: true)],
                                                  relationships: [RelationshipDescription("album", destination: "Album", inverse: "photos")], superentity: root)
            entities["Video"] = EntityDescription(video, attributes: [AttributeDescription("duration", type: .double, defaultValue: .double(0))],
                                                  renamingIdentifier: renameVideo ? "Video" : nil, superentity: root)
            entities["Clip"] = removeClip ? nil : EntityDescription("Clip", attributes: [
                renameSource ? AttributeDescription("origin", type: .string, renamingIdentifier: "source") : Fixture.string("source"),
            ], superentity: video)
            if addAudio { entities["Audio"] = EntityDescription("Audio", attributes: [AttributeDescription("bitrate", type: .int64)], superentity: root) }
            return try HierarchyFixture.model(entities)
        }

        /// What ``HierarchyFixture/read(_:_:_:relationships:root:label:)`` reads after the migration.
        var expected: [String: String] {
            let size = renameSize ? "bytes" : "size", source = renameSource ? "origin" : "source"
            func line(_ parts: [String]) -> String {
                (parts + ["note=[trip]"] + (addRating ? ["rating=5"] : [])).sorted().joined(separator: " ")
            }
            var result = [
                "Photo photo-0": line(["name=photo-0", "\(size)=10"] + (dropWidth ? [] : ["width=100"])),
                "\(video) video-1": line(["name=video-1", "\(size)=20", "duration=1.0", "labels=[loud]"]),
                "Photo photo-3": line(["name=photo-3", "\(size)=40"] + (dropWidth ? [] : ["width=400"])),
            ]
            if !removeClip {
                result["Clip clip-2"] = line(["name=clip-2", "\(size)=30", "duration=2.0", "labels=[loud]", "pinnedBy=[trip]", "\(source)=camera 2"])
            }
            return result
        }
    }

    @Test(arguments: seeds) func randomCombinationsOfHierarchyChangesMigrate(seed: UInt64) async throws {
        var rng = SeededRandom(seed: seed)
        for round in 0..<3 {
            let changes = Changes(&rng)
            let dir = TemporaryDirectory(), url = dir.file()
            try await HierarchyFixture.seed(url)
            let model = try changes.model()
            try await HierarchyFixture.expectSchemaLikeFresh(url, model)
            let objects = try await HierarchyFixture.read(url, model, ["name", "size", "bytes", "rating", "width", "duration", "source", "origin"],
                                                          relationships: ["note", "labels", "pinnedBy"], root: changes.root)
            #expect(objects == changes.expected, "seed \(seed) round \(round): \(changes)")
            #expect(try await HierarchyFixture.search(url, model, "Photo", "sunset") == ["photo-0", "photo-3"], "seed \(seed) round \(round): \(changes)")
            #expect(try await HierarchyFixture.search(url, model, changes.root, "video") == ["video-1"], "seed \(seed) round \(round): \(changes)")
        }
    }
}
