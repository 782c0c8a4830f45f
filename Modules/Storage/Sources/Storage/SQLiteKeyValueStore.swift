import FlowKit
import GRDB

/// The signed-in user's settings, in the `key_values` table.
public struct SQLiteKeyValueStore: KeyValueStore {
  private let writer: any DatabaseWriter
  public let userID: String

  public init(database: WellflowDatabase, userID: String) {
    self.writer = database.writer
    self.userID = userID
  }

  public func string(forKey key: String) throws -> String? {
    // One statement is consistent by itself: no read transaction (whose BEGIN, COMMIT and
    // query_only pragmas cost more than the lookup); the statement is cached, as flags are
    // read on every launch and by every screen that depends on them.
    try writer.unsafeRead { db in
      try String.fetchOne(
        db.cachedStatement(sql: "SELECT value FROM key_values WHERE user_id = ? AND key = ?"),
        arguments: [userID, key])
    }
  }

  public func set(_ value: String?, forKey key: String) throws {
    // One statement is atomic by itself: no BEGIN and COMMIT around it.
    try writer.writeWithoutTransaction { db in
      if let value {
        try db.cachedStatement(
          sql: """
            INSERT INTO key_values (user_id, key, value) VALUES (?, ?, ?)
            ON CONFLICT(user_id, key) DO UPDATE SET value = excluded.value
            """
        ).execute(arguments: [userID, key, value])
      } else {
        try db.cachedStatement(sql: "DELETE FROM key_values WHERE user_id = ? AND key = ?")
          .execute(arguments: [userID, key])
      }
    }
  }
}
