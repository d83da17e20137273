import Strata

extension FetchedResultsController {
    /// The key `object` is held under in ``members``, if it is a result: its own ID, unless
    /// ``unmatchedKeys`` says otherwise. No hashing for a result held under its own ID.
    ///
    /// For example (inside the controller):
    /// ```swift
    /// if let oldKey = heldKey(of: object), oldKey != id { /* re-key it */ }
    /// ```
    func heldKey(of object: ManagedObject) -> ObjectID? {
        if !unmatchedKeys.isEmpty, let key = unmatchedKeys[ObjectIdentifier(object)] { return key }
        let id = object.objectID
        guard let member = members[id] else { return nil }
        // A result whose object was never made is held under its own (permanent) ID, which
        // names one object of the context.
        return member.object.map({ $0 === object }) ?? (object.context === context) ? id : nil
    }

    /// Records that `object` is held under `key` in ``members`` (`nil`: no longer held). Only a
    /// key other than the object's own ID, or a temporary one (the object may be saved before
    /// the controller hears of it), is written down.
    func setHeldKey(_ key: ObjectID?, of object: ManagedObject?) {
        guard let object else { return }   // never made: held under its own permanent ID
        if let key, key.isTemporary || key != object.objectID {
            unmatchedKeys[ObjectIdentifier(object)] = key
        } else if !unmatchedKeys.isEmpty {
            unmatchedKeys[ObjectIdentifier(object)] = nil
        }
    }

    /// Moves the result held under `oldKey` to `newKey` (its new ID), recording the key it is
    /// held under; returns whether there was one. The one place a result changes key, so
    /// ``members`` and ``unmatchedKeys`` move together.
    ///
    /// For example (inside the controller):
    /// ```swift
    /// if moveResult(from: temporary, to: permanent) { touched.insert(permanent) }
    /// ```
    func moveResult(from oldKey: ObjectID, to newKey: ObjectID) -> Bool {
        guard let member = members.removeValue(forKey: oldKey) else { return false }
        members[newKey] = member
        setHeldKey(newKey, of: member.object)
        return true
    }
}
