import Foundation
import OrderedCollections

/// An object of the graph: a row of an entity, tracked by the context that holds it.
///
/// Subclass it and declare properties with `@Attribute` and `@Relationship`, or use it as
/// is with a dynamic entity and key-based access. A managed object belongs to one context
/// and must only be touched on that context's queue: it is deliberately not `Sendable`.
/// Pass its ``objectID`` between contexts instead.
///
/// For example:
/// ```swift
/// final class Note: ManagedObject {
///     @Attribute("title") var title = ""
///     @Relationship("folder", inverse: "notes") var folder: Folder?
/// }
/// let note = context.insert(Note.self)
/// note.title = "Hello"
/// note["title"]        // "Hello"
/// ```
open class ManagedObject: Hashable, CustomStringConvertible {
    /// The entity this object belongs to (its ID's: one reference to the entity per object,
    /// not two to count).
    public final var entity: EntityDescription { objectID.entity }
    // The identity, the owner and the storage below are marked `@exclusivity(unchecked)`: they
    // are touched only on the owning context's queue (the debug-mode queue trap and
    // ThreadSanitizer check that), and no user code runs inside an access, so the runtime's
    // per-access exclusivity bookkeeping (a thread-local access set, several percent of an
    // insert) buys no safety here.

    /// The object's identity; temporary until the first save.
    @exclusivity(unchecked) public internal(set) var objectID: ObjectID

    /// The owning context (weak: a context owns its objects, not the other way round). Set
    /// through ``setOwner(_:)``, which also records whether the owner checks queue access.
    @exclusivity(unchecked) private(set) weak var storageOwner: (any ObjectOwner)?

    /// Attribute values in entity order; empty while a fault.
    @exclusivity(unchecked) var attributeValues: [PropertyValue]
    /// Relationship states in entity order; empty while a fault.
    @exclusivity(unchecked) var relationValues: [RelationValue]
    /// Lifecycle flags.
    @exclusivity(unchecked) var lifecycle = ObjectState()
    /// The `_version` of the row this object was read from (0 when inserted).
    @exclusivity(unchecked) var rowVersion: Int64 = 0
    /// Attribute values as last saved or fetched, captured at the first change.
    @exclusivity(unchecked) var committedAttributes: [PropertyValue]?
    /// Relationship states as last saved or fetched, captured at each one's first change.
    @exclusivity(unchecked) var committedRelations: [Int: RelationValue] = [:]
    /// Which properties changed since the last save (attributes first, then relationships).
    @exclusivity(unchecked) var changedProperties = PropertyMask()
    /// A value that could not be decoded or encoded (reported by validation; never dropped).
    @exclusivity(unchecked) var valueErrors: [Int: StrataError] = [:]
    /// Objects fetched together fire their faults together.
    @exclusivity(unchecked) var faultBatch: FaultBatch?
    /// The loaded to-manys that hold this object, as hints (see `ObjectContext+Inverses.swift`).
    @exclusivity(unchecked) var heldBy = HeldBy()

    /// Creates an object. Strata calls this; use `context.insert(_:)` to make new objects.
    ///
    /// It runs on a context's queue, but not always on the queue of the context that will
    /// own the object: a large save of a child into a main-queue context makes the objects
    /// main may adopt on the child's queue, and frees there the ones main already held (so
    /// an object can be made and freed without ever joining a context). Keep `init` and
    /// `deinit` to setting up and tearing down stored properties; do queue-bound work in
    /// `awakeFromFetch()` or `awakeFromInsert()`, which run on the owner's queue.
    public required init(_ creation: ObjectCreation) {
        self.objectID = creation.objectID
        self.attributeValues = creation.attributeValues
        self.relationValues = creation.relationValues
        self.lifecycle.isFault = creation.isFault
    }

    /// The entity name used for this class in a model (the class name unless overridden).
    open class var entityName: String { String(describing: self) }

    /// The entity's name in an older model, when it was renamed: opening a store written with
    /// that model renames the table and keeps its rows (see docs/migration.md).
    ///
    /// For example:
    /// ```swift
    /// final class Memo: ManagedObject {
    ///     override class var entityRenamedFrom: String? { "Note" }
    ///     @Attribute("title") var title = ""
    /// }
    /// ```
    open class var entityRenamedFrom: String? { nil }

    /// Whether this class's entity is abstract: it gathers the properties its subclasses'
    /// entities share, a fetch of it returns their objects, and inserting it is a programmer
    /// error (a trap). A class's superentity is the entity of its nearest superclass in the
    /// same model. Subclasses inherit this `true`, and are not abstract for it: only the
    /// topmost class answering `true` is (a class with no subentities never is).
    ///
    /// For example:
    /// ```swift
    /// class Attachment: ManagedObject {
    ///     override class var isAbstractEntity: Bool { true }
    ///     @Attribute("size") var size: Int64 = 0
    /// }
    /// final class Photo: Attachment {
    ///     @Attribute("width") var width: Int64 = 0
    /// }
    /// let model = try ObjectModel(Attachment.self, Photo.self)
    /// ```
    open class var isAbstractEntity: Bool { false }

