import Foundation
import GRDB
import GRDBSQLite

extension StoreCoordinator {
    /// Writes the rows of `request` in one transaction and returns their new IDs, in order.
    ///
    /// - Throws: `.invalidRequest` for unknown keys, a value of another kind than its key
    ///   takes (batch update's rule: an `.integer` is accepted for a `double`, `.data` for a
    ///   transformable), an unsaved object's ID or one of another entity than the to-one's
    ///   destination, `.validation` for a nil required attribute or to-one,
    ///   `.unencodableValue` for a value that would not read back the same (an integer out of
    ///   an `int16`/`int32` range, a NaN date, a NaN or over-long decimal), `.objectNotFound`
    ///   for a to-one target that is not in the store, `.conflict` for a unique collision;
    ///   nothing is written then.
    ///
    /// For example:
    /// ```swift
    /// let ids = try coordinator.execute(BatchInsertRequest(entityName: "Tag", objects: [["label": .string("red")]]))
    /// ```
    public func execute(_ request: BatchInsertRequest) throws(StrataError) -> [ObjectID] {
        guard let entity = model.entity(named: request.entityName) else {
            throw StrataError(.invalidRequest, "The model has no entity named \(request.entityName).", entity: request.entityName)
        }
        guard !entity.isAbstract else {
            throw StrataError(.invalidRequest, "\(entity.name) is abstract: insert objects of its subentities instead.", entity: entity.name)
        }
        let plan = try BatchInsertPlan(entity: entity, model: model, keys: request.keys)
        for row in request.rows where row.count != request.keys.count {
            throw StrataError(.invalidRequest, "A batch insert row has \(row.count) values for \(request.keys.count) keys.", entity: entity.name)
        }
        let rows = request.rows
        let write: BatchInsertRequest.RowHandler = request.handler?.write ?? { @Sendable n, values in values = rows[n] }
        do {
            return try self.write { db in
                let ids = try plan.run(count: request.rowCount, write, keys: keys, sql: saveSQL, db)
                // Derived values are in the rows; the insert returns IDs, not values: the log is only emptied.
                if !saveSQL.derivedReads.isEmpty { _ = try DerivedRead.drain(saveSQL.derivedReads, flush: saveSQL.derivedFlush, model: model, db) }
                if recordsHistory { try HistoryWriter.record(ChangeSet(inserted: Set(ids)), kind: .batchInsert, db) }
                return ids
            }
        } catch {
            throw Self.storeError(error)
        }
    }
}
