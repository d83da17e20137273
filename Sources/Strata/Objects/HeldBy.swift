/// The loaded to-many relationships that hold an object, kept on the object itself as hints
/// (see `ObjectContext+Inverses.swift`): `relationship` is the object's own relationship
/// whose inverse is the holder's to-many. Hints are checked before use, so a stale one costs
/// a check, never a wrong answer.
///
/// One hint is stored inline (most objects are held by one to-many per relationship), more go
/// to an array, so filing the first costs no allocation and no hashing.
struct HeldBy {
    /// One hint: `holder`'s to-many (the inverse of `relationship`) holds the object.
    struct Hint {
        let relationship: Int
        let holder: ManagedObject

        func matches(_ relationship: Int, _ holder: ManagedObject) -> Bool {
            self.relationship == relationship && self.holder === holder
        }
    }

    private var first: Hint?
    private var more: [Hint] = []

    /// Whether no hint is filed.
    var isEmpty: Bool { first == nil }

    /// Files a hint (a repeat of the first or the last one is not filed again).
    mutating func add(_ holder: ManagedObject, through relationship: Int) {
        guard let first else { first = Hint(relationship: relationship, holder: holder); return }
        if first.matches(relationship, holder) { return }
        if let last = more.last, last.matches(relationship, holder) { return }
        more.append(Hint(relationship: relationship, holder: holder))
    }

    /// The distinct holders filed through `relationship` that `keep` accepts; hints `keep`
    /// rejects are dropped, as are repeats.
    mutating func holders(through relationship: Int, keeping keep: (ManagedObject) -> Bool) -> [ManagedObject] {
        guard let first else { return [] }
        if more.isEmpty {   // the common case: one hint
            guard first.relationship == relationship else { return [] }
            if keep(first.holder) { return [first.holder] }
            self.first = nil
            return []
        }
        var result: [ManagedObject] = []
        var kept: [Hint] = []
        var seen = Set<ObjectIdentifier>()
        for hint in CollectionOfOne(first) + more {
            guard hint.relationship == relationship else { kept.append(hint); continue }
            guard keep(hint.holder), seen.insert(ObjectIdentifier(hint.holder)).inserted else { continue }
            kept.append(hint)
            result.append(hint.holder)
        }
        self.first = kept.first
        more = Array(kept.dropFirst())
        return result
    }

    /// Forgets every hint.
    mutating func removeAll() {
        first = nil
        more = []
    }
}
