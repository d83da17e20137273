/// Values of one entity's IDs of one kind (permanent or temporary), found by the IDs' keys
/// without hashing each one: keys are grouped in pages of 64 consecutive keys, and the page of
/// the last key used is remembered. Rows are read, and new objects numbered, mostly in key
/// order, so most lookups touch no hash table at all; the rest hash a page number in a table
/// 64 times smaller than one entry per key.
///
/// A page lives while it holds a value (the last page used, until another is): values whose
/// keys are far apart cost at most a page each (about 600 bytes for objects).
///
/// A part of ``ObjectRegistry`` (the objects a context holds, the permanent IDs of temporary
/// ones), confined to its context's queue.
///
/// For example (inside the engine):
/// ```swift
/// let notes = KeyedTable<ManagedObject>(entity: noteEntity, isTemporary: false)
/// _ = notes.set(note, at: 42)
/// notes[42] === note   // true
/// ```
final class KeyedTable<Value> {
    /// The entity of every ID here (IDs name it by its index).
    let entity: EntityDescription
    /// Whether the keys are temporary IDs' numbers rather than primary keys.
    let isTemporary: Bool
    // The state below is marked `@exclusivity(unchecked)`: it is touched only on the owning
    // context's queue, and no user code runs inside an access (as `ManagedObject`'s storage).

    /// How many values are here.
    @exclusivity(unchecked) private(set) var count = 0

    @exclusivity(unchecked) private var pages: [Int64: Page] = [:]
    /// The page of the key used last (not counted: `pages` holds it, and it is cleared when
    /// its page goes, so a lookup reads it without a retain and a release).
    @exclusivity(unchecked) private var recent: Unmanaged<Page>?

    private static var pageShift: Int64 { 6 }
    private static var slotMask: Int64 { (1 << pageShift) - 1 }

    init(entity: EntityDescription, isTemporary: Bool) {
        self.entity = entity
        self.isTemporary = isTemporary
    }

    /// The value under `key`, if any.
    subscript(key: Int64) -> Value? {
        let number = key >> Self.pageShift
        if let recent, recent._withUnsafeGuaranteedRef({ $0.number == number }) {
            return recent._withUnsafeGuaranteedRef { $0.slots[Self.slot(key)] }
        }
        return pages[number]?.slots[Self.slot(key)]
    }

    /// Puts `value` under `key` (nil: removes what is there); returns what was there.
    func set(_ value: Value?, at key: Int64) -> Value? {
        let number = key >> Self.pageShift
        let page: Unmanaged<Page>
        if let recent, recent._withUnsafeGuaranteedRef({ $0.number == number }) {
            page = recent
        } else {
            if let found = pages[number] {
                page = Unmanaged.passUnretained(found)
            } else {
                guard value != nil else { return nil }
                let made = Page(number: number)
                pages[number] = made
                page = Unmanaged.passUnretained(made)
            }
            // The page used before goes once it is empty and another is used: emptied and
            // filled again in turn (an object inserted and saved, its temporary key's page
            // left empty, the next insert's key on it) it stays.
            if let previous = recent?.takeUnretainedValue(), previous.count == 0 { pages[previous.number] = nil }
            recent = page
        }
        let previous = page._withUnsafeGuaranteedRef { page in
            let slot = Self.slot(key)
            let previous = page.slots[slot]
            page.slots[slot] = value
            page.count += (value == nil ? 0 : 1) - (previous == nil ? 0 : 1)
            return previous
        }
        count += (value == nil ? 0 : 1) - (previous == nil ? 0 : 1)
        return previous
    }

    /// How many pages are held (at most one of them empty).
    var pageCount: Int { pages.count }

    /// Every value here, with its key.
    func forEach(_ body: (Int64, Value) -> Void) {
        for page in pages.values {
            let base = page.number << Self.pageShift
            for (slot, value) in page.slots.enumerated() {
                if let value { body(base | Int64(slot), value) }
            }
        }
    }

    @inline(__always)
    private static func slot(_ key: Int64) -> Int { Int(key & slotMask) }

    /// 64 consecutive keys' slots.
    private final class Page {
        let number: Int64
        @exclusivity(unchecked) var count = 0
        @exclusivity(unchecked) var slots = [Value?](repeating: nil, count: 1 << Int(KeyedTable.pageShift))
        init(number: Int64) { self.number = number }
    }
}
