/// One deleted object in a ``ChangeBatch``.
///
/// For example:
/// ```swift
/// for deletion in batch.deleted { print(deletion.id, deletion.value(forKey: "title")) }
/// ```
public struct ObjectDeletion: Sendable {
    /// The object.
    public let id: ObjectID
    /// The row version the delete was made against.
    public let version: Int64
    /// The attribute values as last saved or fetched, in entity order.
    public let values: [PropertyValue]

    init(id: ObjectID, version: Int64, values: [PropertyValue]) {
        self.id = id
        self.version = version
        self.values = values
    }

    /// The last saved value of attribute `key` (`.null` for a key that is not an attribute).
    public func value(forKey key: String) -> PropertyValue {
        if case .attribute(let i)? = id.entity.propertyIndex[key], i < values.count { return values[i] }
        return .null
    }
}
