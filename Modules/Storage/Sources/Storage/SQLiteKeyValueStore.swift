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
    try writer.read { db in
      try String.fetchOne(
        db, sql: "SELECT value FROM key_values WHERE user_id = ? AND key = ?", arguments: [userID, key])
    }
  }

  public func set(_ value: String?, forKey key: String) throws {
    try writer.write { db in
      if let value {
        try db.execute(
          sql: """
            INSERT INTO key_values (user_id, key, value) VALUES (?, ?, ?)
            ON CONFLICT(user_id, key) DO UPDATE SET value = excluded.value
            """, arguments: [userID, key, value])
      } else {
        try db.execute(sql: "DELETE FROM key_values WHERE user_id = ? AND key = ?", arguments: [userID, key])
      }
    }
  }
}
