/// How a context's unsaved changes enter a fetch: which objects to test again in memory,
/// how far the stored window must widen, and folding them into the stored results.
extension ObjectContext {
    /// What this context's unsaved changes do to a fetch: the objects of the plan's entity whose
    /// predicate or sort values may differ from what the store (or the parent) holds, and how
    /// far the changes can shift the stored results.
    struct PendingEffect {
        /// Objects to test in memory: inserted or changed ones of the entity, and those that
        /// reach a changed, inserted or deleted object through a relationship the request reads.
        var objects: [ManagedObject] = []
        var ids: Set<ObjectIdentifier> = []
        /// `objects.count` plus the entity's deleted objects: each can leave or enter the
        /// stored window once; 0 when the changes do not touch the fetch.
        var window = 0
    }

    func hasPendingEffect<T>(_ request: FetchRequest<T>, entity: EntityDescription) throws(StrataError) -> Bool {
        guard request.includesPendingChanges, !pending.isEmpty else { return false }
        return pendingEffect(on: try FetchPlan(request, entity: entity, model: model)).window > 0
    }

    /// The unsaved changes that bear on `plan` (see ``PendingEffect``). Besides the entity's own
    /// changed objects, it walks back (through inverse relationships, in memory) from every
    /// unsaved object that sits at the end of a relationship chain the request reads and whose
    /// read property changed, e.g. from a folder renamed in memory to its notes for a
    /// predicate on `folder.name`: SQL still sees the old name for notes that did not change.
    func pendingEffect(on plan: FetchPlan) -> PendingEffect {
        var effect = PendingEffect()
        // A text search reads the store only (see FetchRequest.textSearch).
        guard !pending.isEmpty, plan.search == nil else { return effect }
        let entity = plan.entity
        func add(_ object: ManagedObject) {
            guard object.entity.isKind(of: entity), !object.lifecycle.isDeleted, effect.ids.insert(ObjectIdentifier(object)).inserted else { return }
            effect.objects.append(object)
        }
        // A fetch of an entity returns its subentities' objects too.
        for object in pending.inserted where object.entity.isKind(of: entity) { add(object) }
        for object in pending.updated where object.entity.isKind(of: entity) { add(object) }
        var deletedCount = 0
        for object in pending.deleted where object.entity.isKind(of: entity) { deletedCount += 1 }
        for (chain, slots) in RelatedReads(predicate: plan.predicate, sortKeys: plan.sortKeys).slotsByChain {
            guard let last = chain.last else { continue }
            let end = model.entities[model.entities[last.entity].relationships[last.relationship].destinationIndex]
            var starts: [ManagedObject] = []
            for object in pending.inserted where object.entity.isKind(of: end) { starts.append(object) }
            for object in pending.deleted where object.entity.isKind(of: end) { starts.append(object) }
            for object in pending.updated where object.entity.isKind(of: end)
                && (object.changedProperties.isEmpty || slots.contains(where: object.changedProperties.contains)) {
                starts.append(object)
            }
            for object in walkBack(starts, along: chain) { add(object) }
        }
        effect.window = effect.objects.count + deletedCount
        return effect
    }

    /// The objects that reach any of `starts` through `chain`, following each hop's inverse in
    /// memory from the end of the chain back to its start.
    private func walkBack(_ starts: [ManagedObject], along chain: [RelatedReads.Hop]) -> [ManagedObject] {
        var level = starts
        for hop in chain.reversed() {
            guard !level.isEmpty else { break }
            let inverse = model.entities[hop.entity].relationships[hop.relationship].inverseIndex
            var next: [ManagedObject] = []
            var seen: Set<ObjectIdentifier> = []
            for object in level {
                let sources = object.entity.relationships[inverse].isToMany
                    ? Array(object.toMany(at: inverse)) : (object.toOne(at: inverse).map { [$0] } ?? [])
                for source in sources where seen.insert(ObjectIdentifier(source)).inserted { next.append(source) }
            }
            level = next
        }
        return level
    }

    /// Removes deleted objects, re-checks the affected ones (changed, inserted, or reaching a
    /// change), adds those that match now, re-sorts in memory, applies the window.
    func foldPendingChanges(_ effect: PendingEffect, into fetched: [ManagedObject], plan: FetchPlan) -> [ManagedObject] {
        var result = fetched.filter { !$0.lifecycle.isDeleted && (!effect.ids.contains(ObjectIdentifier($0)) || plan.matches($0)) }
        var present = Set(result.map(ObjectIdentifier.init))
        for object in effect.objects where !present.contains(ObjectIdentifier(object)) && plan.matches(object) {
            result.append(object)
            present.insert(ObjectIdentifier(object))
        }
        result.sort(by: plan.areInIncreasingOrder)
        return plan.window(result)
    }
}
