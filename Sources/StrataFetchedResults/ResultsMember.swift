import Strata

/// One result of a ``FetchedResultsController``: the object, the ID it is indexed under, and
/// the sort values it was placed with (`nil` for a fault never read: found by identity).
///
/// For example (inside the controller):
/// ```swift
/// members[id] = ResultsMember(object: object, indexedID: id, values: values)
/// ```
struct ResultsMember {
    /// `nil` while the result's object was never made (see `ResultsIndex.Entry.object`).
    var object: ManagedObject?
    var indexedID: ObjectID
    var values: [PropertyValue]?
}
