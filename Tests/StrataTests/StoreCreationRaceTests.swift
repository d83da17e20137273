import Foundation
import Testing
@testable import Strata

/// Several coordinators opening a store file that does not exist yet, at the same moment:
/// one creates the tables, the others wait for it and open what it made (before, a loser died
/// with `.storeFailure`, "table _strata_metadata already exists").
@Suite struct StoreCreationRaceTests {
    @Test func coordinatorsOpeningANewFileAtOnceAllSucceed() async throws {
        for round in 0..<20 {
            let directory = TemporaryDirectory()
            let url = directory.file()
            let identifiers = try await withThrowingTaskGroup(of: UUID.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let coordinator = try await StoreCoordinator(model: testModel, store: .sqlite(url))
                        defer { try? coordinator.close() }
                        return coordinator.storeIdentifier
                    }
                }
                return try await group.reduce(into: [UUID]()) { $0.append($1) }
            }
            // One store: every coordinator read the identifier the winner wrote.
            #expect(Set(identifiers).count == 1, "round \(round): \(identifiers)")
            let coordinator = try await StoreCoordinator(model: testModel, store: .sqlite(url))
            #expect(coordinator.storeIdentifier == identifiers.first)
            try coordinator.close()
        }
    }

    @Test func aLoserWithAnotherModelGetsModelMismatch() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        let other = try ObjectModel(entities: [EntityDescription("Other", attributes: [AttributeDescription("name", type: .string)])])
        // nil: opened; otherwise the error's code, or the whole error when it is not a StrataError.
        let results = await withTaskGroup(of: String?.self) { group in
            for model in [testModel, other, testModel, other] {
                group.addTask {
                    do {
                        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(url))
                        try? coordinator.close()
                        return nil
                    } catch let error as StrataError {
                        return "\(error.code)"
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        // Whichever model won, the others are told the file has another model; nothing else fails.
        #expect(results.filter { $0 == nil }.count >= 1)
        #expect(results.allSatisfy { $0 == nil || $0 == "\(StrataError.Code.modelMismatch)" }, "\(results)")
    }
}
