import Foundation

/// The objects a large push into a main-queue context will need, made on the child's queue
/// from the push's rows (``PushRows``) while the main queue is free: main adopts each one it
/// does not hold yet instead of constructing a fault and filling it on its own queue, which
/// was about half of what applying such a push cost main (docs/performance.md, "Objects made
/// on the child's queue").
///
/// An object is made as a fetch makes it (its class's initialiser runs, with no initial
/// values collected), owned by no context until main adopts it; `awakeFromFetch()` runs on
/// main's queue after the adoption, with the faults the push fills. An object main already
/// holds is not adopted; the prepared one is freed with the record, which the child drops on
/// its queue once main has applied the push.
///
/// Next to each object the record keeps its values as the push leaves them (the row's, with
/// the update's changed attributes set), copied here too: main takes them in one move
/// (``takeChangedValues(at:for:)``) instead of copying the row's values at its first change
/// and comparing each one.
///
/// For example (inside the engine, in a child's save into a main-queue parent):
/// ```swift
/// let prepared = PreparedObjects.make(for: batch, rows: rows, in: self)
/// // on main, for the update at `i`, when main holds no object for `id`:
/// let object = prepared?.take(at: i, id: id) ?? resolve(id)
/// // back on the child's queue, `prepared` is dropped: what main did not take is freed here
/// ```
final class PreparedObjects: @unchecked Sendable {  // safe: filled on the child's queue before the push is handed to main's, used only on main's queue while main applies it, then dropped by the child once the push returns
    // `@exclusivity(unchecked)`: one queue at a time uses a record (above), and no user code
    // runs inside an access, so the runtime's per-access checks (half of `take`) buy nothing.

    /// Per update of the batch, in its order: what was made from its row (nothing when no row
    /// was read).
    @exclusivity(unchecked) private var entries: [Entry]
    /// How many objects were made.
    let count: Int

    /// What was made for one update; each part is nil once taken.
    struct Entry {
        /// The object made from the row.
        var object: ManagedObject?
        /// The values the update leaves; nil too when it changes no attribute or the row has a
        /// value that did not decode.
        var changedValues: ChangedValues?
    }

    /// An update's values made ahead: `values` is the row's `row` with the `slots` that
    /// differ set.
    struct ChangedValues {
        let row: [PropertyValue]
        let values: [PropertyValue]
        let slots: PropertyMask
    }

    private init(entries: [Entry], count: Int) {
        self.entries = entries
        self.count = count
    }

    /// The objects for `batch`'s updates whose rows `rows` holds, made on `child`'s queue
    /// (its construction record is reused); nil when there is none.
    static func make(for batch: ChangeBatch, rows: PushRows, in child: ObjectContext) -> PreparedObjects? {
        var entries: [Entry] = []
        entries.reserveCapacity(batch.updated.count)
        var count = 0
        for change in batch.updated {
            guard let row = rows.rows[change.id] else {
                entries.append(Entry())
                continue
            }
            let entity = change.id.entity
            let object = child.constructFetched(entity, ObjectCreation(
                objectID: change.id, attributeValues: row.attributes, relationValues: row.relationValues, isFault: false))
            object.rowVersion = row.version
            object.valueErrors = row.errors
            entries.append(Entry(object: object, changedValues: row.errors.isEmpty ? Self.changedValues(of: row.attributes, by: change) : nil))
            count += 1
        }
        return count == 0 ? nil : PreparedObjects(entries: entries, count: count)
    }

    /// `row` with the attributes `change` sets to other values; nil when it sets none.
    private static func changedValues(of row: [PropertyValue], by change: ObjectChange) -> ChangedValues? {
        var values: [PropertyValue]?
        var slots = PropertyMask()
        for slot in change.values.indices where slot < row.count && change.changesAttribute(at: slot) && row[slot] != change.values[slot] {
            if values == nil { values = row }
            values?[slot] = change.values[slot]
            slots.insert(slot)
        }
        return values.map { ChangedValues(row: row, values: $0, slots: slots) }
    }

    /// Sets the values made ahead for the update at `index` on `object`, as its own changes
    /// (``ManagedObject/setAttributeValue(_:at:)`` for each slot would leave the same), when
    /// the object holds exactly the row they were made from and nothing changed it yet.
    /// False otherwise: the caller sets the values one by one. Asked once per update.
    func takeChangedValues(at index: Int, for object: ManagedObject) -> Bool {
        guard index < entries.count, let made = entries[index].changedValues else { return false }
        entries[index].changedValues = nil
        return object.takeChangedValues(made.values, slots: made.slots, madeFrom: made.row)
    }

    /// The object made for the update at `index` of the batch, if it names `id`; it is the
    /// caller's from now on (asked once per update).
    func take(at index: Int, id: ObjectID) -> ManagedObject? {
        guard index < entries.count, let object = entries[index].object, object.objectID == id else { return nil }
        entries[index].object = nil
        return object
    }
}
