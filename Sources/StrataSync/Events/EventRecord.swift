/// One change to the merge state, as an event or a baseline carries it.
enum EventRecord: Hashable, Sendable {
    /// The object exists from this stamp on (until a later delete).
    case insert(GlobalObjectKey)
    /// The object is gone from this stamp on (until a later insert).
    case delete(GlobalObjectKey)
    /// A property's value: an attribute, a to-one's target, an ordered to-many's order.
    case cell(GlobalObjectKey, property: String, value: [UInt8])
    /// A to-many's member joins (`present`) or leaves.
    case member(GlobalObjectKey, relationship: String, member: String, present: Bool)

    var object: GlobalObjectKey {
        switch self {
        case .insert(let key), .delete(let key), .cell(let key, _, _), .member(let key, _, _, _): key
        }
    }

    /// Whether the record is of `key`'s object (``object`` without a copy of the key).
    func isOf(_ key: GlobalObjectKey) -> Bool {
        switch self {
        case .insert(let mine), .delete(let mine), .cell(let mine, _, _), .member(let mine, _, _, _): mine == key
        }
    }
}

/// A record with the stamp it was made at.
struct StampedRecord: Hashable, Sendable {
    var stamp: Stamp
    var record: EventRecord
}
