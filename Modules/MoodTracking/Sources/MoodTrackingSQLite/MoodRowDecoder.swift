import FlowKit
import Foundation
import GRDB
import GRDBSQLite
import MoodTrackingDomain
import Storage

/// Turns the current row of a statement selecting `MoodRows.columns` of one user's rows
/// into a `MoodEntry`, reading SQLite's column buffers in place: ids, days, labels and
/// the enumerations are parsed from their bytes without making a String, and every
/// entry shares the one user id. A history read decodes thousands of rows, so this is
/// where its time went (splitting the label lists into Strings was half of it).
///
/// Every field decodes exactly as the String-based reading did: names this version does
/// not know (a later HealthKit's) are skipped, older label spellings read as today's, and
/// a value no row should hold falls back the same way.
struct MoodRowDecoder {
  /// The user whose rows the statement selects (`WHERE user_id = ?`).
  let userID: String
  /// Entries share a few dozen label and association lists (a score's default labels,
  /// the same few life areas), so each list is parsed and allocated once per read and
  /// shared by the rows that store the same bytes.
  private var labelLists = StoredLists(Self.labelNames)
  private var associationLists = StoredLists(Self.associationNames)

  init(userID: String) {
    self.userID = userID
  }

  /// The columns in `MoodRows.columns` order.
  mutating func entry(_ statement: SQLiteStatement) -> MoodEntry {
    let id =
      Self.bytes(statement, 0) { Self.uuid($0) } ?? UUID(uuidString: Self.string(statement, 0)) ?? UUID()
    let labels = Self.bytes(statement, 5) { labelLists.values(for: $0) } ?? []
    let associations = Self.bytes(statement, 6) { associationLists.values(for: $0) } ?? []
    return MoodEntry(
      id: id, userID: userID,
      date: Date(timeIntervalSince1970: sqlite3_column_double(statement, 1)),
      day: Self.bytes(statement, 2) { MoodDay(utf8: $0) } ?? MoodDay(year: 0, month: 0, day: 0),
      score: Int(sqlite3_column_int64(statement, 3)), valence: sqlite3_column_double(statement, 4),
      labels: labels, associations: associations,
      notes: Self.optionalString(statement, 7),
      kind: Self.bytes(statement, 8) { Self.kinds.value(for: $0) } ?? .momentaryEmotion,
      source: Self.bytes(statement, 9) { Self.sources.value(for: $0) } ?? .userEntry,
      createdAt: Date(timeIntervalSince1970: sqlite3_column_double(statement, 10)),
      updatedAt: Date(timeIntervalSince1970: sqlite3_column_double(statement, 11)),
      backendID: Self.optionalString(statement, 12),
      syncStatus: Self.bytes(statement, 13) { Self.statuses.value(for: $0) } ?? .pending)
  }

  /// The columns `id, date, created_at, score, labels`; the emotion is the first label
  /// this version knows, as `MoodEntry.emotion` is.
  mutating func summary(_ statement: SQLiteStatement) -> MoodEntrySummary {
    MoodEntrySummary(
      id: Self.bytes(statement, 0) { Self.uuid($0) } ?? UUID(uuidString: Self.string(statement, 0)) ?? UUID(),
      date: Date(timeIntervalSince1970: sqlite3_column_double(statement, 1)),
      createdAt: Date(timeIntervalSince1970: sqlite3_column_double(statement, 2)),
      score: Int(sqlite3_column_int64(statement, 3)),
      emotion: Self.bytes(statement, 4) { labelLists.values(for: $0).first } ?? nil)
  }

  // MARK: Columns

