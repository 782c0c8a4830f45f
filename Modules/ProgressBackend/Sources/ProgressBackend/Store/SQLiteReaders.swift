import Foundation
import GRDB
import GRDBSQLite
import ProgressContract

/// Read-only SQLite connections to a file, taken by the thread that reads and given back
/// after: `GET /api/v1/progress` reads here, on `serve`'s event loop. GRDB's pool wraps each
/// read in two dispatch-queue hops' worth of bookkeeping (its pool's lock, a key path,
/// `DispatchQueue.sync`) and parses `BEGIN`/`COMMIT` text every time; here each connection
/// keeps its statements prepared, transaction ones included. In WAL mode a read does not
/// wait for the writer, which stays GRDB's.
final class SQLiteReaders: @unchecked Sendable {
  let path: String
  /// Guarded by `lock`: connections no thread is using.
  private var idle: [SQLiteReader] = []
  private let lock = NSLock()

  init(path: String) {
    self.path = path
  }

  deinit {
    for reader in idle { reader.close() }
  }

  /// Runs `body` with a connection of its own (opened if none is idle) in one read
  /// transaction, so every statement in it sees the same rows.
  func read<T>(_ body: (SQLiteReader) throws -> T) throws -> T {
    let reader = try lock.withLock { idle.popLast() } ?? SQLiteReader(path: path)
    do {
      let value = try reader.inTransaction { try body(reader) }
      lock.withLock { idle.append(reader) }
      return value
    } catch {
      // A connection that failed mid-read is not trusted again.
      reader.close()
      throw error
    }
  }

  /// Closes the connections not in use (when the server stops); a later read opens anew.
  func close() {
    let readers = lock.withLock {
      defer { idle = [] }
      return idle
    }
    for reader in readers { reader.close() }
  }
}

/// A failure SQLite reported while reading, with its own words.
struct SQLiteReadFailure: Error, CustomStringConvertible {
  var code: Int32
  var message: String

  var description: String { "SQLite error \(code) while reading: \(message)" }
}

/// One read-only connection and its prepared statements; used by one thread at a time.
final class SQLiteReader {
  private var handle: OpaquePointer?
  /// By SQL text; prepared once, reset after each use.
  private var statements: [String: OpaquePointer] = [:]

  init(path: String) throws {
    var handle: OpaquePointer?
    let code = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
    guard code == SQLITE_OK, let handle else {
      let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open \(path)"
      sqlite3_close_v2(handle)
      throw SQLiteReadFailure(code: code, message: message)
    }
    self.handle = handle
    // As the writer's busy mode: a checkpoint holding a lock is waited for, not a failure.
    sqlite3_busy_timeout(handle, 5_000)
  }

  func close() {
    for statement in statements.values { sqlite3_finalize(statement) }
    statements = [:]
    sqlite3_close_v2(handle)
    handle = nil
  }

  func inTransaction<T>(_ body: () throws -> T) throws -> T {
    try execute("BEGIN")
    do {
      let value = try body()
      try execute("COMMIT")
      return value
    } catch {
      try? execute("ROLLBACK")
      throw error
    }
  }

  /// The statement for `sql` with `arguments` bound (text as GRDB binds it: up to a NUL),
  /// ready to step; reset when `body` returns.
  func withStatement<T>(
    _ sql: String, _ arguments: [SQLiteArgument], _ body: (SQLiteRows) throws -> T
  ) throws -> T {
    let statement = try prepared(sql)
    defer {
      sqlite3_reset(statement)
      sqlite3_clear_bindings(statement)
    }
    for (index, argument) in arguments.enumerated() {
      let position = Int32(index + 1)
      let code =
        switch argument {
        case .text(let text): sqlite3_bind_text(statement, position, text, -1, Self.transient)
        case .integer(let number): sqlite3_bind_int64(statement, position, Int64(number))
        }
      try check(code)
    }
    return try body(SQLiteRows(statement: statement, reader: self))
  }

  /// SQLite copies the text it is given (`SQLITE_TRANSIENT`, a macro Swift does not import).
  private static var transient: sqlite3_destructor_type {
    unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
  }

  private func execute(_ sql: String) throws {
    try withStatement(sql, []) { rows in _ = try rows.next() }
  }

  private func prepared(_ sql: String) throws -> OpaquePointer {
    if let statement = statements[sql] { return statement }
    var statement: OpaquePointer?
    try check(sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil))
    guard let statement else {
      throw SQLiteReadFailure(code: SQLITE_MISUSE, message: "no statement in \(sql)")
    }
    statements[sql] = statement
    return statement
  }

  fileprivate func check(_ code: Int32) throws {
    guard code == SQLITE_OK || code == SQLITE_ROW || code == SQLITE_DONE else {
      throw SQLiteReadFailure(code: code, message: handle.map { String(cString: sqlite3_errmsg($0)) } ?? "")
    }
  }
}

/// A value bound to a statement's `?`.
enum SQLiteArgument {
  case text(String)
  case integer(Int)
}

/// A stepping statement's rows, read in place: a column's text is valid until the next step.
struct SQLiteRows {
  let statement: OpaquePointer
  fileprivate let reader: SQLiteReader

  /// Moves to the next row; false after the last.
  func next() throws -> Bool {
    let code = sqlite3_step(statement)
    try reader.check(code)
    return code == SQLITE_ROW
  }

  func integer(_ column: Int32) -> Int { Int(sqlite3_column_int64(statement, column)) }

  func double(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }

  /// The column's text in place, up to its first NUL as GRDB reads a `String`; nil for NULL
  /// (SQLite gives no text for NULL and an empty one for `''`).
  func text(_ column: Int32) -> ColumnText? {
    guard let text = sqlite3_column_text(statement, column) else { return nil }
    let length = strlen(UnsafeRawPointer(text).assumingMemoryBound(to: CChar.self))
    return ColumnText(bytes: UnsafeBufferPointer(start: text, count: length))
  }
}

/// A column's text as SQLite holds it, written into JSON without making a `String`.
struct ColumnText: JSONStringText {
  static var empty: ColumnText { ColumnText(bytes: UnsafeBufferPointer(start: nil, count: 0)) }

  let bytes: UnsafeBufferPointer<UInt8>

  /// ASCII that needs no escape is copied whole; any other text is written as the
  /// `String` GRDB reads would be (invalid UTF-8 repaired), by the same code.
  func appendJSONString(to out: inout [UInt8]) {
    let plain = bytes.allSatisfy {
      $0 >= 0x20 && $0 < 0x80 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
    }
    guard plain else {
      JSONText.appendString(String(decoding: bytes, as: UTF8.self), to: &out)
      return
    }
    out.append(UInt8(ascii: "\""))
    out.append(contentsOf: bytes)
    out.append(UInt8(ascii: "\""))
  }
}
