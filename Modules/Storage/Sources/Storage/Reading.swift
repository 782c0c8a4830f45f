import GRDB

extension DatabaseWriter {
  /// Reads in one consistent view, for every adapter of the app.
  ///
  /// GRDB's `read` on a `DatabaseQueue` (the in-memory databases of runs that keep
  /// nothing) also turns `PRAGMA query_only` on and off around the read, and SQLite
  /// expires every compiled statement of a connection when such a flag changes: after
  /// each read, every cached statement was compiled again on its next use. A queue reads
  /// in a plain deferred transaction instead. A pool's readers are read-only connections
  /// that never change the flag, so pools keep `read`.
  public func reading<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
    guard let queue = self as? DatabaseQueue else { return try await read(value) }
    if queue.isPrivateInMemory { return try queue.readingHere(value) }
    return try await writeWithoutTransaction { db in try db.inReadTransaction(value) }
  }

  /// The blocking form of `reading(_:)`.
  public func reading<T>(_ value: (Database) throws -> T) throws -> T {
    guard let queue = self as? DatabaseQueue else { return try read(value) }
    return try queue.readingHere(value)
  }

  /// Runs one statement, which SQLite runs atomically and reads consistently by itself,
  /// with no transaction around it: a BEGIN and a COMMIT cost more than the point lookup
  /// or single insert a reminder makes once a day of a hundred simulated years.
  public func oneStatement<T: Sendable>(_ statement: @escaping @Sendable (Database) throws -> T) async throws
    -> T
  {
    if let queue = self as? DatabaseQueue, queue.isPrivateInMemory {
      return try queue.statementHere(statement)
    }
    return try await writeWithoutTransaction(statement)
  }

  /// Writes in one transaction, for every adapter of the app: GRDB's `write`, except
  /// on a private in-memory database (see `isPrivateInMemory`).
  public func writing<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
    if let queue = self as? DatabaseQueue, queue.isPrivateInMemory { return try queue.writingHere(updates) }
    return try await write(updates)
  }
}

extension DatabaseQueue {
  /// A database in this process's memory that no other connection opens: it has no I/O
  /// to wait for, so a statement on it takes microseconds, while going to its queue's
  /// thread and back to the caller's takes two thread wake-ups. Its adapters use it
  /// where they are called.
  fileprivate var isPrivateInMemory: Bool { path == ":memory:" }

  fileprivate func readingHere<T>(_ value: (Database) throws -> T) throws -> T {
    try writeWithoutTransaction { db in try db.inReadTransaction(value) }
  }

  fileprivate func writingHere<T>(_ updates: (Database) throws -> T) throws -> T {
    try write(updates)
  }

  fileprivate func statementHere<T>(_ statement: (Database) throws -> T) throws -> T {
    try writeWithoutTransaction(statement)
  }
}

extension Database {
  /// `value` inside a deferred transaction, committed after it returns and rolled back
  /// when it throws.
  fileprivate func inReadTransaction<T>(_ value: (Database) throws -> T) throws -> T {
    try beginTransaction(.deferred)
    do {
      let result = try value(self)
      try commit()
      return result
    } catch {
      try? rollback()
      throw error
    }
  }
}
