import Testing
@testable import Strata

/// What an update's change knows of the to-ones its row stores, with one or several loaded.
@Suite struct StoredToOnesTests {
    static let model: ObjectModel = {
        do { return try ObjectModel(Sample.self) } catch { preconditionFailure("\(error)") }  // programmer error: the test model is valid
    }()

    @Test func oneKnownTargetAndTheUnknownOthers() {
        let id = ObjectID(entity: Self.model.entities[0], key: 7)
        var stored = StoredToOnes()
        #expect(stored[0] == nil)
        stored.set(id, at: 2, of: 4)
        #expect(stored[2] == .some(id))
        #expect(stored[0] == nil && stored[3] == nil)
        stored.set(nil, at: 0, of: 4)   // a second: kept by slot, the first one too
        #expect(stored[0] == .some(nil))
        #expect(stored[2] == .some(id))
        #expect(stored[1] == nil && stored[3] == nil && stored[9] == nil)
        let other = ObjectID(entity: Self.model.entities[0], key: 8)
        stored.set(other, at: 3, of: 4)
        #expect(stored[3] == .some(other) && stored[2] == .some(id) && stored[0] == .some(nil))
    }
}