    // MARK: State

    /// `true` while the object's values have not been read from its row.
    public var isFault: Bool { lifecycle.isFault }
    /// `true` from insertion until the first save.
    public var isInserted: Bool { lifecycle.isInserted }
    /// `true` once deleted (until the delete is saved or rolled back).
    public var isDeleted: Bool { lifecycle.isDeleted }
    /// `true` for a saved object with unsaved changes.
    public var isUpdated: Bool { lifecycle.hasChanges && !lifecycle.isInserted && !lifecycle.isDeleted }
    /// `true` when the object is inserted, deleted or changed.
    public var hasChanges: Bool { lifecycle.hasChanges || lifecycle.isInserted || lifecycle.isDeleted }

    // MARK: Lifecycle hooks

    /// Called once, right after the object is inserted into a context. Set dynamic defaults here.
    open func awakeFromInsert() {}
    /// Called after the object's values are read from the store (fetch or fault).
    open func awakeFromFetch() {}
    /// Called before the object is saved (inserted, updated or deleted); changes made here are saved.
    open func willSave() {}
    /// Called after a save that included this object.
    open func didSave() {}
    /// Called when the object is about to be deleted: by `context.delete(_:)`, before its
    /// delete rules run (its relationships are still set), and for each object a cascade
    /// deletes. Changes made here are part of the delete.
    ///
    /// For example:
    /// ```swift
    /// override func prepareForDeletion() { folder?.noteCount -= 1 }
    /// ```
    open func prepareForDeletion() {}
    /// Called before the context turns the object into a fault (its values are still there):
    /// by `refresh(_:mergeChanges: false)` and `refreshAllObjects()`.
    open func willTurnIntoFault() {}
    /// Called after the object became a fault; clear caches computed from its values here.
    ///
    /// For example:
    /// ```swift
    /// override func didTurnIntoFault() { cachedSummary = nil }
    /// ```
    open func didTurnIntoFault() {}
    /// Throw to refuse one attribute's value; the save fails with your `StrataError`, or with
    /// a `.validation` error naming the key that wraps any other error. A save calls it for
    /// every attribute of an inserted object and each changed attribute of an updated one,
    /// with the stored value (as ``primitiveValue(forKey:)`` gives it), before
    /// ``validateForInsert()`` / ``validateForUpdate()``. Relationships are checked there.
    ///
    /// For example:
    /// ```swift
    /// override func validateValue(_ value: PropertyValue, forKey key: String) throws {
    ///     if key == "title", case .string(let title) = value, title.isEmpty { throw TitleError.empty }
    /// }
    /// ```
    open func validateValue(_ value: PropertyValue, forKey key: String) throws {}
    /// Throw to refuse inserting the object; the save fails with a `.validation` error.
    open func validateForInsert() throws {}
    /// Throw to refuse saving changes to the object; the save fails with a `.validation` error.
    open func validateForUpdate() throws {}
    /// Throw to refuse deleting the object; the save fails with a `.validation` error.
    open func validateForDelete() throws {}

