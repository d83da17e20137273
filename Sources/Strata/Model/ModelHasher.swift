/// Computes a model's version hash: 128 bits of FNV-1a over a canonical text of everything
/// that shapes the store. Stable across processes (unlike `Hasher`, which is seeded).
///
/// Renaming identifiers, the searchable flag, derivations, superentities and abstractness count only when set (so models without them keep their hashes): two
/// attributes that swap names change nothing else, and must still read as a new version.
enum ModelHasher {
    static func hash(_ entities: [EntityDescription]) -> String {
        var text = "strata-model-1\n"
        for entity in entities.sorted(by: { $0.name < $1.name }) {
            text += "E \(entity.name)\(renamed(entity.renamingIdentifier))\(entity.superentityName.map { " super=\($0)" } ?? "")\(entity.isAbstract ? " abstract" : "")\n"
            for a in entity.attributes.sorted(by: { $0.name < $1.name }) {
                text += "A \(a.name) \(a.type.rawValue) o=\(a.isOptional) u=\(a.isUnique) i=\(a.isIndexed) t=\(a.transformerName?.rawValue ?? "")\(a.isSearchable ? " s=true" : "")\(a.derivationExpression.map { " d=\($0)" } ?? "")\(renamed(a.renamingIdentifier))\n"
            }
            for r in entity.relationships.sorted(by: { $0.name < $1.name }) {
                text += "R \(r.name) \(r.destination) \(r.inverse) m=\(r.isToMany) o=\(r.isOrdered) opt=\(r.isOptional)\(renamed(r.renamingIdentifier))\n"
            }
        }
        return fnv(text, basis: 0xcbf2_9ce4_8422_2325) + fnv(text, basis: 0x6c62_272e_07bb_0142)
    }

    private static func renamed(_ identifier: String?) -> String {
        identifier.map { " was=\($0)" } ?? ""
    }

    private static func fnv(_ text: String, basis: UInt64) -> String {
        var h = basis
        for byte in text.utf8 {
            h ^= UInt64(byte)
            h = h &* 0x0000_0100_0000_01B3
        }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
