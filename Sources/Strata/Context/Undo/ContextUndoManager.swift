/// The undo history of one ``ObjectContext`` (Core Data's `undoManager`; named apart from
/// Foundation's `UndoManager`, which records closures rather than object states): groups of
/// changes to undo and redo, before a save. Off by default, as in Core Data: set ``ObjectContext/undoManager`` to turn it on.
///
/// What a group holds: attribute and relationship edits (both sides of a relationship, so an
/// inverse comes back with its edit), inserts and deletes (with what the delete rules did:
/// nullified inverses, cascaded deletes). Changes made outside an explicit group gather in an
/// implicit one, closed by ``ObjectContext/processPendingChanges()`` (Core Data closes one per
/// run-loop turn), by ``beginUndoGrouping()`` and by an undo.
///
/// Not recorded: merges into the context and a child context's save (neither is an edit made
/// here; an undo after them puts back the recorded values as edits). A save, ``ObjectContext/rollback()``
/// and ``ObjectContext/reset()`` clear the history (Core Data keeps it across a save; Strata does not yet).
///
/// Queue-confined, like its context: use it on the context's queue.
///
/// For example:
/// ```swift
/// context.undoManager = ContextUndoManager(levelsOfUndo: 20)
/// context.undoManager?.beginUndoGrouping()
/// note.title = "Draft"
/// context.delete(oldNote)
/// context.undoManager?.endUndoGrouping()
/// context.undo()      // the title and the note are back
/// context.redo()
/// ```
public final class ContextUndoManager {
    /// The most groups kept; the oldest is dropped when one more closes. At least 1.
    public var levelsOfUndo: Int {
        didSet {
            levelsOfUndo = max(1, levelsOfUndo)
            trim()
        }
    }

    /// Groups to undo, oldest first.
    var undoStack: [UndoGroup] = []
    /// Groups to redo, oldest first (the last is redone first).
    var redoStack: [UndoGroup] = []
    /// The group gathering changes now, if any.
    var openGroup: UndoGroup?
    /// Depth of explicit groups (nested groups join the outermost).
    private(set) var explicitDepth = 0
    /// While the context undoes or redoes, or applies a child's save: nothing is recorded.
    var isSuspended = false

    /// Creates an undo manager keeping at most `levelsOfUndo` groups (at least 1).
    ///
    /// ```swift
    /// context.undoManager = ContextUndoManager(levelsOfUndo: 50)
    /// ```
    public init(levelsOfUndo: Int = 64) {
        self.levelsOfUndo = max(1, levelsOfUndo)
    }

    /// Whether there is a change to undo (a closed group, or changes gathering now).
    public var canUndo: Bool { !undoStack.isEmpty || !(openGroup?.isEmpty ?? true) }
    /// Whether there is an undone group to redo.
    public var canRedo: Bool { !redoStack.isEmpty }
    /// The number of groups to undo (an open group with changes counts).
    public var undoCount: Int { undoStack.count + ((openGroup?.isEmpty ?? true) ? 0 : 1) }
    /// Whether an explicit group is open.
    public var isGrouping: Bool { explicitDepth > 0 }

    /// Opens a group: changes until the matching ``endUndoGrouping()`` undo together. Closes
    /// the implicit group first; nested groups join the outermost one.
    ///
    /// ```swift
    /// undoManager.beginUndoGrouping()
    /// note.title = "A"; note.rank = 2
    /// undoManager.endUndoGrouping()
    /// ```
    public func beginUndoGrouping() {
        if explicitDepth == 0 { closeGroup() }
        explicitDepth += 1
    }

    /// Closes the group ``beginUndoGrouping()`` opened (an extra call does nothing).
    ///
    /// ```swift
    /// undoManager.endUndoGrouping()
    /// ```
    public func endUndoGrouping() {
        guard explicitDepth > 0 else { return }
        explicitDepth -= 1
        if explicitDepth == 0 { closeGroup() }
    }

    /// Forgets every group to undo and redo.
    ///
    /// ```swift
    /// undoManager.removeAllActions()
    /// ```
    public func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        openGroup = nil
        explicitDepth = 0
    }

    /// Closes the implicit group (an explicit one stays open).
    func closeImplicitGroup() {
        if explicitDepth == 0 { closeGroup() }
    }

    /// Closes whatever group is open, explicit ones included (before an undo or a redo).
    func closeEveryGroup() {
        explicitDepth = 0
        closeGroup()
    }

    private func closeGroup() {
        guard let group = openGroup else { return }
        openGroup = nil
        guard !group.isEmpty else { return }
        undoStack.append(group)
        trim()
    }

    private func trim() {
        if undoStack.count > levelsOfUndo { undoStack.removeFirst(undoStack.count - levelsOfUndo) }
    }

    /// The step of `object` in the open group (opened, and the redo history dropped, on the
    /// first change), recording the object's presence in the context the first time.
    func step(for object: ManagedObject, presence: UndoGroup.Presence) -> UndoGroup.Step {
        let group: UndoGroup
        if let open = openGroup {
            group = open
        } else {
            group = UndoGroup()
            openGroup = group
            redoStack.removeAll()
        }
        return group.step(for: object, presence: presence)
    }
}
