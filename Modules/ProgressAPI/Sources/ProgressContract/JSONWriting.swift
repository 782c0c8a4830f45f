import StrictJSON

/// A value the server writes as JSON bytes directly: members in sorted order, as
/// `JSONSerialization` with `.sortedKeys` would, without building a dictionary per row.
public protocol JSONWritable {
  func appendJSON(to bytes: inout [UInt8])
}

public enum JSONText {
  /// `text` as a JSON string literal: quote and backslash escaped, control characters as `\u00XX`.
  public static func appendString(_ text: String, to bytes: inout [UInt8]) {
    bytes.append(UInt8(ascii: "\""))
    // Most text needs no escape: scanned in place and copied whole, not byte by byte.
    let plain = text.utf8.withContiguousStorageIfAvailable { utf8 in
      !utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
    }
    if plain == true {
      bytes += text.utf8
      bytes.append(UInt8(ascii: "\""))
      return
    }
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"):
        bytes += [UInt8(ascii: "\\"), byte]
      case 0..<0x20:
        bytes += [
          UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)],
          hex[Int(byte & 0xF)],
        ]
      default:
        bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  private static let hex = Array("0123456789abcdef".utf8)

  /// A number as JSON: whole numbers without a fraction. Never traps.
  public static func number(_ value: Double) -> String {
    if let whole = Int(exactly: value) { return String(whole) }
    return value.isFinite ? String(value) : "null"
  }

  /// `number(value)`'s text, a whole number's digits written without making a `String`.
  public static func appendNumber(_ value: Double, to bytes: inout [UInt8]) {
    if let whole = Int(exactly: value) {
      appendInteger(whole, to: &bytes)
    } else {
      bytes += number(value).utf8
    }
  }

  /// `String(value)`'s digits (and sign), written in place.
  public static func appendInteger(_ value: Int, to bytes: inout [UInt8]) {
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    var rest = value.magnitude
    // Int's magnitude has at most 20 digits.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var start = digits.count
      repeat {
        start -= 1
        digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
        rest /= 10
      } while rest > 0
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
    }
  }

  /// `value` as canonical JSON text: object members sorted by name (by their UTF-8
  /// bytes), no spaces, numbers as `number(_:)` writes them. Equal values give equal text,
  /// whatever the key order or spacing they were sent with.
  public static func appendCanonical(_ value: JSONValue, to bytes: inout [UInt8]) {
    switch value {
    case .null: bytes += "null".utf8
    case .bool(let flag): bytes += (flag ? "true" : "false").utf8
    case .number(let number): appendNumber(number, to: &bytes)
    case .string(let text): appendString(text, to: &bytes)
    case .array(let values):
      bytes.append(UInt8(ascii: "["))
      for (index, element) in values.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        appendCanonical(element, to: &bytes)
      }
      bytes.append(UInt8(ascii: "]"))
    case .object(let members):
      bytes.append(UInt8(ascii: "{"))
      for (index, name) in members.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        .enumerated()
      {
        appendName(name, first: index == 0, to: &bytes)
        appendCanonical(members[name]!, to: &bytes)
      }
      bytes.append(UInt8(ascii: "}"))
    }
  }

  /// `"name":` (after a comma unless it is the first member) as bytes.
  static func memberName(_ name: String, first: Bool = false) -> [UInt8] {
    var bytes: [UInt8] = []
    appendName(name, first: first, to: &bytes)
    return bytes
  }

  /// `"name":` (after a comma unless it is the first member).
  static func appendName(_ name: String, first: Bool = false, to bytes: inout [UInt8]) {
    if !first { bytes.append(UInt8(ascii: ",")) }
    appendString(name, to: &bytes)
    bytes.append(UInt8(ascii: ":"))
  }

  static func appendOptional(_ number: Int?, to bytes: inout [UInt8]) {
    if let number { appendInteger(number, to: &bytes) } else { bytes += "null".utf8 }
  }

  /// `{"data": value}`: how every answer wraps its value.
  public static func data(_ value: some JSONWritable) -> [UInt8] {
    data(capacity: 256) { value.appendJSON(to: &$0) }
  }

  /// `{"data": …}` around what `appendValue` writes.
  public static func data<Failure: Error>(
    capacity: Int, _ appendValue: (inout [UInt8]) throws(Failure) -> Void
  ) throws(Failure) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(capacity)
    bytes += #"{"data":"#.utf8
    try appendValue(&bytes)
    bytes.append(UInt8(ascii: "}"))
    return bytes
  }
}

/// Text a JSON string is written from: a `String`, or text read in place (a database
/// column's bytes), so a row can be written without making a `String` of each field.
public protocol JSONStringText {
  func appendJSONString(to bytes: inout [UInt8])
}

extension String: JSONStringText {
  public func appendJSONString(to bytes: inout [UInt8]) {
    JSONText.appendString(self, to: &bytes)
  }
}

extension ProgressRecord: JSONWritable {
  public func appendJSON(to bytes: inout [UInt8]) {
    JSONWriter().append(
      id: id, type: type, quantity: quantity, date: date, notes: notes, loggedAt: loggedAt, entryID: entryID,
      to: &bytes)
  }

