import Foundation
import Testing
@testable import Strata

/// Predicates libFuzzer found (`scripts/fuzz.sh`, target FuzzPredicate): each parsed, but its
/// description did not parse back to the same predicate. The inputs are in the committed
/// corpus, `Fuzzing/Corpus/FuzzPredicate/regression-*`.
@Suite struct PredicateFuzzRegressionTests {
    /// The description of `predicate` parses to a predicate with the same description and tree.
    private func expectRoundTrip(_ predicate: ObjectPredicate, sourceLocation: SourceLocation = #_sourceLocation) {
        let text = predicate.description
        do {
            let again = try ObjectPredicate(format: text, arguments: [])
            #expect(again.description == text, sourceLocation: sourceLocation)
            #expect(again == predicate, "\(text) parses to another predicate", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(text.debugDescription) does not parse: \(error)", sourceLocation: sourceLocation)
        }
    }

    /// `##uid` was the key `#uid` (the lexer and the key-path splitter each removed a `#`),
    /// printed as `#uid`, which parsed as `uid`. A `#` is now only one escape in front of a key.
    @Test func aKeyPathWithMoreThanOneEscapeIsMalformed() throws {
        for format in ["##uid == 1", "#a#b == 1", "a.##b == 1", "a#b == 1", "# == 1"] {
            #expect(throws: StrataError.self, "\(format)") { try ObjectPredicate(format: format, arguments: []) }
            do { _ = try ObjectPredicate(format: format, arguments: []) } catch { #expect(error.code == .malformedPredicate) }
        }
        for (format, keyPath) in [("#in == 1", ["in"]), ("a.#in == 1", ["a", "in"]), ("#a.#b == 1", ["a", "b"]), ("#uid == 1", ["uid"])] {
            let predicate = try ObjectPredicate(format: format, arguments: [])
            guard case .comparison(let c) = predicate.node else { Issue.record("\(format): not a comparison"); continue }
            #expect(c.keyPath == keyPath)
            expectRoundTrip(predicate)
        }
    }

    /// `#5 = 1.25` is the key `5`; it was printed `5 == 1.25`, where `5` is a number.
    @Test func aKeyThatDoesNotStartLikeAKeyIsPrintedEscaped() throws {
        let predicate = try ObjectPredicate(format: "#5= 1.25", arguments: [])
        #expect(predicate.description == "#5 == 1.25")
        expectRoundTrip(predicate)
        expectRoundTrip(try ObjectPredicate(format: "a.#5 == 1", arguments: []))
    }

    /// After a control character such as `\r` a combining mark starts a character of its own;
    /// printed as `\r` + mark, the `r` and the mark were one character and the escape was lost.
    /// A string that starts with a mark made one character of the opening quote and the mark.
    @Test(arguments: ["H\r\u{05BF}", "\u{0301}x", "a\n\u{0301}", "\t\u{20DD}\0\u{0301}", "x\"\u{0301}y", "\\\u{0301}"])
    func stringsWithCombiningMarksAfterEscapesRoundTrip(_ value: String) throws {
        let predicate = try ObjectPredicate("title BEGINSWITH[c] %@", value)
        expectRoundTrip(predicate)
        guard case .comparison(let c) = try ObjectPredicate(format: predicate.description, arguments: []).node,
              case .single(.string(let parsed)) = c.value else { Issue.record("not a string comparison"); return }
        #expect(Array(parsed.unicodeScalars) == Array(value.unicodeScalars))
    }

    /// `dd <8e4084` parsed, the number read as infinity, and printed `dd < <inf>`, which does not
    /// parse. A number literal too large for a double is now malformed, at the number.
    @Test func aNumberLiteralTooLargeForADoubleIsMalformed() throws {
        for (format, position) in [("dd <8e4084", 4), ("a == -1e400", 5), ("a IN {1, 1e309}", 9)] {
            do {
                let predicate = try ObjectPredicate(format: format, arguments: [])
                Issue.record("\(format) parsed as \(predicate)")
            } catch {
                #expect(error.code == .malformedPredicate, "\(format)")
                #expect(error.position == position, "\(format): \(error)")
            }
        }
        expectRoundTrip(try ObjectPredicate(format: "a < 1e308", arguments: []))
        expectRoundTrip(try ObjectPredicate(format: "a > -1.5e-320", arguments: []))
    }

    /// 135 nested `!` parsed, and the SQL overflowed SQLite's parser stack when fetched (much
    /// deeper nesting would overflow the parser's own stack). Nesting is limited to
    /// `PredicateParser.maximumNesting`; the deepest allowed predicates fetch from a real store.
    @Test func nestingPastTheLimitIsMalformedAndTheDeepestAllowedFetches() async throws {
        let limit = PredicateParser.maximumNesting
        let bangs = String(repeating: "!", count: limit) + "name == 'first'"
        // `NOT (` is one level (the description of `!!a` is `NOT (NOT (a))`); so is `(`, and `!`.
        let mixed = String(repeating: "NOT (", count: limit / 2) + String(repeating: "(!", count: limit / 4) + String(repeating: "(", count: limit / 4)
            + "name == 'first'" + String(repeating: ")", count: limit / 2 + limit / 2)
        for format in ["!" + bangs, "(" + mixed + ")", String(repeating: "(", count: 100_000) + "name == 'x'"] {
            do { _ = try ObjectPredicate(format: format, arguments: []); Issue.record("nested \(format.count) characters deep: parsed") }
            catch { #expect(error.code == .malformedPredicate); #expect(error.message.contains("more than \(limit) deep")) }
        }
        // The deepest allowed predicates print as predicates that parse (found by fuzzing
        // too: 25 `!` printed as 25 `NOT (`, which once counted 50 levels).
        for format in [bangs, mixed] { expectRoundTrip(try ObjectPredicate(format: format, arguments: [])) }
        let directory = TemporaryDirectory()
        let coordinator = try await StoreCoordinator(model: try CrashModel.make(version: 1), store: .sqlite(directory.file()))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            for name in ["first", "second"] { try context.insert(entityNamed: "Owner").setValue(name, forKey: "name") }
            try context.save()
            context.reset()
            for format in [bangs, mixed] {   // an even number of NOTs: name == 'first'
                var request = FetchRequest<ManagedObject>(entityName: "Owner")
                request.predicate = try ObjectPredicate(format: format, arguments: [])
                let names = try context.fetch(request).map { $0.value(forKey: "name") as? String }
                #expect(names == ["first"], "\(format)")
            }
        }
        try coordinator.close()
    }

    /// `count IN {{{{…` recursed once per `{` before refusing the nested aggregate, and a few
    /// thousand overflowed the stack: a trap from a user's string. A nested `{` is refused at once.
    @Test func nestedAggregatesAreMalformedWithoutRecursing() {
        for format in ["count IN {{1}}", "count IN {1, {2}}", "count IN " + String(repeating: "{", count: 200_000)] {
            do { _ = try ObjectPredicate(format: format, arguments: []); Issue.record("\(format.prefix(20)) parsed") }
            catch { #expect(error.code == .malformedPredicate); #expect(error.message.contains("not a nested {")) }
        }
    }

    /// The committed regression inputs parse (or are refused) as above: each file is the
    /// fuzz target's input, an argument-list selector byte and the format.
    @Test func theCommittedRegressionInputsRoundTripOrAreMalformed() throws {
        let corpus = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Fuzzing/Corpus/FuzzPredicate")
        let files = try FileManager.default.contentsOfDirectory(atPath: corpus.path).filter { $0.hasPrefix("regression-") }
        #expect(files.count >= 4)
        for file in files {
            let data = try Data(contentsOf: corpus.appending(path: file))
            let format = String(decoding: data.dropFirst(), as: UTF8.self)
            let arguments: [Any?] = format.contains("%@") ? [Date(timeIntervalSince1970: 86_400)] : []
            do { expectRoundTrip(try ObjectPredicate(format: format, arguments: arguments)) } catch { #expect(error.code == .malformedPredicate, "\(file)") }
        }
    }
}
