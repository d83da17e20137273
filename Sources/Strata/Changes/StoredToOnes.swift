/// The to-one targets an updated object's row stores, by relationship slot, as an
/// ``ObjectChange`` carries them for a merge policy that writes the whole object: `.some(nil)`
/// for no target, `nil` where the change does not know (the relationship was not loaded).
///
/// An object with one loaded to-one (most updates: an entity with one to-one, or one loaded)
/// keeps it without an array; an array cost an allocation per updated object, about 350
/// instructions.
///
/// For example (inside the engine):
/// ```swift
/// var stored = StoredToOnes()
/// stored.set(authorID, at: 0, of: 1)
/// stored[0]   // .some(authorID)
/// ```
struct StoredToOnes: Sendable {
    private enum Storage: Sendable {
        case none
        case one(slot: Int, target: ObjectID?)
        case many([ObjectID??])
    }

    private var storage = Storage.none

    init() {}

    /// The target stored at relationship `slot`: `.some(nil)` for none, `nil` when unknown.
    subscript(slot: Int) -> ObjectID?? {
        switch storage {
        case .none: nil
        case .one(let known, let target): known == slot ? .some(target) : nil
        case .many(let targets): slot < targets.count ? targets[slot] : nil
        }
    }

    /// Records `target` at relationship `slot` of an entity with `count` relationships.
    mutating func set(_ target: ObjectID?, at slot: Int, of count: Int) {
        switch storage {
        case .none:
            storage = .one(slot: slot, target: target)
        case .one(let known, let knownTarget):
            var targets = [ObjectID??](repeating: nil, count: count)
            targets[known] = .some(knownTarget)
            targets[slot] = .some(target)
            storage = .many(targets)
        case .many(var targets):
            storage = .none   // (the array is uniquely held while it changes)
            targets[slot] = .some(target)
            storage = .many(targets)
        }
    }
}
