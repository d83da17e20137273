/// How a save resolves conflicts with changes made in the store since the objects were read,
/// and how a merge treats the context's own unsaved edits.
///
/// | policy | at save, for a key changed both here and in the store | at merge, for a key edited here |
/// |---|---|---|
/// | `.error` | nothing is written; a `.conflict` error lists every object and key | kept |
/// | `.mergeByPropertyStoreTrump` | the store's value wins; our other changes are written | the incoming value wins |
/// | `.mergeByPropertyObjectTrump` | our value wins; the store's other changes stay | kept |
/// | `.overwrite` | our whole object is written over the row | kept |
/// | `.rollback` | our changes to the object are dropped for the store's row | the incoming value wins |
///
/// An insert that collides with a stored unique value is a conflict too: `.error` reports it;
/// `.mergeByPropertyObjectTrump` and `.overwrite` update the existing row with our values (an
/// idempotent import by unique identifier); `.mergeByPropertyStoreTrump` and `.rollback`
/// take the existing row as it is. Either way our object becomes that row — unless its ID was
/// made permanent before the save (``ObjectContext/obtainPermanentIDs(for:)``): it was promised
/// its own row, so the collision is a `.conflict` error under every policy.
///
/// For example:
/// ```swift
/// importContext.mergePolicy = .mergeByPropertyObjectTrump
/// ```
public enum MergePolicy: String, Sendable, Hashable, CaseIterable {
    case error
    case mergeByPropertyStoreTrump
    case mergeByPropertyObjectTrump
    case overwrite
    case rollback
}
