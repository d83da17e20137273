import Foundation
@testable import Strata

/// One attribute of every type, for the value round-trip and foreign-writer tests.
final class Sample: ManagedObject {
    @Attribute("name", .unique) var name = ""
    @Attribute("small") var small: Int16 = 0
    @Attribute("medium") var medium: Int32 = 0
    @Attribute("large") var large: Int64 = 0
    @Attribute("real") var real: Double = 0
    @Attribute("flag") var flag = false
    @Attribute("amount") var amount: Decimal = 0
    @Attribute("moment") var moment = Date(timeIntervalSince1970: 0)
    @Attribute("identifier") var identifier: UUID? = nil
    @Attribute("link") var link: URL? = nil
    @Attribute("blob") var blob = Data()
    @Attribute("text") var text = ""
    @Attribute("numbers", transformer: .json) var numbers: [Double] = []
}

/// A one-entity model, so tests can write its table with a raw connection.
let sampleModel: ObjectModel = {
    do { return try ObjectModel(Sample.self) }
    catch { preconditionFailure("sample model: \(error)") }  // programmer error: the test model is valid
}()

/// A coordinator on `file` for the sample model, and a private context on it.
func openSamples(_ file: URL) async throws -> (StoreCoordinator, ObjectContext) {
    let coordinator = try await StoreCoordinator(model: sampleModel, store: .sqlite(file))
    return (coordinator, ObjectContext(.privateQueue, coordinator: coordinator))
}
