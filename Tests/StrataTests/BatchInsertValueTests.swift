import Foundation
import GRDB
import Testing
@testable import Strata

/// What a batch insert does with each kind of value: every attribute type is stored so that it
/// reads back as given, and each refused value stops the insert with its typed error and
/// nothing written (the checks and the binds are one pass over a plan made per request).
@Suite struct BatchInsertValueTests {
    /// The keys of `Sample` that the rows below give, in order.
    static let sampleKeys = ["name", "small", "medium", "large", "real", "flag", "amount", "moment", "identifier", "link", "blob", "text", "numbers"]

    /// Row `i` of a sample insert: each type at an edge of what it holds.
    static func sampleRow(_ i: Int) throws -> [PropertyValue] {
        let numbers = [Double(i), 2.5]
        return [
            .string("s\(i)"), .integer(i.isMultiple(of: 2) ? Int64(Int16.min) : Int64(Int16.max)),
            .integer(i.isMultiple(of: 2) ? Int64(Int32.min) : Int64(Int32.max)), .integer(i.isMultiple(of: 2) ? .min : .max),
            .double([-0.0, .nan, 1.5][i % 3]), .bool(i.isMultiple(of: 2)),
            .decimal(Decimal(string: "12345678901234567890.\(i)") ?? 0), .date(Date(timeIntervalSince1970: 1_700_000_000.25 + Double(i))),
            i == 1 ? .null : .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5\(i % 10)") ?? UUID()),
            i == 2 ? .null : .url(URL(string: "https://example.com/\(i)?q=a%20b") ?? URL(fileURLWithPath: "/")),
            .data(Data([0, 1, 0xff, UInt8(i)])), .string("Grüße \(i) ✓"),
            .transformed(TransformedValue(data: try JSONEncoder().encode(numbers), value: numbers)),
        ]
    }

