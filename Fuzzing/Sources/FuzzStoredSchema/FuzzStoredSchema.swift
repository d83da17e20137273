// Fuzzes the reading of the model schema a store records in its metadata table (JSON), which
// a migration reads back to learn the old model: `StoredSchema.decode` and `.model(path:)`.
//
// Input: the JSON text (any bytes, as UTF-8).
// Properties: reading never traps; bad input throws `StrataError` `.corruptStore` only (typed
// throws make any other type impossible; the code is checked); the schema written for a
// model read from one reads back as the same model.
import FuzzSupport
import Foundation
@testable import Strata

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStoredSchema(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let json = String(decoding: FuzzCheck.data(bytes, count), as: UTF8.self)
    let schema: StoredSchema
    do { schema = try StoredSchema.decode(json, path: "fuzz.sqlite") } catch {
        FuzzCheck.expect(error.code == .corruptStore, "decode threw \(error.code), not corruptStore: \(error)")
        return 0
    }
    let model: ObjectModel
    do { model = try schema.model(path: "fuzz.sqlite") } catch {
        FuzzCheck.expect(error.code == .corruptStore, "model(path:) threw \(error.code), not corruptStore: \(error)")
        return 0
    }
    // Read back, the schema of that model gives the same model again: a store that migrated
    // from this schema records one that reads back as it was written (the JSON a store writes
    // is normalised: entities in the model's order, the columns it derives).
    let written = StoredSchema(model)
    do {
        let reread = try StoredSchema.decode(written.json, path: "fuzz.sqlite")
        FuzzCheck.expect(reread == written, "the schema of a read model does not decode as written")
        let again = try reread.model(path: "fuzz.sqlite")
        FuzzCheck.expect(StoredSchema(again) == written, "the schema of a read model reads as another model")
    } catch {
        FuzzCheck.fail("the schema of a read model does not read back: \(error)")
    }
    return 0
}

/// The executable's entry point (see `FuzzDriver`).
@_cdecl("FuzzStoredSchema_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    FuzzDriver.run(argc, argv, fuzzStoredSchema)
}
