/// A comparison of two key paths of the same object (`rank > priority`,
/// `author.name ==[c] title`, `folder == owner.folder`), in SQL and in memory alike: both
/// values are read, converted to the domain's comparable form (strings folded by `[c]`/`[d]`),
/// and compared as ``ComparisonTest`` compares a value with a constant. Two-valued: nil equals
/// only nil, and an ordering with a nil side is false.
struct KeyPathComparison {
    let lhs: ResolvedKeyPath
    let rhs: ResolvedKeyPath
    let domain: ComparisonTest.Domain
    /// `==`, `!=`, `<`, `<=`, `>` or `>=` (the parser admits no other with a key path).
    let op: PredicateOperator
    let options: ObjectPredicate.StringOptions

    /// Whether `subject` passes.
    func evaluate(_ subject: any PredicateSubject) -> Bool {
        let a = ComparisonTest.scalar(lhs.value(of: subject), domain, options)
        let b = ComparisonTest.scalar(rhs.value(of: subject), domain, options)
        switch op {
        case .equalTo: return ComparisonTest.equal(a, b)
        case .notEqualTo: return !ComparisonTest.equal(a, b)
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard let a, let b, let order = ComparisonTest.order(a, b) else { return false }
            switch op {
            case .lessThan: return order < 0
            case .lessThanOrEqualTo: return order <= 0
            case .greaterThan: return order > 0
            default: return order >= 0
            }
        default: return false
        }
    }

    /// The boolean SQL (never NULL) over table alias `alias`.
    func sql(alias: String, writer: inout PredicateSQLWriter) -> String {
        var left = lhs.sql(from: alias, writer: &writer)
        var right = rhs.sql(from: alias, writer: &writer)
        if domain == .text && !options.isEmpty {
            left = "\(PredicateFunctions.foldFunctionName)(\(left), \(options.rawValue))"
            right = "\(PredicateFunctions.foldFunctionName)(\(right), \(options.rawValue))"
        }
        switch op {
        case .equalTo: return "(\(left) IS \(right))"
        case .notEqualTo: return "(\(left) IS NOT \(right))"
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            return "COALESCE(\(left) \(op.rawValue) \(right), 0)"
        default: return "0"
        }
    }
}
