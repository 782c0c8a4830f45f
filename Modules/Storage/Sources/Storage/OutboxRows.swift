import FlowKit
import Foundation
import GRDB

/// How outbox rows map to the `outbox` table, for the outbox and for the repositories
/// that enqueue inside their own transactions.
public enum OutboxRows {
  static let columns = """
    id, user_id, entity, entity_id, operation, payload, revision, backend_id, attempts,
    next_attempt_at, status, last_error, created_at
    """

  /// Inserts the row, or folds it into the entity's unsent row (see `OutboxRow.coalescing`).
  public static func enqueue(_ row: OutboxRow, in db: Database) throws {
    let unsent = try Row.fetchOne(
      db.cachedStatement(
        sql: """
          SELECT \(columns) FROM outbox
          WHERE user_id = ? AND entity = ? AND entity_id = ? AND status != 'synced'
          """), arguments: [row.userID, row.entity.rawValue, row.entityID]
    ).map(outboxRow)
    guard let unsent else {
      try insert(row, in: db)
      return
    }
    guard let merged = unsent.coalescing(row) else {
      try db.cachedStatement(sql: "DELETE FROM outbox WHERE id = ?").execute(arguments: [unsent.id.uuidString]
      )
      return
    }
    try db.cachedStatement(
      sql: """
        UPDATE outbox SET operation = ?, payload = ?, revision = ?, backend_id = ?, attempts = ?,
          next_attempt_at = ?, status = ?, last_error = ?
        WHERE id = ?
        """
    ).execute(arguments: [
      merged.operation.rawValue, merged.payload, merged.revision, merged.backendID, merged.attempts,
      merged.nextAttemptAt.timeIntervalSince1970, merged.status.rawValue, merged.lastError,
      merged.id.uuidString,
    ])
  }

  /// Inside a write transaction: what a send's result does to its row and its entity.
  /// A synced row whose change is the latest leaves the outbox (nothing reads it again:
  /// the entity keeps the backend's id, which is what a later change is sent with); one
  /// coalesced with a newer change since stays pending with the backend's id.
  /// `entities` say what a result does to each kind of entity (see `SQLiteOutboxEntity`).
  static func record(
    _ result: OutboxResult, entities: [OutboxEntity: SQLiteOutboxEntity], in db: Database
  ) throws {
    let id = result.id.uuidString
    let entity: Row?
    let syncStatus: OutboxStatus
    var backendID: String?
    switch result.outcome {
    case .synced(let revision, let sentBackendID):
      backendID = sentBackendID
      if let deleted = try Row.fetchOne(
        db.cachedStatement(
          sql: "DELETE FROM outbox WHERE id = ? AND revision = ? RETURNING entity, entity_id, user_id"),
        arguments: [id, revision])
      {
        entity = deleted
        syncStatus = .synced
      } else {
        entity = try Row.fetchOne(
          db.cachedStatement(
            sql: """
              UPDATE outbox SET backend_id = COALESCE(?, backend_id), last_error = NULL WHERE id = ?
              RETURNING entity, entity_id, user_id
              """), arguments: [sentBackendID, id])
        syncStatus = .pending
      }
    case .failed(let reason):
      entity = try Row.fetchOne(
        db.cachedStatement(
          sql: """
            UPDATE outbox SET status = 'failed', last_error = ? WHERE id = ?
            RETURNING entity, entity_id, user_id
            """), arguments: [reason, id])
      syncStatus = .failed
    case .retry(let date, let reason):
      try db.cachedStatement(
        sql: "UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE id = ?"
      ).execute(arguments: [date.timeIntervalSince1970, reason, id])
      return
    }
    guard let entity, let handler = entities[OutboxEntity(rawValue: entity[0])] else { return }
    try handler.record(
      db,
      SQLiteOutboxEntity.Result(
        entityID: entity[1], userID: entity[2], backendID: backendID, status: syncStatus))
  }

  static func insert(_ row: OutboxRow, in db: Database) throws {
    try db.cachedStatement(
      sql: "INSERT INTO outbox (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    ).execute(arguments: [
      row.id.uuidString, row.userID, row.entity.rawValue, row.entityID, row.operation.rawValue,
      row.payload, row.revision, row.backendID, row.attempts, row.nextAttemptAt.timeIntervalSince1970,
      row.status.rawValue, row.lastError, row.createdAt.timeIntervalSince1970,
    ])
  }

  static func outboxRow(_ row: Row) -> OutboxRow {
    OutboxRow(
      id: UUID(uuidString: row[0]) ?? UUID(), userID: row[1], entity: OutboxEntity(rawValue: row[2]),
      entityID: row[3], operation: OutboxOperation(rawValue: row[4]) ?? .update, payload: row[5],
      revision: row[6], backendID: row[7], attempts: row[8],
      nextAttemptAt: Date(timeIntervalSince1970: row[9]), status: OutboxStatus(rawValue: row[10]) ?? .pending,
      lastError: row[11], createdAt: Date(timeIntervalSince1970: row[12]))
  }
}
