/// How an ensemble names objects across peers.
///
/// Objects with a meaningful identity of their own (a UUID the app assigns, a user name, an
/// ISBN) should say so: two peers that insert the same one end with one object. Objects
/// without one get a random identifier when first exported, and are distinct on every peer.
///
/// For example:
/// ```swift
/// let ensemble = try await Ensemble(identifier: "MainStore", coordinator: coordinator,
///                                   cloudFileSystem: cloud, globalIdentifiers: .attribute("uniqueIdentifier"))
/// ```
public enum GlobalIdentifiers: Sendable, Hashable {
    /// Entities with an attribute of this name use its value (a string, UUID, integer or
    /// URL; an empty string or nil falls back to a random identifier); others get random ones.
    case attribute(String)
    /// Every object gets a random identifier.
    case random

    var attributeName: String? {
        if case .attribute(let name) = self { return name }
        return nil
    }
}
