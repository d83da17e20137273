// TEMPORARY STUB — replaced by the predicates branch at merge.
import GRDB
public struct ObjectPredicate: Sendable, Hashable {
    public static let truePredicate = ObjectPredicate()
    func compiled(for entity: EntityDescription, in model: ObjectModel) throws(StrataError) -> CompiledPredicate { CompiledPredicate() }
}
struct CompiledPredicate {
    func sql(alias: String, arguments: inout [DatabaseValue]) -> String { "1" }
    func evaluate(_ subject: any PredicateSubject) -> Bool { true }
}
