import Strata

extension FetchedResultsController {
    /// Applies one change set (a save, a merge, or processed pending changes) to the index and
    /// reports it as one batch. Work is O(changes · log n) comparisons: each touched object is
    /// found by binary search with the values it was sorted by, and placed by binary search
    /// with its new values; untouched objects are never read.
    func handle(_ changes: ChangeSet) {
        guard hasFetched else { return }
        let entity = index.evaluator.entity
        func isOurs(_ id: ObjectID) -> Bool { id.entity.isKind(of: entity) }   // a subentity's objects are ours too
        let suppressing = isManuallyReordering

        // Which of our objects the batch touches (by current ID).
        var touched = Set<ObjectID>()
        // A list of every matching object takes in most of a batch: sized once, not grown.
        let takesAll = !showsWindow
        if takesAll { touched.reserveCapacity(changes.inserted.count + changes.updated.count + changes.deleted.count) }
        func rekey(_ temporary: ObjectID, _ permanent: ObjectID) {
            if moveResult(from: temporary, to: permanent) { touched.insert(permanent) }
            if let shown = shownValues.removeValue(forKey: temporary) { shownValues[permanent] = shown }
        }
        // (Nothing held under a temporary ID, as in a list following another context's saves:
        // the batch's new IDs have nothing here to re-key.)
        let holdsTemporaryKeys = members.hasTemporaryKeys || !shownValues.isEmpty
        if holdsTemporaryKeys, members.count + shownValues.count < changes.permanentIDs.count {
            // Fewer results than new IDs (a window following an import): look the results up.
            let temporaries = Set(members.temporaryKeys).union(shownValues.keys.filter(\.isTemporary))
            for temporary in temporaries {
                if let permanent = changes.permanentIDs[temporary], isOurs(permanent) { rekey(temporary, permanent) }
            }
        } else if holdsTemporaryKeys {
            for (temporary, permanent) in changes.permanentIDs where isOurs(permanent) { rekey(temporary, permanent) }
        }
        // A window's results and spares that an ancestor's save made permanent: this context
        // applied the new IDs, but no change set of its own carried them (a child is not told
        // about its parent's saves). Re-keyed here like a save's, rather than by fetching the
        // window. O(window), for windows only.
        if showsWindow {
            for key in members.temporaryKeys {
                guard let member = members[key] else { continue }
                let current = member.object?.objectID ?? key
                if !current.isTemporary { rekey(key, current) }
            }
            rekeySpares(changes.permanentIDs, touched: &touched)
        }
        // A batch that only updates results in keys the request does not read leaves every
        // row where it is: reported without the general path's work below.
        if takesAll, touched.isEmpty, fetchRequest.textSearch == nil,
           reportPlainUpdates(changes, isOurs: isOurs, suppressing: suppressing) { return }
        // A window whose results and spares all have permanent IDs (none can be held under an older ID)
        // passes over the objects outside it that a change cannot bring in: ones updated only
        // in keys the request does not read or sorting after its last result by their new
        // values, new ones that all sort after it (an import appending to the list: two
        // comparisons), and (without an offset) deleted ones. O(1) each, nothing remembered.
        let window = showsWindow && !members.hasTemporaryKeys && !spares.contains { $0.id.isTemporary }
        var boundary = WindowBoundary.unknown
        let insertsStayOut = window && fetchRequest.textSearch == nil && !changes.inserted.isEmpty && insertsStayBelowWindow(changes, boundary: &boundary)
        // A window that more new objects arrive in than it holds fetches itself again (reading
        // them all would cost more), so they need not be listed one by one.
        var arrivals = 0
        if showsWindow, !insertsStayOut {
            for id in changes.inserted where isOurs(id) {
                arrivals += 1
                if arrivals > fetchRequest.fetchLimit { break }   // enough to know
            }
        }
        let refetchesWindow = showsWindow && arrivals > fetchRequest.fetchLimit
        if !refetchesWindow, !insertsStayOut { for id in changes.inserted where isOurs(id) { touched.insert(id) } }
        let readKeys = window ? index.readKeys : []
        var updatedIDs = Set<ObjectID>()
        if takesAll { updatedIDs.reserveCapacity(changes.updated.count) }
        let spareIDs = spares.isEmpty ? [] : Set(spares.map(\.id))   // held like results (a few)
        // A window's held objects (results and spares) that the batch updates, found from the
        // held side: a few lookups, so that an update elsewhere needs no lookup of its own.
        let heldUpdated = window && !changes.updated.isEmpty ? updatedHeldObjects(changes, spareIDs: spareIDs) : []
        // A batch whose updates name no key the window reads (the store's change set says which
        // keys they name: an import's second pass setting each book's author) moves nothing
        // outside the window: only the held objects it updates are looked at, not every update.
        let namesNoReadKey = window && changes.updatesNameNone(of: readKeys)
        let updates = namesNoReadKey ? Self.updates(of: heldUpdated, in: changes) : changes.updated
        var lastUnreadKey: String?   // the key of the last one-key update that no read key names
        for (id, values) in updates where isOurs(id) {
            // No changed key (a value set back to what was saved, or to what it was): nothing
            // shown changed.
            if values.isEmpty { continue }
            if window {
                // An import's second pass changes one key of every object: it is checked once.
                let readsNone: Bool
                if values.count == 1, let key = values.keys.first {
                    readsNone = key == lastUnreadKey || !readKeys.contains(key)
                    if readsNone { lastUnreadKey = key }
                } else {
                    readsNone = values.keys.allSatisfy { !readKeys.contains($0) }
                }
                let held = !heldUpdated.isEmpty && heldUpdated.contains(id)
                if !held {
                    if readsNone { continue }
                    // Moved, but still after the window's last result (a reorder far down the list).
                    if staysBelowWindow(id, changed: values, boundary: &boundary) { continue }
                }
            }
            // Values the controller has already taken in (an echo: a save of changes processed
            // before, or of a manual reorder) change nothing it shows. They are remembered where
            // a later change set may carry them again: this context's own save of them, or of its
            // edits. Not for a store save merged into a result with no unsaved changes here (a
            // follower of an import): nothing here will save those values again, and each would
            // cost a dictionary; such an update needs no look at its values.
            let member = members[id]
            // (A result placed without its object has one only if something made it since.)
            let object = member.flatMap { $0.object ?? context.registeredObject(for: $0.indexedID) }
            let shown = shownValues.isEmpty ? nil : shownValues[id]
            if shown != nil || (member == nil || object?.hasChanges == true) || changes.versions[id] == nil {
                // A result's shown values are what it holds now (a merge keeps unsaved local
                // edits of the merged keys); other objects' are what the change set says.
                let merged = values
                var values = values
                if let object, !object.isFault {
                    // (Copied only when one differs: a merged value is usually the one now held.)
                    for (key, value) in merged {
                        let held = object.primitiveValue(forKey: key)
                        if held != value { values[key] = held }
                    }
                }
                if let shown {
                    if values.allSatisfy({ shown[$0.key] == $0.value }) { continue }
                    shownValues[id]?.merge(values) { $1 }
                } else {
                    shownValues[id] = values
                }
            }
            touched.insert(id)
            updatedIDs.insert(id)
        }
        let deletesOutsideCount = !(window && fetchRequest.fetchOffset == 0)   // with an offset, a row before the window shifts it
        for id in changes.deleted where isOurs(id) && (deletesOutsideCount || members[id] != nil || spareIDs.contains(id)) { touched.insert(id) }
        guard !touched.isEmpty || refetchesWindow else { return }
        // A text search's matches cannot be decided in memory: the results are fetched again
        // (one FTS query) and the difference reported, as for a window.
        if fetchRequest.textSearch != nil {
            handleInWindow(changes, updatedIDs: updatedIDs)
            return
        }
        if showsWindow {
            if refetchesWindow || !applyInWindow(changes, touched: touched, updatedIDs: updatedIDs, heldArePermanent: window) { handleInWindow(changes, updatedIDs: updatedIDs) }
            return
        }
        // One entry per touched object: each step below reads and writes its entry by position.
        // In key order when that is cheap: the order an import inserted its rows in, which the
        // sorts of the placements and of the report then find already made (`KeyOrder`).
        var work: [TouchedResult] = []
        work.reserveCapacity(touched.count)
        for id in KeyOrder.ordered(Array(touched), by: { $0 }) { work.append(TouchedResult(id: id, member: members[id])) }
        let deleted = changes.deleted
        func isDeleted(_ id: ObjectID) -> Bool { !deleted.isEmpty && deleted.contains(id) }

        // New objects of a merged store save are placed by the values the save wrote. Those the
        // context holds no object for get none: it is made when something asks for it (a list
        // shows a few rows of thousands). Those it holds as faults stay faults (below).
        let mergedInserts = changes.inserted.isEmpty ? nil : context.mergedInsertReader(for: changes, evaluator: index.evaluator)
        var unheld = work.indices.filter { work[$0].member == nil && !isDeleted(work[$0].id) }
        if let mergedInserts {
            unheld.removeAll { i in
                guard let (matches, values) = mergedInserts.evaluate(work[i].id) else { return false }
                index.statistics.evaluations += 1
                work[i].fromSave = true
                if matches {
                    index.statistics.sortValueReads += 1
                    work[i].values = values
                }
                return true
            }
        }
        // Other objects not held under their current ID are resolved together: faults grouped
        // so that the first read fetches 500 rows at once, not one per object.
        if !unheld.isEmpty {
            var rekeyed = false
            for (i, object) in zip(unheld, context.objects(with: unheld.map { work[$0].id })) {
                work[i].loaded = object
                // An object already held under an older ID (its new ID told before the mapping
                // reached us, e.g. by another observer's follow-up) is re-keyed, never added twice.
                let id = work[i].id
                if let oldKey = heldKey(of: object), oldKey != id, moveResult(from: oldKey, to: id) {
                    if let shown = shownValues.removeValue(forKey: oldKey) { shownValues[id] = shown }
                    rekeyed = true
                }
            }
            if rekeyed { for i in work.indices { work[i].member = members[work[i].id] } }
        }

        // Old positions, in the state before the batch. A never-read fault among the touched
        // objects may already hold new values, so then every touched object is found by identity.
        let unread = work.contains { $0.member.map { $0.values == nil } ?? false }
        for i in work.indices {
            guard var member = work[i].member else { continue }
            if member.object == nil, let made = context.registeredObject(for: member.indexedID) {
                // A result placed without its object, made since (a row shown): held from now on.
                member.object = made
                work[i].member = member
                members[work[i].id]?.object = made
            }
            work[i].object = member.object
            work[i].oldPath = index.locate(member.object, values: unread ? nil : member.values, id: member.indexedID)
        }

        // New membership and sort values. A result updated only in keys the request does not
        // read (say, a relationship an import sets in a second pass) matches and sorts as it did:
        // its values are taken as they were, without evaluating or reading it.
        let sortAndPredicateKeys = index.readKeys
        for i in work.indices {
            let id = work[i].id
            if isDeleted(id) || work[i].fromSave { continue }
            if !unread, let member = work[i].member, member.indexedID == id, let values = member.values,
               !changes.inserted.contains(id), let changed = changes.updated[id],
               changed.keys.allSatisfy({ !sortAndPredicateKeys.contains($0) }) {
                work[i].values = values
                continue
            }
            let object = work[i].object ?? work[i].loaded ?? context.object(with: id)
            guard !object.isDeleted, object.context === context else { continue }
            index.statistics.evaluations += 1
            if let (matches, values) = mergedInserts?.evaluate(object) {
                guard matches else { continue }
                index.statistics.sortValueReads += 1
                work[i].object = object
                work[i].values = values
                continue
            }
            guard index.evaluator.matches(object) else { continue }
            work[i].object = object
            work[i].values = index.currentValues(of: object)
        }

        // Classify: stay (maybe updated), delete, insert, move.
        var touchedObjects: Set<ObjectIdentifier>?   // made when an ID swap needs it
        var removals: [(path: FetchedIndexPath, at: Int)] = []
        var placements: [Int] = []
        for i in work.indices {
            let id = work[i].id
            switch (work[i].oldPath, work[i].values) {
            case (nil, nil):
                continue
            case (let old?, nil):
                removals.append((old, i))
                work[i].kind = .delete
            case (nil, _?):
                placements.append(i)
                work[i].kind = .insert
            case (let old?, let values?):
                if let member = work[i].member, member.values == values,
                   member.indexedID == id || swapID(at: old, to: id, values: values, avoiding: touchedObjects ?? {
                       let made = Set(work.compactMap { $0.object.map(ObjectIdentifier.init) })
                       touchedObjects = made
                       return made
                   }(), touchedIDs: touched) {
                    if member.indexedID != id {
                        members[id]?.indexedID = id
                        work[i].member?.indexedID = id
                    }
                    if updatedIDs.contains(id) { work[i].kind = .update }
                } else {
                    removals.append((old, i))
                    placements.append(i)
                    work[i].kind = .move
                }
            }
        }

        // Mutate: remove (last first), drop emptied sections, place.
        var sectionChanges: [FetchedSectionChange] = []
        removals.sort { $0.path > $1.path }
        var emptied = Set<Int>()
        for (path, i) in removals {
            let removed = index.sections[path.section].entries.remove(at: path.row)
            if index.isSectioned, index.sections[path.section].entries.isEmpty { emptied.insert(path.section) }
            members[work[i].id] = nil
            setHeldKey(nil, of: removed.object)
            if work[i].object == nil { work[i].object = removed.object }   // made for its row since
        }
        for s in emptied.sorted(by: >) {
            sectionChanges.append(FetchedSectionChange(name: index.sections[s].name, type: .delete, index: s))
            index.sections.remove(at: s)
        }
        var madeSections: [[PropertyValue]] = []
        // Where each placed object went is final when every placement landed after the earlier
        // ones of its section and no section was made (an import appending in order): then the
        // report needs no search for them.
        var placedInOrder = true
        // The row of the last placement in each section, while placements are in order (no
        // section made: the sections stay where they are).
        var lastPlacedRow = [Int](repeating: -1, count: index.sections.count)
        // Placed in sort order (a change set lists its objects in no order): k · log k
        // comparisons, after which rows arriving after the existing ones are each appended with
        // one comparison, and each placement lands after the previous one, so its path is final.
        if placements.count > 1 {
            let (order, comparisons) = index.evaluator.sortedOrder(values: placements.map { work[$0].values ?? [] }, ids: placements.map { work[$0].id })
            index.statistics.comparisons += comparisons
            placements = order.map { placements[$0] }
        }
        for i in placements {
            guard let values = work[i].values, work[i].object != nil || work[i].fromSave else { continue }
            let id = work[i].id, object = work[i].object
            let (path, made) = index.insert(ResultsIndex.Entry(object: object, id: id, values: values), values: values)
            if made { madeSections.append(values); placedInOrder = false }
            if placedInOrder {
                if path.row <= lastPlacedRow[path.section] { placedInOrder = false }
                lastPlacedRow[path.section] = path.row
            }
            work[i].placedPath = path
            members[id] = Member(object: object, indexedID: id, values: values)
            setHeldKey(id, of: object)
        }
        for values in madeSections {
            let s = index.sectionIndex(for: values).index
            sectionChanges.append(FetchedSectionChange(name: index.sections[s].name, type: .insert, index: s))
        }
        sectionChanges.sort { ($0.type == .delete ? 0 : 1, $0.type == .delete ? -$0.index : $0.index) < ($1.type == .delete ? 0 : 1, $1.type == .delete ? -$1.index : $1.index) }

        // Only results need their shown values remembered. A touched result shows its current
        // values, unsaved edits included (say, an object edited while out of the results, then
        // brought back): a later save carrying those edits is an echo too.
        work.withUnsafeBufferPointer { work in   // (read in place: an element is large to copy)
            for i in work.indices {
                // The object that is a result after the batch, if it is one.
                let result = work[i].placedPath != nil ? work[i].object
                    : (work[i].kind == .delete || work[i].kind == .move ? nil : work[i].member?.object)
                if let object = result {
                    // (An object without unsaved changes has none to remember: most merged ones.)
                    if !object.isFault, object.hasChanges { shownValues[work[i].id, default: [:]].merge(object.changedValues()) { $1 } }
                } else if !shownValues.isEmpty {
                    shownValues[work[i].id] = nil
                }
            }
        }

        // Report.
        // An object that stayed keeps its path when nothing was removed or placed.
        let nothingMoved = removals.isEmpty && placements.isEmpty
        var rows: [FetchedRowChange] = []
        var rowObjects: [ManagedObject?] = []   // nil: a result placed from a save, made if the delegate asks
        rows.reserveCapacity(work.count)
        rowObjects.reserveCapacity(work.count)
        for i in work.indices {
            guard let type = work[i].kind else { continue }
            let object = work[i].object
            let id = work[i].id, oldPath = work[i].oldPath
            let newPath: FetchedIndexPath?
            switch type {
            case .delete: newPath = nil
            case .insert where placedInOrder, .move where placedInOrder: newPath = work[i].placedPath
            case .update where nothingMoved: newPath = oldPath
            default: newPath = members[id].flatMap { index.locate(object, values: $0.values, id: $0.indexedID) }
            }
            rows.append(FetchedRowChange(objectID: id, type: type, indexPath: type == .insert ? nil : oldPath, newIndexPath: newPath))
            rowObjects.append(object)
        }
        reportBatch(sections: sectionChanges, rows: rows, objects: rowObjects, suppressing: suppressing)
    }

