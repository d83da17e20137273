import Foundation
import GRDBSQLite

/// The floor of an object graph's materialised fetch: the raw read of ``RawSQLiteRead``, plus
/// the least any engine that hands out one object per row must do — make one Swift object per
/// row (its values as stored properties, its title a `String`) and keep it findable by its ID
/// (uniquing, so that the same row gives the same object). Nothing else: no owner, no change
/// tracking, no lifecycle, no value arrays.
///
/// Two forms, so a run shows what each part of an engine's registry costs:
/// - ``Table/hashed``: the objects in a dictionary keyed by (entity, primary key), as a
///   context's registry keeps them;
/// - ``Table/indexedByKey``: the objects in an array indexed by primary key (no hashing).
///
/// For example:
/// ```swift
/// let (seconds, rows) = try ObjectFloorRead.readBooks(at: url, into: .hashed)
/// ```
enum ObjectFloorRead {
    /// Where the objects are kept findable.
    enum Table {
        case hashed
        case indexedByKey
    }

    /// The least object a row can become.
    final class FloorBook {
        let id: FloorID
        let version: Int64
        var title: String
        var published: Double
        var rating: Int64
        var position: Int64
        var author: Int64

        init(id: FloorID, version: Int64, title: String, published: Double, rating: Int64, position: Int64, author: Int64) {
            self.id = id
            self.version = version
            self.title = title
            self.published = published
            self.rating = rating
            self.position = position
            self.author = author
        }
    }

    /// An object's ID as an engine keeps it: its entity's number and its row's key.
    struct FloorID: Hashable {
        let entity: Int
        let key: Int64
    }

    /// Reads every book of the store at `url` into objects kept in `table`; returns the
    /// seconds of the read and of reading every title once (opening the connection and
    /// freeing the objects are not counted) and the objects made.
    static func readBooks(at url: URL, into table: Table) throws -> (seconds: Double, rows: Int) {
        let connection = try RawSQLiteConnection(url)
        let clock = ContinuousClock()
        let start = clock.now
        let objects: [FloorBook]
        switch table {
        case .hashed: objects = try measuredFloorHashed(connection)
        case .indexedByKey: objects = try measuredFloorIndexed(connection)
        }
        return ((clock.now - start).sandboxSeconds, objects.count)
    }

    /// The timed body with a hashed table.
    @inline(never)
    static func measuredFloorHashed(_ connection: RawSQLiteConnection) throws -> [FloorBook] {
        var table: [FloorID: FloorBook] = [:]
        let objects = try readObjects(connection) { object in table[object.id] = object }
        guard table.count == objects.count else { throw SandboxError("floor read kept \(table.count) of \(objects.count) objects") }
        return objects
    }

    /// The timed body with a table indexed by key.
    @inline(never)
    static func measuredFloorIndexed(_ connection: RawSQLiteConnection) throws -> [FloorBook] {
        var table: [FloorBook?] = []
        let objects = try readObjects(connection) { object in
            let slot = Int(object.id.key)
            if slot >= table.count { table += [FloorBook?](repeating: nil, count: max(slot + 1 - table.count, table.count)) }
            table[slot] = object
        }
        return objects
    }

    /// Steps through every book row, making its object and handing it to `keep`.
    @inline(__always)
    private static func readObjects(_ connection: RawSQLiteConnection, keep: (FloorBook) -> Void) throws -> [FloorBook] {
        let columns = SandboxModel.bookColumns.map { "\"\($0)\"" }.joined(separator: ", ")
        let sql = "SELECT \(columns) FROM \"\(SandboxModel.bookTable)\""
        let statement = try connection.prepare(sql)
        defer { sqlite3_finalize(statement) }
        var objects: [FloorBook] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { throw connection.error(sql) }
            let title = sqlite3_column_text(statement, 2).map { text in
                String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, 2))), as: UTF8.self)
            } ?? ""
            let object = FloorBook(id: FloorID(entity: 1, key: sqlite3_column_int64(statement, 0)), version: sqlite3_column_int64(statement, 1),
                                   title: title, published: sqlite3_column_double(statement, 3), rating: sqlite3_column_int64(statement, 4),
                                   position: sqlite3_column_int64(statement, 5), author: sqlite3_column_int64(statement, 6))
            keep(object)
            objects.append(object)
        }
        // Every title read once, as the engine's fetch scenario reads them.
        var characters = 0
        for object in objects { characters &+= object.title.utf8.count }
        guard objects.isEmpty || characters > 0 else { throw SandboxError("floor read made empty titles") }
        return objects
    }
}
