import Foundation
import Strata

/// Reads the store repeatedly for `seconds` while writers save, checking what every snapshot
/// must show whatever the interleaving: tokens are unique, each writer's entries are exactly
/// 1...n, and the shared counters bracket them (read before: ≤ n; read after: ≥ n).
struct ReaderRole {
    let coordinator: StoreCoordinator
    let seconds: Double

    func run() async {
        let context = ObjectContext(.privateQueue, coordinator: coordinator, name: "reader")
        let deadline = Date().addingTimeInterval(seconds)
        var rounds = 0
        do {
            while Date() < deadline {
                if let violation = try await context.perform({ try Self.check(context) }) {
                    fail("violation after \(rounds) rounds: \(violation)", status: 1)
                }
                rounds += 1
            }
        } catch {
            fail("reader: \(error)", status: 2)
        }
        emit("rounds \(rounds)")
    }

    /// One round; returns a description of what is wrong, or nil.
    static func check(_ context: ObjectContext) throws -> String? {
        context.reset()
        let before = try counters(context)
        let entries = try context.fetch(FetchRequest<Entry>())
        context.reset()
        let after = try counters(context)
        if Set(entries.map(\.token)).count != entries.count { return "a token appears twice" }
        for writer in ProbeModel.writerIDs {
            let sequences = entries.filter { $0.writer == writer }.map(\.sequence).sorted()
            if sequences != Array(0..<Int64(sequences.count)).map({ $0 + 1 }) {
                return "writer \(writer)'s entries are not 1...\(sequences.count): \(sequences.prefix(20))"
            }
            let n = Int64(sequences.count)
            if before[writer, default: 0] > n || after[writer, default: 0] < n {
                return "writer \(writer): counter read before \(before[writer, default: 0]), entries \(n), counter read after \(after[writer, default: 0])"
            }
        }
        return nil
    }

    static func counters(_ context: ObjectContext) throws -> [String: Int64] {
        let request = FetchRequest<Tally>(predicate: try ObjectPredicate("name == %@", ProbeModel.sharedName))
        guard let tally = try context.fetch(request).first else { return [:] }
        return ["a": tally.a, "b": tally.b, "c": tally.c, "d": tally.d]
    }
}
