// Fuzzes the decoding of stored attribute values, as a store reads them: the bytes go into
// every column of a row of a real SQLite table (in memory) and come back through `RowReader`,
// the reader of every fetch, which turns each column into the attribute's type and decodes
// transformable values with their transformer (JSON and property list here).
//
// Input: the first byte picks how the bytes are stored: as a BLOB, as TEXT (not necessarily
// valid UTF-8), or their first 8 bytes as an INTEGER or a REAL.
// Properties: reading never traps; a value is either one its attribute can hold or nil with a
// `StrataError` `.undecodableValue` naming the entity, the key and the object; a transformable
// value that decodes is re-encoded by its transformer and decodes again.
import FuzzSupport
import Foundation
import GRDB
@testable import Strata

/// A transformable value with the shapes JSON and property lists have: nesting, optionals,
/// arrays, dictionaries, dates, data and numbers.
struct Payload: Codable, Sendable, Equatable {
    var name: String
    var count: Int?
    var ratio: Double
    var tags: [String]
    var nested: [String: [Int]]
    var when: Date?
    var bytes: Data?
}

let entity: EntityDescription = {
    var attributes = AttributeType.allCases.filter { $0 != .transformable }.map { AttributeDescription("a_\($0.rawValue)", type: $0) }
    var json = AttributeDescription("json", type: .transformable, transformerName: .json)
    json.transformer = JSONTransformer<Payload>()
    var plist = AttributeDescription("plist", type: .transformable, transformerName: .propertyList)
    plist.transformer = PropertyListTransformer<Payload>()
    attributes += [json, plist]
    return EntityDescription("Sample", attributes: attributes)
}()

let model: ObjectModel = {
    do { return try ObjectModel(entities: [entity]) } catch { FuzzCheck.fail("the fuzz model does not build: \(error)") }
}()

let resolved = model.entity(named: "Sample")!   // the fuzz model's own entity

let database: DatabaseQueue = {
    do {
        let queue = try DatabaseQueue()
        try queue.write { db in
            for statement in StoreSchema.createStatements(for: model) { try db.execute(sql: statement) }
        }
        return queue
    } catch {
        FuzzCheck.fail("the fuzz database does not open: \(error)")
    }
}()

let columns = resolved.attributes.map { quoted($0.name) }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStoredValue(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzCheck.data(bytes, count)
    guard let selector = data.first else { return 0 }
    let body = Data(data.dropFirst())
    let eight = body.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    let value: String
    let argument: DatabaseValue
    switch selector % 4 {
    case 0: value = "?"; argument = body.databaseValue
    case 1: value = "CAST(? AS TEXT)"; argument = body.databaseValue   // text, valid UTF-8 or not
    case 2: value = "?"; argument = Int64(bitPattern: eight).databaseValue
    default: value = "?"; argument = Double(bitPattern: eight).databaseValue   // NaN becomes NULL in SQLite
    }
    let reader = RowReader(entity: resolved, model: model)
    do {
        try database.write { db in
            try db.execute(sql: "DELETE FROM Sample")
            let assignments = columns.map { "\($0) = \(value)" }.joined(separator: ", ")
            try db.execute(sql: "INSERT INTO Sample (_id, _version) VALUES (1, 1)")
            try db.execute(sql: "UPDATE Sample SET \(assignments)", arguments: StatementArguments(Array(repeating: argument, count: columns.count)))
            let statement = try db.makeStatement(sql: "SELECT \(reader.selectList(alias: "t0")) FROM Sample t0")
            try RawStatement.forEachRow(statement, db) { handle in check(reader.read(handle)) }
        }
    } catch {
        FuzzCheck.fail("SQLite refused the fuzz row: \(error)")
    }
    return 0
}

func check(_ row: RowSnapshot) {
    for (slot, attribute) in resolved.attributes.enumerated() {
        let value = row.attributes[slot]
        if let error = row.errors[slot] {
            FuzzCheck.expect(error.code == .undecodableValue, "\(attribute.name): \(error.code), not undecodableValue: \(error)")
            FuzzCheck.expect(error.entity == "Sample" && error.key == attribute.name && error.objectID != nil, "\(attribute.name): the error does not name the value: \(error)")
            switch value {
            case .null: break
            case .transformed(let t): FuzzCheck.expect(t.value == nil, "\(attribute.name): an error and a decoded value")
            default: FuzzCheck.fail("\(attribute.name): an error and the value \(value)")
            }
            continue
        }
        if case .transformed(let t) = value, let transformer = attribute.transformer {
            guard let decoded = t.value else { FuzzCheck.fail("\(attribute.name): no value and no error") }
            do {
                // Re-encoded and decoded again (not compared: a NaN in a property list is a value).
                _ = try transformer.decode(try transformer.encode(decoded))
            } catch {
                FuzzCheck.fail("\(attribute.name): \(decoded) decoded but does not round-trip: \(error)")
            }
            continue
        }
        FuzzCheck.expect(value.fits(attribute.type), "\(attribute.name) (\(attribute.type)) read \(value) without an error")
    }
}

/// The executable's entry point (see `FuzzDriver`).
@_cdecl("FuzzStoredValue_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    FuzzDriver.run(argc, argv, fuzzStoredValue)
}