    // MARK: Identity

    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }
    public final func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    /// The hash sets of objects use (to-manys, pending sets): the object's address mixed by
    /// `WordHash`, not a full `Hasher` round.
    public final func _rawHashValue(seed: Int) -> Int {
        WordHash.mix(UInt64(UInt(bitPattern: ObjectIdentifier(self))), seed: seed)
    }

    open var description: String {
        let flags = [isFault ? "fault" : nil, isInserted ? "inserted" : nil, isDeleted ? "deleted" : nil, isUpdated ? "updated" : nil]
        return "<\(entity.name) \(objectID)\(flags.compactMap { $0 }.map { " " + $0 }.joined())>"
    }

    // MARK: Storage access (every read and write funnels through here)

    /// Checks the queue and fires the fault before a read. An object that is no fault, of
    /// an owner that does not check queue access (release builds by default), returns at
    /// once: loading the weak owner (a side-table read, a retain and a release) on every
    /// property access was about 5 % of an import's samples under `perf`.
    @inline(__always)
    final func willAccess() {
        guard lifecycle.isFault || lifecycle.checksAccess else { return }
        checkAccessAndFireFault()
    }

    /// ``willAccess()``'s work when there is some: the owner's queue check, then the fault.
    @inline(never)
    final func checkAccessAndFireFault() {
        guard let storageOwner else { return }
        if lifecycle.checksAccess { storageOwner.checkAccess(self) }
        if lifecycle.isFault { storageOwner.fireFault(self) }
    }

    /// Gives the object to `owner` (nil: to none), noting whether `owner` checks the queue
    /// of every access (``ObjectOwner/checksObjectAccess``).
    final func setOwner(_ owner: (any ObjectOwner)?) {
        storageOwner = owner
        lifecycle.checksAccess = owner?.checksObjectAccess ?? false
    }

    /// The stored value of the attribute at `index`.
    @usableFromInline final func attributeValue(at index: Int) -> PropertyValue {
        willAccess()
        guard index < attributeValues.count else { return storageOwner?.valueOfMissingAttribute(self, at: index) ?? .null }
        return attributeValues[index]
    }

    /// Stores `value` for the attribute at `index`, tracking the change.
    @usableFromInline final func setAttributeValue(_ value: PropertyValue, at index: Int) {
        willAccess()
        guard index < attributeValues.count, attributeValues[index] != value else { return }
        if lifecycle.recordsUndo { storageOwner?.willChangeForUndo(self, property: index) }
        willChange()
        attributeValues[index] = value
        if !valueErrors.isEmpty { valueErrors[index] = nil }
        changedProperties.insert(index)
    }

    /// Takes `values`, made elsewhere from `row` with the attributes in `slots` changed, as
    /// ``setAttributeValue(_:at:)`` for each of those slots would leave them: one move
    /// instead of a copy of the values and a comparison per slot. Only while the object
    /// holds `row` itself (the same storage) and has no changes; false otherwise, and nothing
    /// is done. Undo is not recorded (a child's push, the one caller, is not an edit here).
    final func takeChangedValues(_ values: [PropertyValue], slots: PropertyMask, madeFrom row: [PropertyValue]) -> Bool {
        // (The same storage as `row`: the same count as `values`, which were made from it.)
        guard !lifecycle.hasChanges, !lifecycle.isFault, valueErrors.isEmpty,
              attributeValues.withUnsafeBufferPointer({ held in row.withUnsafeBufferPointer { held.baseAddress == $0.baseAddress } })
        else { return false }
        willChange()
        attributeValues = values
        changedProperties.formUnion(slots)
        return true
    }

    /// Encodes `value` through the attribute's conversion (transformable and other non-plain
    /// types); an encoding failure is kept for validation to report. The attribute keeps its
    /// previous value, but the object counts as changed, so that the next save reports the
    /// failure instead of silently saving nothing.
    @usableFromInline final func setEncodedAttribute<V>(_ value: V, at slot: Int, fallback: (any AttributeConversion.Type)?) {
        guard let conversion = entity.attributeConversions[slot] ?? fallback else { return }
        do {
            setAttributeValue(try conversion.encode(value, transformer: entity.attributeTransformers[slot]), at: slot)
        } catch {
            willAccess()
            willChange()
            changedProperties.insert(slot)
            var error = error
            error.entity = entity.name
            error.key = entity.attributes[slot].name
            error.objectID = objectID
            valueErrors[slot] = error
        }
    }

    /// Cuts the object loose from its context: no owner, no relationship storage. To-one and
    /// to-many references hold objects strongly in both directions, so this is what lets a
    /// graph be freed when its context resets or goes away.
    final func detachFromContext() {
        setOwner(nil)
        relationValues = []
        committedRelations = [:]
        faultBatch = nil
        heldBy.removeAll()
    }

    /// Records that the object is about to change (captures committed values the first time).
    final func willChange() {
        // A save in flight is applied before any change to its objects or a first change to another.
        if lifecycle.isSaving || !lifecycle.hasChanges { storageOwner?.settleSave() }
        if !lifecycle.hasChanges {
            if !lifecycle.isInserted { committedAttributes = attributeValues }
            lifecycle.hasChanges = true
            storageOwner?.objectWillChange(self)
        }
    }

    /// The position of attribute `key`, or -1.
    @usableFromInline final func attributeSlot(forKey key: String) -> Int {
        if case .attribute(let i) = entity.propertyIndex[key] { return i }
        return -1
    }

    /// The position of relationship `key`, or -1.
    @usableFromInline final func relationshipSlot(forKey key: String) -> Int {
        if case .relationship(let i) = entity.propertyIndex[key] { return i }
        return -1
    }
}

/// The token passed to ``ManagedObject/init(_:)``; only Strata can make one.
public struct ObjectCreation {
    /// The new object's ID; its entity is the object's.
    let objectID: ObjectID
    let attributeValues: [PropertyValue]
    let relationValues: [RelationValue]
    let isFault: Bool
}

/// An object's lifecycle flags.
struct ObjectState {
    var isFault = false
    var isInserted = false
    var isDeleted = false
    var hasChanges = false
    /// Inside `prepareForDeletion()`: a delete of the object from its own hook is ignored.
    var isPreparingDeletion = false
    /// Its context has an undo manager: each change tells the context first (one flag test
    /// when undo is off).
    var recordsUndo = false
    /// Its owner traps on access off its queue (``ObjectOwner/checksObjectAccess``): each
    /// access asks the owner first.
    var checksAccess = false
    /// Part of a save whose SQLite work runs off the owner's queue
    /// (``ObjectContext/saveInBackground()``): a change waits for that save and settles it first.
    var isSaving = false
}

/// A group of objects fetched together: when one fires its fault, all of them are read.
/// It names its members by ID, so it never keeps an object alive.
final class FaultBatch {
    let members: [ObjectID]
    init(members: [ObjectID]) { self.members = members }
}
