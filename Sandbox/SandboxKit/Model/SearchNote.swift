public import Strata
import StrataRandom

/// The note the `search` scenario searches: a title and a body, both searchable.
///
/// For example:
/// ```swift
/// let model = try ObjectModel(SearchNote.self)
/// ```
public final class SearchNote: ManagedObject {
    /// A few words.
    @Attribute("title", .searchable) public var title = ""
    /// A sentence of about twenty words.
    @Attribute("body", .searchable) public var body = ""
    /// The note's index, 0-based: the list's sort key.
    @Attribute("position") public var position: Int64 = 0
}

/// The `search` scenario's text: notes made of words from a fixed vocabulary of made-up
/// words (two to four syllables), generated from a seed, and the text typed into the field.
///
/// For example:
/// ```swift
/// let text = SearchText(seed: 42)
/// print(text.note(7).body, text.typed)
/// ```
public struct SearchText: Sendable {
    /// The vocabulary.
    public let words: [String]
    let seed: UInt64
    /// What the user types, one character per keystroke: two words of the vocabulary.
    public let typed: String

    /// The text of `seed`.
    public init(seed: UInt64) {
        let syllables = ["ka", "lo", "mi", "ren", "to", "sa", "vel", "qui", "dor", "an", "bre", "fu", "nik", "ors", "pa", "zel"]
        var generator = SplitMix64(seed: seed)
        var words: [String] = []
        var seen = Set<String>()
        while words.count < 4_000 {
            let count = Int.random(in: 2...4, using: &generator)
            let word = (0..<count).map { _ in syllables[Int.random(in: 0..<syllables.count, using: &generator)] }.joined()
            if seen.insert(word).inserted { words.append(word) }
        }
        self.words = words
        self.seed = seed
        self.typed = words[17] + " " + words[42]
    }

    /// Note `index`'s title and body (the same for the same seed).
    public func note(_ index: Int) -> (title: String, body: String) {
        var generator = SplitMix64(seed: seed, skipping: UInt64(index) &* 32)
        func pick() -> String {
            // A skewed pick: a few words are common, most are rare, as in real text.
            let r = Double(generator.next() >> 11) / Double(1 << 53)
            return words[min(words.count - 1, Int(r * r * Double(words.count)))]
        }
        let title = (0..<3).map { _ in pick() }.joined(separator: " ")
        let body = (0..<20).map { _ in pick() }.joined(separator: " ")
        return (title.prefix(1).uppercased() + title.dropFirst(), body + ".")
    }
}
