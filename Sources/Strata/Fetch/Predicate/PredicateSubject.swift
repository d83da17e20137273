/// What an in-memory predicate evaluation reads from a candidate object.
///
/// `ManagedObject` conforms (firing faults as needed); tests may conform plain fixtures.
/// Values are the same `PropertyValue`s that are bound into SQL, so SQL and memory compare
/// the same things.
protocol PredicateSubject {
    /// The entity the subject belongs to.
    var predicateEntity: EntityDescription { get }
    /// The subject's ID (compared when a predicate names an object, e.g. `folder == %@`).
    var predicateObjectID: ObjectID { get }
    /// An attribute's value (`.null` for nil).
    func predicateAttribute(_ index: Int) -> PropertyValue
    /// A to-one relationship's destination, or nil.
    func predicateToOne(_ index: Int) -> (any PredicateSubject)?
    /// A to-many relationship's destinations.
    func predicateToMany(_ index: Int) -> [any PredicateSubject]
}
