import Strata

/// One object a change set touched, as the controller works it through a batch: the result it
/// was, where it stood, what it sorts by now, and what happened to it. The batch keeps these in
/// one array, so each step reads and writes its object's entry by position instead of looking
/// it up by ID in a dictionary of its own.
///
/// For example (inside the controller):
/// ```swift
/// var work = touched.map { TouchedResult(id: $0, member: members[$0]) }
/// work[i].values = index.currentValues(of: object)
/// ```
struct TouchedResult {
    /// The object's current ID.
    let id: ObjectID
    /// The result held under `id` before the batch (after re-keying), if it was one.
    var member: ResultsMember?
    /// The object as the context holds it, resolved when it was not a result.
    var loaded: ManagedObject?
    /// The object reported for it: the result's, or the one that now matches.
    var object: ManagedObject?
    /// Where it stood before the batch.
    var oldPath: FetchedIndexPath?
    /// Its sort values after the batch; `nil` when it is not a result any more.
    var values: [PropertyValue]?
    /// What the batch did to it, if anything shown.
    var kind: FetchedResultsChangeType?
    /// Where it was placed, when it was (an insert or a move).
    var placedPath: FetchedIndexPath?
    /// Whether it is a new object of a merged save that was evaluated from the save's values,
    /// without an object (`object` stays `nil`: the result's object is made when asked for).
    var fromSave = false

    init(id: ObjectID, member: ResultsMember?) {
        self.id = id
        self.member = member
    }
}
