import Foundation

/// The one error type Strata throws.
///
/// A `StrataError` carries an extensible ``Code`` (new codes never break a `switch`
/// written against older ones), a human message, and whatever context applies: the
/// entity, key and object involved, the position in a predicate string, the SQL that
/// failed, and the underlying error.
///
/// For example:
/// ```swift
/// do { try context.save() }
/// catch let error as StrataError where error.code == .validation {
///     print(error.entity ?? "", error.key ?? "", error.message)
/// }
/// ```
public struct StrataError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is. Compare with `==`; the set of codes grows over time.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The model is inconsistent (a missing inverse, an illegal name, a duplicate key).
        public static let invalidModel = Code(rawValue: "invalidModel")
        /// An object failed validation; nothing was saved.
        public static let validation = Code(rawValue: "validation")
        /// A delete was refused by a `.deny` delete rule; nothing was saved.
        public static let deleteDenied = Code(rawValue: "deleteDenied")
        /// The file exists but is not a Strata store (another app's database, or not SQLite).
        public static let notAStore = Code(rawValue: "notAStore")
        /// The file is a damaged SQLite database.
        public static let corruptStore = Code(rawValue: "corruptStore")
        /// The store was written with a different model and was not migrated: automatic
        /// migration is off, the store predates recorded schemas, or it shares no entity with
        /// the model (probably the wrong file).
        public static let modelMismatch = Code(rawValue: "modelMismatch")
        /// The store's model differs in a way a lightweight migration cannot infer (a type
        /// change that loses data, a required attribute added without a default); the entity
        /// and key say where. The file is untouched.
        public static let migrationRequired = Code(rawValue: "migrationRequired")
        /// A lightweight migration was refused by the data (duplicates for a new uniqueness
        /// constraint, nils in an attribute made required) or failed in SQLite. The file is
        /// left as it was.
        public static let migrationFailed = Code(rawValue: "migrationFailed")
        /// The store was migrated by a newer version of the model than this one; Strata never
        /// downgrades a store. The file is untouched.
        public static let storeTooNew = Code(rawValue: "storeTooNew")
        /// A predicate format string could not be parsed, or names an unknown key.
        public static let malformedPredicate = Code(rawValue: "malformedPredicate")
        /// A Swift `#Predicate` or `SortDescriptor` uses an expression, a function or a key path
        /// that has no equivalent in ``ObjectPredicate`` or ``SortKey`` (arithmetic, a computed
        /// property, a ternary…); the message names it. See docs/predicates.md.
        public static let unsupportedPredicate = Code(rawValue: "unsupportedPredicate")
        /// A stored value could not be decoded (e.g. a transformable attribute).
        public static let undecodableValue = Code(rawValue: "undecodableValue")
        /// A value could not be encoded for storage.
        public static let unencodableValue = Code(rawValue: "unencodableValue")
        /// A save would overwrite changes made by someone else since the object was read.
        public static let conflict = Code(rawValue: "conflict")
        /// Another connection or process held the store's write lock for longer than
        /// ``StoreOptions/busyTimeout``; nothing was written and the context keeps its changes.
        public static let storeBusy = Code(rawValue: "storeBusy")
        /// The store's file, or the folder that holds it (where SQLite keeps the `-wal` and
        /// `-shm` files), cannot be written. A file that cannot be written but sits in a
        /// writable folder still opens and reads; its saves fail with this code, and the
        /// context keeps its changes.
        public static let readOnlyStore = Code(rawValue: "readOnlyStore")
        /// The disk (or the store's page limit) is full: nothing was written, and the context
        /// keeps its changes; free space and save again.
        public static let storeFull = Code(rawValue: "storeFull")
        /// The object (or its row) does not exist.
        public static let objectNotFound = Code(rawValue: "objectNotFound")
        /// A fetch request or other argument is not usable (unknown key, wrong entity).
        public static let invalidRequest = Code(rawValue: "invalidRequest")
        /// SQLite reported an error that is none of the above.
        public static let storeFailure = Code(rawValue: "storeFailure")
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong, in words.
    public var message: String
    /// The entity involved, if any.
    public var entity: String?
    /// The attribute or relationship key involved, if any.
    public var key: String?
    /// The object involved, if any.
    public var objectID: ObjectID?
    /// For a malformed predicate: the offset (in characters) where parsing failed.
    public var position: Int?
    /// The SQL statement that failed, if any.
    public var sql: String?
    /// The error that caused this one, if any (for example GRDB's `DatabaseError`).
    public var underlying: (any Error & Sendable)?
    /// Conflicts found by a save, one per object and key (for ``Code/conflict``).
    public var conflicts: [SaveConflict]

    /// Creates an error. Strata creates these; users rarely need to.
    public init(
        _ code: Code, _ message: String, entity: String? = nil, key: String? = nil,
        objectID: ObjectID? = nil, position: Int? = nil, sql: String? = nil,
        underlying: (any Error & Sendable)? = nil, conflicts: [SaveConflict] = []
    ) {
        self.code = code
        self.message = message
        self.entity = entity
        self.key = key
        self.objectID = objectID
        self.position = position
        self.sql = sql
        self.underlying = underlying
        self.conflicts = conflicts
    }

    public var description: String {
        var parts = ["StrataError.\(code): \(message)"]
        if let entity { parts.append("entity: \(entity)") }
        if let key { parts.append("key: \(key)") }
        if let objectID { parts.append("object: \(objectID)") }
        if let position { parts.append("position: \(position)") }
        if let underlying { parts.append("cause: \(underlying)") }
        return parts.joined(separator: "; ")
    }
}

/// One conflicting property found by a save under the `.error` merge policy.
public struct SaveConflict: Sendable, Hashable, CustomStringConvertible {
    /// The object whose row changed underneath the context.
    public var objectID: ObjectID
    /// The conflicting key (`nil` when the row was deleted in the store).
    public var key: String?
    /// The value the context originally read.
    public var originalValue: PropertyValue
    /// The value the context wanted to save.
    public var ourValue: PropertyValue
    /// The value now in the store (`.null` if the row is gone).
    public var storedValue: PropertyValue
    /// For a unique-constraint collision: the stored object that already holds the value
    /// (Core Data's `NSConstraintConflict.databaseObject`); `nil` for a changed row.
    public var conflictingObjectID: ObjectID?

    /// Describes one conflict.
    ///
    /// For example:
    /// ```swift
    /// let conflict = SaveConflict(objectID: id, key: "title", originalValue: .string("a"), ourValue: .string("b"), storedValue: .string("c"))
    /// ```
    public init(objectID: ObjectID, key: String?, originalValue: PropertyValue, ourValue: PropertyValue, storedValue: PropertyValue,
                conflictingObjectID: ObjectID? = nil) {
        self.objectID = objectID
        self.key = key
        self.originalValue = originalValue
        self.ourValue = ourValue
        self.storedValue = storedValue
        self.conflictingObjectID = conflictingObjectID
    }

    public var description: String {
        let holder = conflictingObjectID.map { ", held by \($0)" } ?? ""
        return "\(objectID) \(key ?? "<row>"): original \(originalValue), ours \(ourValue), stored \(storedValue)\(holder)"
    }
}
