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
}

/// A record with the stamp it was made at.
struct StampedRecord: Hashable, Sendable {
    var stamp: Stamp
    var record: EventRecord
}