  /// Writes rows' JSON with each member's `"name":` (after a comma but the first's) at
  /// hand, written once: the one place a row's members are named and ordered. The names
  /// are kept in memory that lives as long as the process, so copying them into a row
  /// takes no reference count (copying from an array took a retain and a release per name
  /// and row: a twentieth of `serve`'s time on a page of 50 rows).
  public struct JSONWriter: @unchecked Sendable {
    @usableFromInline let date: UnsafeBufferPointer<UInt8>
    @usableFromInline let entryID: UnsafeBufferPointer<UInt8>
    @usableFromInline let id: UnsafeBufferPointer<UInt8>
    @usableFromInline let loggedAt: UnsafeBufferPointer<UInt8>
    @usableFromInline let notes: UnsafeBufferPointer<UInt8>
    @usableFromInline let quantity: UnsafeBufferPointer<UInt8>
    @usableFromInline let type: UnsafeBufferPointer<UInt8>

    public init() {
      self = Self.names
    }

    private init(names: Void) {
      func kept(_ name: String, first: Bool = false) -> UnsafeBufferPointer<UInt8> {
        let bytes = JSONText.memberName(name, first: first)
        let memory = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = memory.initialize(from: bytes)
        return UnsafeBufferPointer(memory)
      }
      date = kept(CodingKeys.date.rawValue, first: true)
      entryID = kept(CodingKeys.entryID.rawValue)
      id = kept(CodingKeys.id.rawValue)
      loggedAt = kept(CodingKeys.loggedAt.rawValue)
      notes = kept(CodingKeys.notes.rawValue)
      quantity = kept(CodingKeys.quantity.rawValue)
      type = kept(CodingKeys.type.rawValue)
    }

    /// Made once and never freed.
    private static let names = JSONWriter(names: ())

    @inlinable
    public func append<Text: JSONStringText>(
      id: Text, type: Text, quantity: Double, date: Text, notes: Text?, loggedAt: Text?, entryID: Text?,
      to bytes: inout [UInt8]
    ) {
      bytes.append(UInt8(ascii: "{"))
      bytes += self.date
      date.appendJSONString(to: &bytes)
      if let entryID {
        bytes += self.entryID
        entryID.appendJSONString(to: &bytes)
      }
      bytes += self.id
      id.appendJSONString(to: &bytes)
      if let loggedAt {
        bytes += self.loggedAt
        loggedAt.appendJSONString(to: &bytes)
      }
      bytes += self.notes
      if let notes { notes.appendJSONString(to: &bytes) } else { bytes += "null".utf8 }
      bytes += self.quantity
      JSONText.appendNumber(quantity, to: &bytes)
      bytes += self.type
      type.appendJSONString(to: &bytes)
      bytes.append(UInt8(ascii: "}"))
    }
  }
}

extension JournalRecord: JSONWritable {
  public func appendJSON(to bytes: inout [UInt8]) {
    typealias Key = CodingKeys
    bytes.append(UInt8(ascii: "{"))
    JSONText.appendName(Key.createdAt.rawValue, first: true, to: &bytes)
    JSONText.appendString(createdAt, to: &bytes)
    JSONText.appendName(Key.curriculumID.rawValue, to: &bytes)
    JSONText.appendInteger(curriculumID, to: &bytes)
    JSONText.appendName(Key.id.rawValue, to: &bytes)
    JSONText.appendString(id, to: &bytes)
    JSONText.appendName(Key.initiatedBy.rawValue, to: &bytes)
    JSONText.appendString(initiatedBy, to: &bytes)
    JSONText.appendName(Key.secondaryCurriculumID.rawValue, to: &bytes)
    JSONText.appendOptional(secondaryCurriculumID, to: &bytes)
    JSONText.appendName(Key.strategyID.rawValue, to: &bytes)
    JSONText.appendOptional(strategyID, to: &bytes)
    bytes.append(UInt8(ascii: "}"))
  }
}

extension Page: JSONWritable where Item: JSONWritable {
  public func appendJSON(to bytes: inout [UInt8]) {
    Self.appendJSON(total: total, limit: limit, offset: offset, to: &bytes) { bytes in
      var first = true
      for entry in entries {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        entry.appendJSON(to: &bytes)
      }
    }
  }
}

extension Page {
  /// A page's JSON around entries `appendEntries` writes (comma-separated): for a page
  /// written as its rows are read, without keeping them.
  public static func appendJSON<Failure: Error>(
    total: Int, limit: Int, offset: Int, to bytes: inout [UInt8],
    entries appendEntries: (inout [UInt8]) throws(Failure) -> Void
  ) throws(Failure) {
    typealias Key = CodingKeys
    bytes.append(UInt8(ascii: "{"))
    JSONText.appendName(Key.entries.rawValue, first: true, to: &bytes)
    bytes.append(UInt8(ascii: "["))
    try appendEntries(&bytes)
    bytes.append(UInt8(ascii: "]"))
    JSONText.appendName(Key.limit.rawValue, to: &bytes)
    JSONText.appendInteger(limit, to: &bytes)
    JSONText.appendName(Key.offset.rawValue, to: &bytes)
    JSONText.appendInteger(offset, to: &bytes)
    JSONText.appendName(Key.total.rawValue, to: &bytes)
    JSONText.appendInteger(total, to: &bytes)
    bytes.append(UInt8(ascii: "}"))
  }
}
