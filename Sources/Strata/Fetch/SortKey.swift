// TEMPORARY STUB — replaced by the predicates branch at merge.
import GRDB
public struct SortKey: Sendable, Hashable {
    public var keyPath: String
    public var ascending: Bool
    public init(_ keyPath: String, ascending: Bool = true) { self.keyPath = keyPath; self.ascending = ascending }
}
