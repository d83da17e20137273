public import Foundation
import Synchronization

/// The identity of a managed object: its entity and its row. `Sendable`, so it is what
/// crosses between contexts and threads (objects never do).
///
/// An object inserted in a context has a *temporary* ID until its first save to the store
/// gives it a permanent one. The URI form (`strata:///Note/p42`, `t` for temporary) can be
/// stored and turned back into an ID with ``StoreCoordinator/objectID(forURI:)``.
///
/// For example:
/// ```swift
/// let id = note.objectID
/// let again = try await other.perform { try other.existingObject(with: id) }
/// ```
public struct ObjectID: Sendable, Hashable, CustomStringConvertible {
    /// The entity of the object.
    public let entity: EntityDescription
    /// The row's primary key when permanent; a process-unique number when temporary.
    let key: Int64
    /// `true` until the object has been saved to the store.
    public let isTemporary: Bool

    init(entity: EntityDescription, key: Int64, isTemporary: Bool = false) {
        self.entity = entity
        self.key = key
        self.isTemporary = isTemporary
    }

    /// The permanent ID of the row `primaryKey` of `entity` (the row need not exist: reading
    /// an object for it then throws `.objectNotFound`).
    ///
    /// For example:
    /// ```swift
    /// let id = ObjectID(entity: noteEntity, primaryKey: 42)
    /// ```
    public init(entity: EntityDescription, primaryKey: Int64) {
        self.init(entity: entity, key: primaryKey)
    }

    /// A new temporary ID for `entity`.
    static func temporary(_ entity: EntityDescription) -> ObjectID {
        ObjectID(entity: entity, key: temporaryCounter.add(1, ordering: .relaxed).newValue, isTemporary: true)
    }

    private static let temporaryCounter = Atomic<Int64>(0)

    /// The primary key of the row (permanent IDs only).
    public var primaryKey: Int64? { isTemporary ? nil : key }

    /// A URI naming this object in whatever store holds it, e.g. `strata:///Note/p42`. For a
    /// URI that names the store too, as Core Data's does, use
    /// `StoreCoordinator.uriRepresentation(for:)`.
    public var uriRepresentation: URL {
        // The entity name is a validated identifier, so the URL is always well formed.
        URL(string: "strata:///\(entity.name)/\(isTemporary ? "t" : "p")\(key)")!  // programmer error if it fails
    }

    public var description: String { "\(entity.name)/\(isTemporary ? "t" : "p")\(key)" }

    public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        lhs.key == rhs.key && lhs.isTemporary == rhs.isTemporary && lhs.entity.index == rhs.entity.index
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(hashWord)
    }

    /// The hash that sets and dictionaries of IDs use: one word mixed by `WordHash`, not a
    /// full `Hasher` round. The registry, change sets and a save's maps hash an ID a dozen
    /// times per object imported, and `Hasher`'s rounds were a tenth of an import.
    public func _rawHashValue(seed: Int) -> Int {
        WordHash.mix(hashWord, seed: seed)
    }

    /// The ID as one word: keys fill the low bits; entity and temporary flag go into the top
    /// ones (the same ID always gives the same word, and equal IDs have equal words).
    private var hashWord: UInt64 {
        let tag = UInt64(truncatingIfNeeded: entity.index &* 2 &+ (isTemporary ? 1 : 0))
        return UInt64(bitPattern: key) ^ (tag &<< 48) ^ (tag &>> 16)
    }
}
