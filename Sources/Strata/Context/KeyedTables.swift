/// A row of ``KeyedTable``s by position (``ObjectRegistry`` numbers them by entity and kind
/// of ID), each made when its first value comes, with the number of values in all of them.
///
/// A lookup reads its table without a retain and a release: the tables are also kept as
/// unretained references beside the counted ones that keep them alive. Counting each lookup
/// cost about 1 400 instructions an imported object (docs/performance.md, "A registry found
/// by key"). Not a value to copy: copies share their tables.
///
/// For example (inside the engine):
/// ```swift
/// var notes = KeyedTables<ManagedObject>()
/// notes.set(note, at: 3, key: 42, making: KeyedTable(entity: noteEntity, isTemporary: false))
/// notes.value(at: 3, key: 42) === note   // true
/// ```
struct KeyedTables<Value> {
    /// The tables, counted: they live as long as this row does.
    private var tables: [KeyedTable<Value>?] = []
    /// The same tables, not counted, for lookups.
    private var unretained: [Unmanaged<KeyedTable<Value>>?] = []
    /// How many values all the tables hold.
    private(set) var count = 0

    /// The value under `key` in the table at `index`, if any.
    @inline(__always)
    func value(at index: Int, key: Int64) -> Value? {
        guard index >= 0, index < unretained.count, let table = unretained[index] else { return nil }
        return table._withUnsafeGuaranteedRef { $0[key] }
    }

    /// Puts `value` under `key` in the table at `index` (nil: removes what is there), making
    /// the table with `making` when it has none yet and `value` is not nil.
    mutating func set(_ value: Value?, at index: Int, key: Int64, making: @autoclosure () -> KeyedTable<Value>) {
        guard index >= 0 else { return }
        let table: Unmanaged<KeyedTable<Value>>
        if index < unretained.count, let existing = unretained[index] {
            table = existing
        } else {
            guard value != nil else { return }
            if index >= tables.count {
                tables += [KeyedTable<Value>?](repeating: nil, count: index + 1 - tables.count)
                unretained += [Unmanaged<KeyedTable<Value>>?](repeating: nil, count: index + 1 - unretained.count)
            }
            let made = making()
            tables[index] = made
            table = Unmanaged.passUnretained(made)
            unretained[index] = table
        }
        count += table._withUnsafeGuaranteedRef { table in
            let before = table.count
            _ = table.set(value, at: key)
            return table.count - before
        }
    }

    /// The table at `index`, if it was made.
    func table(at index: Int) -> KeyedTable<Value>? {
        index >= 0 && index < tables.count ? tables[index] : nil
    }

    /// Calls `body` with every table made, in position order.
    func forEachTable(_ body: (KeyedTable<Value>) -> Void) {
        for case let table? in tables { body(table) }
    }

    /// Drops every table and value.
    mutating func removeAll() {
        unretained.removeAll()
        tables.removeAll()
        count = 0
    }
}
