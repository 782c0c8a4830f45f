import Foundation
import GRDB
import Synchronization

/// The in-memory databases of runs that keep nothing, reused within a process.
///
/// A fresh SQLite connection costs more than the run that uses it: SQLite parses the
/// whole schema on first use, and every statement is compiled anew (GRDB also tracks
/// which tables each one reads while it compiles). `wellflow run` opens one app per
/// script run, so a folder of scripts or `--users 1000` paid that again and again. A
/// database no one holds any more is emptied back to what a new one holds and handed
/// out again, with its compiled statements.
///
/// Only a database the pool alone still references is reused, so a database an
/// adapter, a task or a test still holds is never handed to another run. Each database
/// notes the tables its statements write (`WrittenTables`); emptying deletes their rows
/// and puts back the rows a new database has in them, so a reused database holds
/// exactly what a new one holds.
final class ScratchDatabases: Sendable {
  /// Databases kept for reuse at most: runs in parallel beyond this get a new one that
  /// is dropped after use. The explorer holds one app per option of a picker while it
  /// compares them (up to about 40 in the app's flows); with 8 kept, `wellflow flows`
  /// made a new database for most replays and took 2.6 times as long.
  static let capacity = 64

  private struct Entry {
    var queue: DatabaseQueue
    let written: WrittenTables
  }

  /// A database kept as made, to copy new ones from (SQLite's backup copies pages,
  /// cheaper than making one), and what it holds, as emptying needs it.
  private struct Template: Sendable {
    let queue: DatabaseQueue
    /// Its tables (what a run can write; SQLite's own tables are not among them).
    let tables: Set<String>
    /// The rows in each table that has any, by table name.
    let seeds: [String: [[DatabaseValue]]]
  }

  private let make: @Sendable () throws -> DatabaseQueue
  private let pool = Mutex<[Entry]>([])
  /// Made when a second database is asked for, so a process that runs one script
  /// makes one database only.
  private let template = Mutex<Template?>(nil)

  /// `make` returns a new database, migrated.
  init(make: @escaping @Sendable () throws -> DatabaseQueue) {
    self.make = make
  }

  /// A database holding what a new one holds: a released one emptied, or a new one.
  func take() throws -> DatabaseQueue {
    // The pool keeps every database it makes until it is full, so an empty pool means
    // none was made yet.
    let (free, none): (Entry?, Bool) = pool.withLock { entries in
      for index in entries.indices where isKnownUniquelyReferenced(&entries[index].queue) {
        return (entries[index], false)
      }
      return (nil, entries.isEmpty)
    }
    if let free {
      try reset(free)
      return free.queue
    }
    let queue: DatabaseQueue
    if none {
      queue = try make()
    } else {
      queue = try DatabaseQueue()
      try madeTemplate().queue.backup(to: queue)
    }
    let written = WrittenTables()
    queue.writeWithoutTransaction { db in db.add(transactionObserver: written, extent: .databaseLifetime) }
    pool.withLock { entries in
      if entries.count < Self.capacity { entries.append(Entry(queue: queue, written: written)) }
    }
    return queue
  }

  private func madeTemplate() throws -> Template {
    try template.withLock { template in
      if let template { return template }
      let queue = try make()
      let made = try queue.read { db in
        let names = try String.fetchAll(
          db,
          sql: """
            SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_stat%'
            ORDER BY rowid
            """)
        var seeds: [String: [[DatabaseValue]]] = [:]
        for name in names {
          let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(name.quotedDatabaseIdentifier)")
          if !rows.isEmpty { seeds[name] = rows.map { Array($0.databaseValues) } }
        }
        return Template(queue: queue, tables: Set(names), seeds: seeds)
      }
      template = made
      return made
    }
  }

  /// Empties the tables the last run wrote and puts back the rows a new database has
  /// in them, in one transaction.
  private func reset(_ entry: Entry) throws {
    let contents = try madeTemplate()
    try entry.queue.write { db in
      let names = entry.written.names.filter(contents.tables.contains).sorted()
      for name in names {
        let quoted = name.quotedDatabaseIdentifier
        try db.cachedStatement(sql: "DELETE FROM \(quoted)").execute()
        guard let rows = contents.seeds[name], let first = rows.first else { continue }
        let marks = Array(repeating: "?", count: first.count).joined(separator: ", ")
        let insert = try db.cachedStatement(sql: "INSERT INTO \(quoted) VALUES (\(marks))")
        for row in rows { try insert.execute(arguments: StatementArguments(row)) }
      }
      // Emptying wrote those tables too: what is noted from here on is the next run's.
      entry.written.names.removeAll(keepingCapacity: true)
    }
  }
}

/// Notes each table a statement of its database inserts into, updates or deletes from
/// (triggers and foreign-key actions included), as SQLite reports them when the
/// statement runs. It asks for no row-by-row events, so writing costs nothing more.
///
/// It is touched only on its database's queue: by GRDB as statements run, and by
/// `ScratchDatabases` inside a write.
private final class WrittenTables: TransactionObserver, @unchecked Sendable {
  var names: Set<String> = []

  func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
    names.insert(eventKind.tableName)
    return false
  }

  func databaseDidChange(with event: DatabaseEvent) {}
  func databaseDidCommit(_ db: Database) {}
  func databaseDidRollback(_ db: Database) {}
}
