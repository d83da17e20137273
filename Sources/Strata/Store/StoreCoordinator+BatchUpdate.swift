import GRDB

extension StoreCoordinator {
    /// Updates every row of the request's entity that matches its predicate, in one write
    /// transaction, and returns what changed: `updated[id]` holds the new values and
    /// `versions[id]` the row's new version. Contexts are not changed: merge the result.
    ///
    /// - Throws: `.invalidRequest` for an unknown entity or key, a to-many or inverse-side
    ///   relationship, a value of the wrong kind, or nothing to update; `.validation` for nil
    ///   given to a required key; `.malformedPredicate` for a predicate naming unknown keys;
    ///   `.objectNotFound` for a to-one target that is not in the store; `.unencodableValue`
    ///   for a value that would not read back the same (an integer out of an `int16` range, a
    ///   NaN date); `.conflict` for a unique collision. Nothing is written then.
    ///
    /// For example:
    /// ```swift
    /// let changes = try coordinator.execute(BatchUpdateRequest(entityName: "Note", predicate: .key("rating") == 0,
    ///                                                          propertiesToUpdate: ["rating": .integer(1)]))
    /// ```
    public func execute(_ request: BatchUpdateRequest) throws(StrataError) -> ChangeSet {
        guard let entity = model.entity(named: request.entityName) else {
            throw StrataError(.invalidRequest, "The model has no entity named \(request.entityName).", entity: request.entityName)
        }
        let plan = try BatchUpdatePlan(entity: entity, model: model, values: request.propertiesToUpdate)
        let predicate = try request.predicate?.compiled(for: entity, in: model)
        do {
            var (changes, commit) = try numberedWrite { db in
                let changes = try plan.run(predicate, db)
                if recordsHistory { try HistoryWriter.record(changes, kind: .batchUpdate, db) }
                return changes
            }
            changes.commits = commit...commit
            fileCommits.lastBatchRequest.max(commit, ordering: .acquiringAndReleasing)
            return changes
        } catch {
            throw Self.storeError(error)
        }
    }
}

/// The checked assignments of a batch update.
private struct BatchUpdatePlan {
    let entity: EntityDescription
    let model: ObjectModel
    /// The keys, sorted, with the values reported in the change set.
    let reported: [String: PropertyValue]
    /// `"column" = ?` for each key, in the order of `arguments`.
    let assignments: [String]
    let arguments: [DatabaseValue]
    /// To-one targets that must exist in the store.
    let targets: [(key: String, id: ObjectID)]

