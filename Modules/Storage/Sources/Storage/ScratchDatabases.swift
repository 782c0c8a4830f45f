import Foundation
import GRDB
import Synchronization

/// The in-memory databases of runs that keep nothing, reused within a process.
///
/// A fresh SQLite connection costs more than the run that uses it: SQLite parses the
/// whole schema on first use, and every statement is compiled anew (GRDB also tracks
/// which tables each one reads while it compiles). `wellflow run` opens one app per
/// script run, so a folder of scripts or `--users 1000` paid that again and again. A
/// database no one holds any more is emptied back to the migrated template and handed
/// out again, with its compiled statements.
///
/// Only a database the pool alone still references is reused, so a database an
/// adapter, a task or a test still holds is never handed to another run. Emptying
/// deletes every row of every table and puts back the rows the migrations wrote, so a
/// reused database holds exactly what a fresh copy of the template holds.
final class ScratchDatabases: Sendable {
  /// Databases kept for reuse at most: runs in parallel (tests) beyond this get a
  /// fresh copy that is dropped after use.
  static let capacity = 8

  private let template: DatabaseQueue
  /// Each table the template defines, in schema order, with the rows the migrations
  /// put in it (most tables start empty).
  private let tables: [(name: String, rows: [[DatabaseValue]])]
  /// `SELECT (SELECT count(*) FROM a), (SELECT count(*) FROM b), …` over `tables`.
  private let countsSQL: String
  private let pool = Mutex<[DatabaseQueue]>([])

  init(template: DatabaseQueue) throws {
    self.template = template
    tables = try template.read { db in
      let names = try String.fetchAll(
        db,
        sql: """
          SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_stat%'
          ORDER BY rowid
          """)
      return try names.map { name in
        let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(name.quotedDatabaseIdentifier)")
        return (name, rows.map { Array($0.databaseValues) })
      }
    }
    countsSQL =
      "SELECT "
      + tables.map { "(SELECT count(*) FROM \($0.name.quotedDatabaseIdentifier))" }.joined(separator: ", ")
  }

  /// An empty database holding what the template holds: a released one emptied, or a
  /// new copy.
  func take() throws -> DatabaseQueue {
    let free: DatabaseQueue? = pool.withLock { queues in
      for index in queues.indices where isKnownUniquelyReferenced(&queues[index]) {
        return queues[index]
      }
      return nil
    }
    if let free {
      try reset(free)
      return free
    }
    let queue = try DatabaseQueue()
    try template.backup(to: queue)
    pool.withLock { queues in
      if queues.count < Self.capacity { queues.append(queue) }
    }
    return queue
  }

  /// Empties the tables a run wrote and puts back the template's rows where they
  /// changed, in one transaction. One statement counts every table's rows first: most
  /// tables stay empty in a run, and deleting from each of them cost more than the run.
  private func reset(_ queue: DatabaseQueue) throws {
    try queue.write { db in
      let counts = try Row.fetchOne(db.cachedStatement(sql: countsSQL)).map { Array($0.databaseValues) } ?? []
      for (table, count) in zip(tables, counts) {
        let name = table.name.quotedDatabaseIdentifier
        if table.rows.isEmpty {
          guard count != 0.databaseValue else { continue }
        } else {
          let rows = try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM \(name)")).map {
            Array($0.databaseValues)
          }
          guard rows != table.rows else { continue }
        }
        try db.cachedStatement(sql: "DELETE FROM \(name)").execute()
        guard let first = table.rows.first else { continue }
        let marks = Array(repeating: "?", count: first.count).joined(separator: ", ")
        let insert = try db.cachedStatement(sql: "INSERT INTO \(name) VALUES (\(marks))")
        for row in table.rows { try insert.execute(arguments: StatementArguments(row)) }
      }
    }
  }

}
