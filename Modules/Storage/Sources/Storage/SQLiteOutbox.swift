import FlowKit
import Foundation
import GRDB

/// The outbox in SQLite, so unsent changes survive restarts.
public final class SQLiteOutbox: Outbox {
  private let writer: any DatabaseWriter
  private let entities: [OutboxEntity: SQLiteOutboxEntity]

  /// The outbox of the app's database, with what its schema's features do on a result.
  public convenience init(database: WellflowDatabase) {
    self.init(writer: database.writer, entities: database.schema.outboxEntities)
  }

  /// `writer` holds the `outbox` table; `entities` say what a result does to each kind
  /// of entity (none: only the row changes).
  public init(writer: any DatabaseWriter, entities: [SQLiteOutboxEntity] = []) {
    self.writer = writer
    self.entities = Dictionary(entities.map { ($0.entity, $0) }) { first, _ in first }
  }

  public func enqueue(_ row: OutboxRow) async throws {
    try await writer.writing { db in try OutboxRows.enqueue(row, in: db) }
  }

  public func pending(userID: String, dueAt: Date?, limit: Int) async throws -> [OutboxRow] {
    try await writer.reading { db in
      try Row.fetchAll(
        db.cachedStatement(
          sql: """
            SELECT \(OutboxRows.columns) FROM outbox
            WHERE user_id = ? AND status = 'pending' AND next_attempt_at <= ?
            ORDER BY created_at, rowid LIMIT ?
            """), arguments: [userID, dueAt?.timeIntervalSince1970 ?? Double.infinity, limit]
      ).map(OutboxRows.outboxRow)
    }
  }

  public func markSynced(id: UUID, revision: Int, backendID: String?) async throws {
    try await record([OutboxResult(id: id, outcome: .synced(revision: revision, backendID: backendID))])
  }

  public func markFailed(id: UUID, reason: String) async throws {
    try await record([OutboxResult(id: id, outcome: .failed(reason: reason))])
  }

  public func scheduleRetry(id: UUID, at date: Date, reason: String) async throws {
    try await record([OutboxResult(id: id, outcome: .retry(at: date, reason: reason))])
  }

  /// Every result in one transaction (a batch's), each with its entity's sync state.
  public func record(_ results: [OutboxResult]) async throws {
    guard !results.isEmpty else { return }
    let entities = entities
    try await writer.writing { db in
      for result in results { try OutboxRows.record(result, entities: entities, in: db) }
      // The synced rows' pages go back to the file system (a no-op in files made before
      // incremental vacuum was set; see WellflowDatabase.open).
      try db.execute(sql: "PRAGMA incremental_vacuum")
    }
  }

  public func pendingCount(userID: String) async throws -> Int {
    try await count(userID: userID, status: .pending)
  }

  public func failedCount(userID: String) async throws -> Int {
    try await count(userID: userID, status: .failed)
  }

  private func count(userID: String, status: OutboxStatus) async throws -> Int {
    try await writer.reading { db in
      try Int.fetchOne(
        db.cachedStatement(sql: "SELECT COUNT(*) FROM outbox WHERE user_id = ? AND status = ?"),
        arguments: [userID, status.rawValue])!
    }
  }
}