    init(entity: EntityDescription, model: ObjectModel, values: [String: PropertyValue]) throws(StrataError) {
        guard !values.isEmpty else {
            throw StrataError(.invalidRequest, "A batch update of \(entity.name) needs at least one property to update.", entity: entity.name)
        }
        var reported: [String: PropertyValue] = [:]
        var assignments: [String] = []
        var arguments: [DatabaseValue] = []
        var targets: [(key: String, id: ObjectID)] = []
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            let column: Column
            let stored: PropertyValue
            switch entity.propertyIndex[key] {
            case .attribute(let i)? where entity.attributes[i].isDerived:
                throw StrataError(.invalidRequest, "A batch update of \(entity.name) cannot set \(key): it is derived, and the store computes it.", entity: entity.name, key: key)
            case .attribute(let i)?:
                column = .attribute(i)
                stored = try Self.checked(value, for: entity.attributes[i], in: entity)
                if let problem = stored.storageProblem(for: entity.attributes[i].type) {
                    throw StrataError(.unencodableValue, "A batch update of \(entity.name).\(key) cannot store \(value): \(problem).", entity: entity.name, key: key)
                }
            case .relationship(let r)?:
                let relationship = entity.relationships[r]
                guard !relationship.isToMany, case .foreignKey = relationship.storage else {
                    throw StrataError(.invalidRequest, "A batch update of \(entity.name) cannot set \(key): only attributes and to-ones stored in \(entity.name)'s table can be set.",
                                      entity: entity.name, key: key)
                }
                guard relationship.foreignKeyOrderColumn == nil else {
                    throw StrataError(.invalidRequest, "A batch update of \(entity.name) cannot set \(key): its inverse is ordered and positions would be lost.",
                                      entity: entity.name, key: key)
                }
                column = .foreignKey(r)
                switch value {
                case .null:
                    guard relationship.isOptional else {
                        throw StrataError(.validation, "\(entity.name).\(key) is required but the batch update sets it to nil.", entity: entity.name, key: key)
                    }
                case .objectID(let id):
                    guard !id.isTemporary else {
                        throw StrataError(.invalidRequest, "A batch update cannot point \(entity.name).\(key) at unsaved object \(id).", entity: entity.name, key: key, objectID: id)
                    }
                    guard id.entity.isKind(of: model.entities[relationship.destinationIndex]) else {
                        throw StrataError(.invalidRequest, "\(entity.name).\(key) points at \(relationship.destination), not at \(id.entity.name).", entity: entity.name, key: key, objectID: id)
                    }
                    targets.append((key, id))
                default:
                    throw StrataError(.invalidRequest, "\(entity.name).\(key) is a to-one and takes an object ID or nil, not \(value).", entity: entity.name, key: key)
                }
                stored = value
            case nil:
                throw StrataError(.invalidRequest, "\(entity.name) has no property \(key).", entity: entity.name, key: key)
            }
            reported[key] = stored
            assignments.append("\(quoted(StoreSchema.columnName(column, in: entity))) = ?")
            arguments.append(stored.databaseValue)
        }
        self.entity = entity
        self.model = model
        self.reported = reported
        self.assignments = assignments
        self.arguments = arguments
        self.targets = targets
    }

    /// `value` as stored for `attribute`, or a typed error when it cannot be.
    private static func checked(_ value: PropertyValue, for attribute: AttributeDescription, in entity: EntityDescription) throws(StrataError) -> PropertyValue {
        switch (attribute.type, value) {
        case (_, .null):
            if attribute.isOptional { return .null }
            throw StrataError(.validation, "\(entity.name).\(attribute.name) is required but the batch update sets it to nil.", entity: entity.name, key: attribute.name)
        case (.string, .string), (.bool, .bool), (.date, .date), (.data, .data), (.uuid, .uuid), (.url, .url),
             (.decimal, .decimal), (.double, .double), (.int64, .integer), (.transformable, .transformed), (.transformable, .data),
             (.int16, .integer), (.int32, .integer):   // out of range: `.unencodableValue` (its storage problem), as in a save and a batch insert
            return value
        case (.double, .integer(let v)):
            return .double(Double(v))
        default:
            throw StrataError(.invalidRequest, "\(entity.name).\(attribute.name) is of type \(attribute.type.rawValue) and cannot hold \(value).",
                              entity: entity.name, key: attribute.name)
        }
    }

    func run(_ predicate: CompiledPredicate?, _ db: Database) throws -> ChangeSet {
        for (key, id) in targets {
            let exists = try Bool.fetchOne(db, sql: "SELECT 1 FROM \(quoted(id.entity.tableName)) WHERE _id = ?", arguments: [id.key]) ?? false
            guard exists else {
                throw StrataError(.objectNotFound, "A batch update of \(entity.name).\(key) points at \(id), which is not in the store.", entity: entity.name, key: key, objectID: id)
            }
        }
        var predicateArguments: [DatabaseValue] = []
        let restricted = entity.restricting(predicate.map { $0.sql(alias: "t0", arguments: &predicateArguments) }, alias: "t0")
        let matching = "FROM \(quoted(entity.tableName)) t0\(restricted.map { " WHERE " + $0 } ?? "")"
        var versions: [ObjectID: Int64] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT t0._id, t0._version, \(entity.kindExpression(alias: "t0")) \(matching)", arguments: StatementArguments(predicateArguments))
        while let row = try rows.next() {
            guard let key = row[0] as Int64?, let version = row[1] as Int64? else { continue }
            versions[ObjectID(entity: entity.kind(named: row[2], in: model), key: key)] = version + 1
        }
        guard !versions.isEmpty else { return ChangeSet() }

        var sql = "UPDATE \(quoted(entity.tableName)) SET \(assignments.joined(separator: ", ")), _version = _version + 1"
        if restricted != nil { sql += " WHERE _id IN (SELECT t0._id \(matching))" }
        do {
            try db.execute(sql: sql, arguments: StatementArguments(arguments + predicateArguments))
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            let key = reported.keys.sorted().first { error.message?.contains("\(entity.tableName).\($0)") == true }
            throw StrataError(.conflict, "The batch update of \(entity.name) collides with a stored unique value\(key.map { " of \($0)" } ?? ""); nothing was written.",
                              entity: entity.name, key: key, sql: sql, underlying: error)
        }
        guard db.changesCount == versions.count else {
            throw StrataError(.storeFailure, "The batch update of \(entity.name) changed \(db.changesCount) rows, expected \(versions.count).", entity: entity.name, sql: sql)
        }
        var updated: [ObjectID: [String: PropertyValue]] = [:]
        for id in versions.keys { updated[id] = reported }
        var changes = ChangeSet(updated: updated, versions: versions)
        try DerivedRead.drain(model: model, into: &changes, db)
        return changes
    }
}
