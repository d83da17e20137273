import Foundation

extension PropertyValue {
    /// This value as an attribute of `type` stores it, or nil when it is not a value of that
    /// type. `.null` fits every type (whether the attribute is optional is checked at save, as
    /// Core Data validates). The widenings `setValue(_:forKey:)` allows for Swift values apply
    /// here too: an integer fits a double or a decimal attribute. An integer's range is checked
    /// at save (an `int16` or `int32` out of range is `.unencodableValue` then).
    ///
    /// For example:
    /// ```swift
    /// PropertyValue.integer(3).fitting(.double)   // .double(3)
    /// PropertyValue.string("3").fitting(.int64)   // nil
    /// ```
    public func fitting(_ type: AttributeType) -> PropertyValue? {
        switch (self, type) {
        case (.null, _),
             (.string, .string),
             (.integer, .int16), (.integer, .int32), (.integer, .int64),
             (.double, .double),
             (.bool, .bool),
             (.date, .date),
             (.data, .data),
             (.uuid, .uuid),
             (.url, .url),
             (.decimal, .decimal),
             (.transformed, .transformable):
            self
        case (.integer(let v), .double): .double(Double(v))
        case (.integer(let v), .decimal): .decimal(Decimal(v))
        default: nil
        }
    }
}
