import Foundation
import PostgresNIO

/// Analytics events in PostgreSQL's `events` table (made by the backend's schema): what
/// `wellflow run --events postgres://…` writes and `wellflow report postgres://…` reads.
public enum PostgresEvents {
  /// Bytes of NDJSON sent in one statement.
  public static let batchBytes = 1 << 20

  /// Connects and makes the events table and its indexes if they are missing; the progress
  /// tables are `serve`'s, made when it first starts on the database.
  public static func prepare(_ location: PostgresLocation) async throws(PostgresFailure) {
    let connection = try await location.connect()
    defer { connection.closeInBackground() }
    do {
      try await PostgresBackendStore.migrateEvents(connection, logger: PostgresLocation.quietLogger)
    } catch {
      throw PostgresFailure(location: location.description, error: error)
    }
  }

  /// Before a report: the events' facts (`EventFacts`), made and filled from the events
  /// on a database written by an older version (once; later reports find them). A
  /// database without an events table is an error naming the table.
  public static func prepareFacts(_ connection: PostgresConnection) async throws {
    try await PostgresBackendStore.migrateEventFacts(connection, logger: PostgresLocation.quietLogger)
  }

  /// Adds the events of the NDJSON file at `path` (one object a line) in batches, all in
  /// one transaction: after a failure the table holds none of them, so running again adds
  /// them once. Returns how many were added.
  @discardableResult
  public static func insert(ndjsonFile path: String, into location: PostgresLocation)
    async throws(PostgresFailure)
    -> Int
  {
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw PostgresFailure(location: location.description, reason: "the events file \(path) cannot be read")
    }
    defer { try? handle.close() }
    let connection = try await location.connect()
    defer { connection.closeInBackground() }
    let logger = PostgresLocation.quietLogger
    do {
      return try await connection.inTransaction(logger: logger) { connection in
        var added = 0
        var pending: [UInt8] = []
        func send(_ lines: ArraySlice<UInt8>) async throws {
          guard !lines.isEmpty else { return }
          let text = String(decoding: lines, as: UTF8.self)
          let rows = try await connection.query(
            """
            INSERT INTO events (data)
            SELECT line::jsonb FROM string_to_table(\(text), E'\\n') AS line WHERE line <> ''
            """, logger: logger)
          for try await _ in rows {}
          added += lines.reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
        }
        while let chunk = try handle.read(upToCount: batchBytes), !chunk.isEmpty {
          pending.append(contentsOf: chunk)
          // Whole lines go; the rest waits for the next chunk.
          if let lastNewline = pending.lastIndex(of: UInt8(ascii: "\n")) {
            try await send(pending[...lastNewline])
            pending.removeSubrange(...lastNewline)
          }
        }
        if !pending.isEmpty {
          pending.append(UInt8(ascii: "\n"))
          try await send(pending[...])
        }
        return added
      }
    } catch {
      throw PostgresFailure(location: location.description, error: error)
    }
  }
}
