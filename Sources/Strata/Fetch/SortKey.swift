// TEMPORARY STUB — replaced by the predicates branch at merge.
import GRDB
public struct SortKey: Sendable, Hashable {
    public var keyPath: String
    public var ascending: Bool
    public init(_ keyPath: String, ascending: Bool = true) { self.keyPath = keyPath; self.ascending = ascending }
    func compiled(for entity: EntityDescription, in model: ObjectModel) throws(StrataError) -> CompiledSortKey {
        guard case .attribute(let i) = entity.propertyIndex[keyPath] else { throw StrataError(.invalidRequest, "bad sort key") }
        return CompiledSortKey(column: entity.attributes[i].name, index: i, ascending: ascending)
    }
}
struct CompiledSortKey {
    let column: String; let index: Int; let ascending: Bool
    func sql(alias: String) -> String { "\(alias).\"\(column)\" \(ascending ? "ASC" : "DESC")" }
    func compare(_ a: any PredicateSubject, _ b: any PredicateSubject) -> Int {
        let x = a.predicateAttribute(index).description, y = b.predicateAttribute(index).description
        return (x < y ? -1 : x > y ? 1 : 0) * (ascending ? 1 : -1)
    }
}
