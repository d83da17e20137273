/// One computed column of a dictionary fetch: an aggregate function of a key, named, with the
/// type of its result (Core Data's `NSExpressionDescription` with a function expression).
///
/// Put expressions in ``FetchRequest/expressionsToFetch``; each row of
/// `fetchDictionaries` then holds the result under ``name``. Without
/// ``FetchRequest/propertiesToGroupBy`` the whole entity (after the predicate) is one group.
///
/// Nil values are left out, as in SQL and Core Data: `count` of a key counts the rows where it
/// is not nil; over no values `sum` is 0 and `average`, `min`, `max` are nil.
///
/// For example:
/// ```swift
/// var request = FetchRequest<Note>()
/// request.propertiesToGroupBy = ["folder"]
/// request.propertiesToFetch = ["folder"]
/// request.expressionsToFetch = [.count(nil, as: "notes"), .average("rating", as: "meanRating")]
/// let rows = try context.fetchDictionaries(request)   // [["folder": .objectID(…), "notes": .integer(12), "meanRating": .double(2.5)]]
/// ```
public struct ExpressionDescription: Sendable, Hashable {
    /// The aggregate function.
    ///
    /// For example:
    /// ```swift
    /// let total = ExpressionDescription(name: "total", function: .sum, keyPath: "rating")
    /// ```
    public enum Function: String, Sendable, Hashable, CaseIterable {
        /// The number of rows where the key is not nil (of all rows when the key path is nil).
        case count
        /// The sum of a number attribute (0 over no values).
        case sum
        /// The smallest value of an attribute (nil over no values).
        case min
        /// The largest value of an attribute (nil over no values).
        case max
        /// The mean of a number attribute (nil over no values).
        case average
    }

    /// The key of the result in each dictionary (Core Data's `name`).
    public var name: String
    /// The aggregate function.
    public var function: Function
    /// The key it aggregates: an attribute, or for `count` also a to-one relationship; nil
    /// only for `count`, which then counts rows.
    public var keyPath: String?
    /// The type of the result (Core Data's `expressionResultType`); nil for the natural one:
    /// `.int64` for `count`, the attribute's type for `min`/`max`, `.int64` for the `sum` of
    /// integers, `.double` for the `sum` of doubles and for `average` (`.decimal` for decimals).
    public var resultType: AttributeType?

    /// Creates an expression description.
    ///
    /// For example:
    /// ```swift
    /// let newest = ExpressionDescription(name: "newest", function: .max, keyPath: "created")
    /// ```
    public init(name: String, function: Function, keyPath: String?, resultType: AttributeType? = nil) {
        self.name = name
        self.function = function
        self.keyPath = keyPath
        self.resultType = resultType
    }

    /// `count` of `keyPath` (rows where it is not nil), or of rows when `keyPath` is nil.
    ///
    /// For example:
    /// ```swift
    /// let rows = ExpressionDescription.count(nil, as: "n")
    /// ```
    public static func count(_ keyPath: String?, as name: String, resultType: AttributeType? = nil) -> Self {
        Self(name: name, function: .count, keyPath: keyPath, resultType: resultType)
    }

    /// `sum` of a number attribute.
    ///
    /// For example:
    /// ```swift
    /// let total = ExpressionDescription.sum("rating", as: "total")
    /// ```
    public static func sum(_ keyPath: String, as name: String, resultType: AttributeType? = nil) -> Self {
        Self(name: name, function: .sum, keyPath: keyPath, resultType: resultType)
    }

    /// `min` of an attribute.
    ///
    /// For example:
    /// ```swift
    /// let oldest = ExpressionDescription.min("created", as: "oldest")
    /// ```
    public static func min(_ keyPath: String, as name: String, resultType: AttributeType? = nil) -> Self {
        Self(name: name, function: .min, keyPath: keyPath, resultType: resultType)
    }

    /// `max` of an attribute.
    ///
    /// For example:
    /// ```swift
    /// let best = ExpressionDescription.max("rating", as: "best")
    /// ```
    public static func max(_ keyPath: String, as name: String, resultType: AttributeType? = nil) -> Self {
        Self(name: name, function: .max, keyPath: keyPath, resultType: resultType)
    }

    /// `average` of a number attribute.
    ///
    /// For example:
    /// ```swift
    /// let mean = ExpressionDescription.average("rating", as: "mean")
    /// ```
    public static func average(_ keyPath: String, as name: String, resultType: AttributeType? = nil) -> Self {
        Self(name: name, function: .average, keyPath: keyPath, resultType: resultType)
    }
}