  /// The column's text bytes (valid until the statement moves on), or nil for NULL.
  private static func bytes<T>(
    _ statement: SQLiteStatement, _ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> T?
  ) -> T? {
    guard let text = sqlite3_column_text(statement, column) else { return nil }
    return body(UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, column))))
  }

  private static func string(_ statement: SQLiteStatement, _ column: Int32) -> String {
    optionalString(statement, column) ?? ""
  }

  /// nil for NULL: SQLite gives no text pointer for NULL (and "" for empty text), so
  /// one call tells both.
  private static func optionalString(_ statement: SQLiteStatement, _ column: Int32) -> String? {
    bytes(statement, column) { String(decoding: $0, as: UTF8.self) }
  }

  // MARK: Values

  /// `XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX` in either case, as `UUID(uuidString:)` reads it.
  static func uuid(_ bytes: UnsafeBufferPointer<UInt8>) -> UUID? {
    guard bytes.count == 36, bytes[8] == 0x2D, bytes[13] == 0x2D, bytes[18] == 0x2D, bytes[23] == 0x2D else {
      return nil
    }
    // Each byte's value as a hex digit, 0xFF where it is none; OR-ing the digits of the
    // whole id tells at the end whether any was not one.
    var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var invalid: UInt8 = 0
    withUnsafeMutableBytes(of: &value) { out in
      hexDigits.withUnsafeBufferPointer { digits in
        for position in 0..<16 {
          let index = uuidOffsets[position]
          let high = digits[Int(bytes[index])]
          let low = digits[Int(bytes[index + 1])]
          invalid |= high | low
          out[position] = high << 4 | low
        }
      }
    }
    return invalid & 0xF0 == 0 ? UUID(uuid: value) : nil
  }

  /// Where each of the 16 bytes' two digits start in the text.
  private static let uuidOffsets = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34]

  private static let hexDigits: [UInt8] = (0..<256).map { byte in
    switch byte {
    case 0x30...0x39: UInt8(byte - 0x30)
    case 0x41...0x46: UInt8(byte - 0x41 + 10)
    case 0x61...0x66: UInt8(byte - 0x61 + 10)
    default: 0xFF
    }
  }

  /// Comma-separated stored names, unknown ones skipped.
  static func names<Value>(_ bytes: UnsafeBufferPointer<UInt8>, in table: StoredNames<Value>) -> [Value] {
    var values: [Value] = []
    var start = 0
    for end in 0...bytes.count where end == bytes.count || bytes[end] == 0x2C {
      if end > start, let value = table.value(for: UnsafeBufferPointer(rebasing: bytes[start..<end])) {
        values.append(value)
      }
      start = end + 1
    }
    return values
  }

  static let labelNames = StoredNames(MoodLabel.storedNames.map { ($0.name, $0.label) })
  static let associationNames = StoredNames(MoodAssociation.allCases.map { ($0.rawValue, $0) })
  static let kinds = StoredNames(MoodKind.allCases.map { ($0.rawValue, $0) })
  static let sources = StoredNames(MoodSource.allCases.map { ($0.rawValue, $0) })
  static let statuses = StoredNames(SyncStatus.allCases.map { ($0.rawValue, $0) })
}

/// Comma-separated lists of stored names decoded once each: a small direct-mapped cache
/// from a list's bytes to its values. A slot holds the last list hashed to it, so a
/// read with more distinct lists than slots only parses some of them again. Keys and
/// lists sit in two arrays compared in place, so a hit costs the hash, one `memcmp`
/// and the returned list's retain.
struct StoredLists<Value: Sendable> {
  private static var slotCount: Int { 256 }
  private let names: StoredNames<Value>
  // Every slot starts as the empty list, which is what empty text decodes to.
  private var keys: [[UInt8]] = Array(repeating: [], count: slotCount)
  private var lists: [[Value]] = Array(repeating: [], count: slotCount)

  init(_ names: StoredNames<Value>) {
    self.names = names
  }

  mutating func values(for bytes: UnsafeBufferPointer<UInt8>) -> [Value] {
    // FNV-1a over the bytes picks the slot.
    var hash: UInt32 = 2_166_136_261
    for byte in bytes { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
    let slot = Int(hash % UInt32(Self.slotCount))
    if equal(keys[slot], bytes) { return lists[slot] }
    let values = MoodRowDecoder.names(bytes, in: names)
    keys[slot] = Array(bytes)
    lists[slot] = values
    return values
  }
}

/// A lookup from a stored name's UTF-8 bytes to its value without making a String:
/// names are bucketed by length and compared byte for byte.
struct StoredNames<Value>: Sendable where Value: Sendable {
  private let byLength: [[(name: [UInt8], value: Value)]]

  init(_ names: [(String, Value)]) {
    var byLength: [[(name: [UInt8], value: Value)]] = []
    for (name, value) in names {
      let bytes = Array(name.utf8)
      while byLength.count <= bytes.count { byLength.append([]) }
      byLength[bytes.count].append((bytes, value))
    }
    self.byLength = byLength
  }

  func value(for bytes: UnsafeBufferPointer<UInt8>) -> Value? {
    guard bytes.count < byLength.count else { return nil }
    for candidate in byLength[bytes.count] where equal(candidate.name, bytes) {
      return candidate.value
    }
    return nil
  }
}

/// Whether the stored bytes are `bytes`: one `memcmp`, where a generic sequence
/// comparison went byte by byte through iterators.
private func equal(_ stored: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
  guard stored.count == bytes.count else { return false }
  guard let base = bytes.baseAddress, !bytes.isEmpty else { return true }
  return stored.withUnsafeBufferPointer { memcmp($0.baseAddress!, base, bytes.count) == 0 }
}