    /// Rows written by a handler and rows given as an array store the same values, and each
    /// reads back as it was given (NaN and `-0.0` doubles, 20-digit decimals, nils, text that
    /// is not ASCII, a transformed value's bytes).
    @Test func everyTypeReadsBackAsGiven() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await openSamples(dir.file())
        let rows = try (0..<6).map(Self.sampleRow)
        let handled = try coordinator.execute(BatchInsertRequest(entityName: "Sample", keys: Self.sampleKeys, count: 3) { i, values in
            values = rows[i]
        })
        let given = try coordinator.execute(BatchInsertRequest(entityName: "Sample", keys: Self.sampleKeys, rows: Array(rows[3...])))
        #expect(handled.count == 3 && given.count == 3)
        let stored = try await context.perform { () throws -> [String: [PropertyValue]] in
            let samples = try context.fetch(FetchRequest<Sample>())
            return Dictionary(uniqueKeysWithValues: samples.map { sample in
                (sample.name, Self.sampleKeys.map { sample.primitiveValue(forKey: $0) })
            })
        }
        #expect(stored.count == 6)
        for (i, row) in rows.enumerated() {
            let read = try #require(stored["s\(i)"])
            for (k, key) in Self.sampleKeys.enumerated() {
                #expect(read[k] == row[k], "row \(i), \(key): read \(read[k]), wrote \(row[k])")
            }
        }
    }

    /// Each refused value stops the insert at the row that holds it, with the typed error a
    /// batch insert has always given it, and nothing is written.
    @Test func refusedValuesKeepTheirTypedErrors() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await openSamples(dir.file())
        // Rows 0, 1 and 3 hold `good`, row 2 `bad`.
        func insert(_ key: String, _ bad: PropertyValue, good: PropertyValue = .integer(1)) -> StrataError? {
            let request = BatchInsertRequest(entityName: "Sample", keys: ["name", key], count: 4) { i, values in
                values = [.string("r\(i)"), i == 2 ? bad : good]
            }
            do { _ = try coordinator.execute(request); return nil } catch { return error }
        }
        let small = insert("small", .integer(40_000))
        #expect(small?.code == .unencodableValue)
        #expect(small?.message == "A batch insert into Sample cannot store 40000: 40000 is out of the range of an int16.")
        #expect(insert("small", .integer(-32_769))?.code == .unencodableValue)
        #expect(insert("medium", .integer(1 << 31))?.message == "A batch insert into Sample cannot store 2147483648: 2147483648 is out of the range of an int32.")
        #expect(insert("medium", .integer(-(1 << 31) - 1))?.code == .unencodableValue)
        let nanDate = insert("moment", .date(Date(timeIntervalSince1970: .nan)), good: .date(Date(timeIntervalSince1970: 0)))
        #expect(nanDate?.code == .unencodableValue)
        // Its message names the value without formatting the date (Foundation traps on a NaN date).
        #expect(nanDate?.message == "A batch insert into Sample cannot store date(nan): a date cannot be NaN.")
        let nanDecimal = insert("amount", .decimal(.nan), good: .decimal(1))
        #expect(nanDecimal?.code == .unencodableValue && nanDecimal?.entity == "Sample")
        #expect(insert("amount", .decimal(Decimal(string: "1234567890123456789012345678901234567890") ?? 0), good: .decimal(1))?.code == .unencodableValue)
        let required = insert("text", .null, good: .string("x"))
        #expect(required?.code == .validation)
        #expect(required?.key == "text")
        #expect(required?.message == "Sample.text is required but row 2 has nil.")
        #expect(insert("large", .objectIDs([]))?.code == .invalidRequest)
        // A value that fits is stored: the same keys, every row good.
        #expect(insert("small", .integer(Int64(Int16.max))) == nil)
        #expect(try await context.perform { try context.count(for: FetchRequest<Sample>()) } == 4)
    }

    /// A batch update refuses a NaN date with a typed error too (its message, like the
    /// insert's, names the value: formatting the date trapped).
    @Test func aNaNDateInABatchUpdateIsATypedError() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await openSamples(dir.file())
        _ = try coordinator.execute(BatchInsertRequest(entityName: "Sample", keys: ["name", "moment"], rows: [[.string("a"), .date(Date(timeIntervalSince1970: 5))]]))
        let result = Result { () throws(StrataError) in
            try coordinator.execute(BatchUpdateRequest(entityName: "Sample", propertiesToUpdate: ["moment": .date(Date(timeIntervalSince1970: .nan))]))
        }
        guard case .failure(let error) = result else { Issue.record("updated"); return }
        #expect(error.code == .unencodableValue && error.key == "moment")
        #expect(error.message.contains("date(nan)"))
        #expect(try await context.perform { try context.fetch(FetchRequest<Sample>()).map(\.moment) } == [Date(timeIntervalSince1970: 5)])
    }

    /// A to-one takes the ID of a saved object; an unsaved object's ID and a to-many value
    /// are `.invalidRequest`, a nil for an optional to-one is stored as nil.
    @Test func toOneValuesAreChecked() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let (saved, unsaved) = try await context.perform { () throws -> (ObjectID, ObjectID) in
            let folder = context.insert(Folder.self)
            try context.save()
            return (folder.objectID, context.insert(Folder.self).objectID)
        }
        #expect(unsaved.isTemporary)
        func insert(_ folder: PropertyValue) -> StrataError? {
            let request = BatchInsertRequest(entityName: "Note", keys: ["title", "folder", "uniqueIdentifier"], count: 3) { i, values in
                values = [.string("t\(i)"), i == 1 ? folder : .objectID(saved), .string("u\(i)-\(folder)")]
            }
            do { _ = try coordinator.execute(request); return nil } catch { return error }
        }
        let temporary = insert(.objectID(unsaved))
        #expect(temporary?.code == .invalidRequest)
        #expect(temporary?.objectID == unsaved)
        #expect(insert(.objectIDs([saved]))?.code == .invalidRequest)
        #expect(try await context.perform { try context.count(for: FetchRequest<Note>()) } == 0)
        #expect(insert(.null) == nil)
        let folders = try await context.perform { try context.fetch(FetchRequest<Note>()).map { $0.folder?.objectID } }
        #expect(folders.count == 3)
        #expect(folders.filter { $0 == saved }.count == 2 && folders.filter { $0 == nil }.count == 1)
    }

    /// A transformed value keeps the decoded value it was made with (or none), and compares
    /// by its bytes alone.
    @Test func transformedValueKeepsItsDecodedValue() {
        let bytes = Data("[1,2]".utf8)
        let decoded = TransformedValue(data: bytes, value: [1.0, 2.0])
        #expect(decoded.value as? [Double] == [1.0, 2.0])
        let bare = TransformedValue(data: bytes, value: nil)
        #expect(bare.value == nil)
        #expect(decoded == bare && decoded.hashValue == bare.hashValue)
        #expect(PropertyValue.transformed(decoded) == .transformed(bare))
        #expect(TransformedValue(data: Data("[3]".utf8), value: [1.0, 2.0]) != decoded)
    }
}
