import Foundation
import GRDB
import MoodTracking

/// The outbox in SQLite, so unsent changes survive restarts.
public final class SQLiteOutbox: Outbox {
  private let writer: any DatabaseWriter

  public init(writer: any DatabaseWriter) {
    self.writer = writer
  }

  public func enqueue(_ row: OutboxRow) async throws {
    try await writer.write { db in try OutboxRows.enqueue(row, in: db) }
  }

  public func pending(userID: String, dueAt: Date?, limit: Int) async throws -> [OutboxRow] {
    try await writer.read { db in
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
    try await writer.write { db in
      guard let row = try Self.row(id, in: db) else { return }
      let sentLatest = row.revision == revision
      try db.cachedStatement(
        sql: "UPDATE outbox SET status = ?, backend_id = ?, last_error = NULL WHERE id = ?"
      ).execute(arguments: [
        sentLatest ? OutboxStatus.synced.rawValue : row.status.rawValue, backendID ?? row.backendID,
        id.uuidString,
      ])
      if row.entity == .mood {
        try db.cachedStatement(
          sql: """
            UPDATE mood_entries SET backend_id = COALESCE(?, backend_id), sync_status = ?
            WHERE id = ? AND user_id = ?
            """
        ).execute(arguments: [
          backendID, (sentLatest ? SyncStatus.synced : .pending).rawValue, row.entityID, row.userID,
        ])
      }
    }
  }

  public func markFailed(id: UUID, reason: String) async throws {
    try await writer.write { db in
      guard let row = try Self.row(id, in: db) else { return }
      try db.cachedStatement(sql: "UPDATE outbox SET status = 'failed', last_error = ? WHERE id = ?").execute(
        arguments: [reason, id.uuidString])
      if row.entity == .mood {
        try db.cachedStatement(
          sql: "UPDATE mood_entries SET sync_status = 'failed' WHERE id = ? AND user_id = ?"
        ).execute(arguments: [row.entityID, row.userID])
      }
    }
  }

  public func scheduleRetry(id: UUID, at date: Date, reason: String) async throws {
    try await writer.write { db in
      try db.cachedStatement(
        sql: """
          UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?, last_error = ?
          WHERE id = ?
          """
      ).execute(arguments: [date.timeIntervalSince1970, reason, id.uuidString])
    }
  }

  public func pendingCount(userID: String) async throws -> Int {
    try await count(userID: userID, status: .pending)
  }

  public func failedCount(userID: String) async throws -> Int {
    try await count(userID: userID, status: .failed)
  }

  private func count(userID: String, status: OutboxStatus) async throws -> Int {
    try await writer.read { db in
      try Int.fetchOne(
        db.cachedStatement(sql: "SELECT COUNT(*) FROM outbox WHERE user_id = ? AND status = ?"),
        arguments: [userID, status.rawValue])!
    }
  }

  private static func row(_ id: UUID, in db: Database) throws -> OutboxRow? {
    try Row.fetchOne(
      db.cachedStatement(sql: "SELECT \(OutboxRows.columns) FROM outbox WHERE id = ?"),
      arguments: [id.uuidString]
    ).map(OutboxRows.outboxRow)
  }
}
