import Foundation
import GRDB
import GRDBSQLite
import Testing
import WellflowComposition

@testable import Storage

/// Adapters read through `reading`, which must not make SQLite compile the connection's
/// cached statements again (GRDB's `read` on a queue does, through `PRAGMA query_only`).
@Suite("Reading without recompiling")
struct ReadingTests {
  static let sql = "SELECT value FROM key_values WHERE user_id = ? AND key = ?"

  /// How often SQLite compiled the cached lookup again, after one use, `between` and a
  /// second use.
  static func recompilations(_ queue: DatabaseQueue, between: () throws -> Void) throws -> Int32 {
    let count = {
      try queue.unsafeRead { db in
        _ = try String.fetchOne(db.cachedStatement(sql: sql), arguments: ["alice", "k"])
        return sqlite3_stmt_status(
          try db.cachedStatement(sql: sql).sqliteStatement, Int32(SQLITE_STMTSTATUS_REPREPARE), 0)
      }
    }
    let before = try count()
    try between()
    return try count() - before
  }

  @Test func readingKeepsCompiledStatements() throws {
    let queue = try #require(
      try WellflowDatabase.inMemory(schema: WellflowFeatures.schema).writer as? DatabaseQueue)
    #expect(try Self.recompilations(queue) { try queue.reading { _ in } } == 0)
    // The reason it exists: GRDB's read recompiles them.
    #expect(try Self.recompilations(queue) { try queue.read { _ in } } == 1)
  }

  @Test func readingIsOneTransactionAndRollsBackOnError() throws {
    let queue = try #require(
      try WellflowDatabase.inMemory(schema: WellflowFeatures.schema).writer as? DatabaseQueue)
    struct Failure: Error {}
    #expect(throws: Failure.self) {
      try queue.reading { db in
        #expect(db.isInsideTransaction)
        throw Failure()
      }
    }
    #expect(try queue.reading { $0.isInsideTransaction })
    #expect(queue.unsafeRead { $0.isInsideTransaction } == false)
  }
}

extension ReadingTests {
  /// A private in-memory database is read and written where the adapter is called: no
  /// hop to the queue's thread and back (two thread wake-ups for microseconds of work).
  @Test func aPrivateInMemoryDatabaseIsUsedWhereItIsAsked() async throws {
    let queue = try DatabaseQueue()
    try await queue.writing { try $0.execute(sql: "CREATE TABLE t (x)") }
    let caller = pthread_self()
    #expect(try await queue.reading { _ in pthread_self() } == caller)
    #expect(try await queue.writing { _ in pthread_self() } == caller)
    #expect(try await queue.writing { db in db.isInsideTransaction })
  }
}
