public import Strata

/// The Sandbox's object model: ``Author`` ⟷ ``Book``.
///
/// For example:
/// ```swift
/// let model = try SandboxModel.make()
/// ```
public enum SandboxModel {
    /// Builds the model (validated by the engine).
    public static func make() throws -> ObjectModel {
        try ObjectModel(Book.self, Author.self)
    }

    /// The SQL table of ``Book`` as the engine lays it out; the baselines insert into it.
    static let bookTable = "Book"
    /// The columns the baselines write, in order.
    static let bookColumns = ["_id", "_version", "title", "published", "rating", "position", "author"]
}