    /// The updates `changes` makes to the objects `ids` names (a window's few held ones).
    private static func updates(of ids: Set<ObjectID>, in changes: ChangeSet) -> [ObjectID: [String: PropertyValue]] {
        var updates: [ObjectID: [String: PropertyValue]] = [:]
        for id in ids { if let values = changes.updated[id] { updates[id] = values } }
        return updates
    }

    /// The IDs of a window's results and spares that `changes` updates, looked up from the
    /// smaller side (a window holds a few objects; an import's batch updates thousands).
    private func updatedHeldObjects(_ changes: ChangeSet, spareIDs: Set<ObjectID>) -> Set<ObjectID> {
        var held = Set<ObjectID>()
        if members.count + spareIDs.count <= changes.updated.count {
            members.forEach { id, _ in if changes.updated[id] != nil { held.insert(id) } }
            for id in spareIDs where changes.updated[id] != nil { held.insert(id) }
        } else {
            for id in changes.updated.keys where members[id] != nil || spareIDs.contains(id) { held.insert(id) }
        }
        return held
    }

    /// Gives the entry at `path` a new ID (temporary → permanent) in place when its untouched
    /// neighbours still order around it; returns whether it did.
    private func swapID(at path: FetchedIndexPath, to id: ObjectID, values: [PropertyValue], avoiding touched: Set<ObjectIdentifier>,
                        touchedIDs: Set<ObjectID>) -> Bool {
        let section = index.sections[path.section]
        let evaluator = index.evaluator
        if path.row > 0 {
            let previous = section.entries[path.row - 1]
            if Self.isTouched(previous, touched, touchedIDs) { return false }
            index.statistics.comparisons += 1
            if evaluator.compare(index.values(at: path.row - 1, in: section), previous.id, values, id) >= 0 { return false }
        }
        if path.row + 1 < section.entries.count {
            let next = section.entries[path.row + 1]
            if Self.isTouched(next, touched, touchedIDs) { return false }
            index.statistics.comparisons += 1
            if evaluator.compare(values, id, index.values(at: path.row + 1, in: section), next.id) >= 0 { return false }
        }
        section.entries[path.row].id = id
        return true
    }

    /// Whether the batch touches the result `entry`: by identity among the touched objects, or
    /// by ID for a result whose object was never made (held under its own ID).
    private static func isTouched(_ entry: ResultsIndex.Entry, _ touched: Set<ObjectIdentifier>, _ touchedIDs: Set<ObjectID>) -> Bool {
        if let object = entry.object, touched.contains(ObjectIdentifier(object)) { return true }
        return touchedIDs.contains(entry.id)
    }
}
