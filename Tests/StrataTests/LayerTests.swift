import Foundation
import Testing

/// The engine's folders are layers that point one way (docs/architecture.md, "Layers"): a file
/// may use the types of its own layer and of the layers below, never of a layer above.
///
/// The check reads the sources: it collects the types each folder declares and looks for
/// their names (as whole words, outside comments and string literals) in the files of lower
/// layers. `knownDebt` lists the uses still to remove; it may only shrink.
@Suite struct LayerTests {
    /// Lowest first; folders in one entry are one layer.
    static let layers: [[String]] = [
        ["Support"],
        ["Model", "Errors", "Transform"],
        ["Changes"],
        ["Objects", "Fetch"],
        ["Store"],
        ["Context"],
    ]

    /// "file: Type" uses of a higher layer that remain (issue 8): the model still names the
    /// object classes it was built from and the conversions their property wrappers use.
    static let knownDebt: Set<String> = [
        "EntityDescription.swift: AttributeConversion",
        "EntityDescription.swift: ManagedObject",
        "EntityDescription.swift: RelationshipConversion",
        "ObjectModel.swift: AttributeConversion",
        "ObjectModel.swift: ManagedObject",
        "ObjectModel.swift: RelationshipConversion",
    ]

    @Test func foldersPointOneWay() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/Strata")
        let files = try Self.sources(under: root)
        var layerOf: [String: Int] = [:]
        for (index, folders) in Self.layers.enumerated() { for folder in folders { layerOf[folder] = index } }
        let folders = Set(files.map(\.folder))
        #expect(folders.subtracting(layerOf.keys).isEmpty, "folders without a layer: \(folders.subtracting(layerOf.keys).sorted())")

        var declaredIn: [String: Set<String>] = [:]   // type name → folders declaring it
        let declaration = /(?:class|struct|enum|protocol|typealias|actor)\s+([A-Z][A-Za-z0-9_]*)/
        for file in files {
            for match in file.code.matches(of: declaration) { declaredIn[String(match.1), default: []].insert(file.folder) }
        }
        var found: Set<String> = []
        for file in files {
            guard let own = layerOf[file.folder] else { continue }
            let words = Set(file.code.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
            for (type, declaring) in declaredIn where !declaring.contains(file.folder) && words.contains(type) {
                let lowest = declaring.compactMap { layerOf[$0] }.min() ?? own
                if lowest > own { found.insert("\(file.name): \(type)") }
            }
        }
        let added = found.subtracting(Self.knownDebt)
        #expect(added.isEmpty, "uses of a higher layer: \(added.sorted())")
        let paid = Self.knownDebt.subtracting(found)
        #expect(paid.isEmpty, "debt paid, remove it from knownDebt: \(paid.sorted())")
    }

    /// Every Swift file under `root` with its folder and its code (comments and string
    /// literals blanked out).
    static func sources(under root: URL) throws -> [(folder: String, name: String, code: String)] {
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        var result: [(String, String, String)] = []
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            let relative = url.path.dropFirst(root.path.count + 1)
            guard let folder = relative.split(separator: "/").first, relative.contains("/") else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            let code = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                var kept = line.prefix { _ in true }
                if let comment = line.range(of: "//") { kept = line[..<comment.lowerBound] }
                return kept.replacing(/"(?:[^"\\]|\\.)*"/, with: "\"\"")
            }.joined(separator: "\n")
            result.append((String(folder), url.lastPathComponent, code))
        }
        return result
    }
}
