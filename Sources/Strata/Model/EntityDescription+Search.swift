/// The names of an entity's full-text index, shared by the store (which writes it, see
/// `SearchIndex`) and fetch plans (which query it).
extension EntityDescription {
    /// The FTS5 table of the entity named `entityName`.
    static func searchIndexTableName(_ entityName: String) -> String { "_fts_\(entityName)" }

    /// The searchable attributes' names, in the entity's order: the index's columns (empty when
    /// the entity has no index).
    var searchableAttributeNames: [String] { attributes.filter(\.isSearchable).map(\.name) }
}
