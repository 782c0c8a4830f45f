import Experiments
import FlowKit
import Foundation

/// A line of an events file that is not an event.
public struct EventsFileError: Error, Sendable, Equatable, CustomStringConvertible {
  public var file: String
  public var line: Int
  public var message: String

  public var description: String { "\(file):\(line): \(message)" }
}

/// Reads the NDJSON events `wellflow run --events FILE` writes, a block at a
/// time, each line parsed from its bytes: a report over millions of events holds a
/// block, never the file.
public enum EventsFile {
  /// What a pass over the file found besides its events.
  public struct Summary: Sendable, Equatable {
    /// Lines read, blank ones included.
    public var lines = 0
    /// The last line when it had no line end and was not a whole event (the file was cut
    /// off as it was written): it is left out, with this problem.
    public var truncated: EventsFileError?
  }

  /// Every event in file order; blank lines are skipped, anything else that is not an
  /// event object is an error naming its line.
  public static func read(path: String) throws -> [ReportEvent] {
    var events: [ReportEvent] = []
    let summary = try forEach(path: path) { events.append($0) }
    if let truncated = summary.truncated { throw truncated }
    return events
  }

  /// Calls `body` with each event in file order. A line that is not an event throws,
  /// unless it is the last and has no line end (`Summary.truncated`). `fields` keeps
  /// only the fields of these names (nil keeps all).
  public static func forEach(
    path: String, fields: Set<String>? = nil, _ body: (ReportEvent) throws -> Void
  ) throws -> Summary {
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw EventsFileError(file: path, line: 0, message: "cannot read the events file")
    }
    defer { try? handle.close() }
    var summary = Summary()
    var pending: [UInt8] = []
    func parse(_ line: UnsafeBufferPointer<UInt8>, last: Bool) throws {
      summary.lines += 1
      guard line.contains(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0D) }) else { return }
      do {
        try body(try EventLine.event(line, keeping: fields))
      } catch let problem as EventLine.Problem {
        let error = EventsFileError(file: path, line: summary.lines, message: problem.message)
        if last {
          summary.truncated = error
        } else {
          throw error
        }
      }
    }
    while true {
      let block: Data
      do {
        guard let read = try handle.read(upToCount: 1 << 20), !read.isEmpty else { break }
        block = read
      } catch {
        throw EventsFileError(file: path, line: summary.lines, message: "cannot read the events file")
      }
      try block.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
        let bytes = raw.bindMemory(to: UInt8.self)
        var start = 0
        while let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
          if pending.isEmpty {
            try parse(UnsafeBufferPointer(rebasing: bytes[start..<end]), last: false)
          } else {
            pending.append(contentsOf: bytes[start..<end])
            try pending.withUnsafeBufferPointer { try parse($0, last: false) }
            pending.removeAll(keepingCapacity: true)
          }
          start = end + 1
        }
        pending.append(contentsOf: bytes[start...])
      }
    }
    if !pending.isEmpty { try pending.withUnsafeBufferPointer { try parse($0, last: true) } }
    return summary
  }
}

/// One NDJSON line as an event, parsed from its bytes: strict JSON (what `JSONDecoder`
/// accepts), with the problems the report names.
enum EventLine {
  struct Problem: Error {
    var message: String
  }

  /// A value of the line's object: members the report reads keep their value.
  enum Value {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case compound
  }

  static let members: Set<String> = ["ts", "user", "event", "flow", "variant"]

  static func event(_ line: UnsafeBufferPointer<UInt8>, keeping wanted: Set<String>?) throws(Problem)
    -> ReportEvent
  {
    var parser = Parser(bytes: line)
    guard let object = parser.object() else {
      let text = terminalSafe(String(decoding: line.prefix(60), as: UTF8.self))
      throw Problem(message: "not a JSON object: \(text)\(line.count > 60 ? "…" : "")")
    }
    // The last of a repeated key wins, as JSONDecoder's does.
    func member(_ key: String) -> Value? { object.last { $0.key == key }?.value }
    func text(_ key: String, required: Bool) throws(Problem) -> String? {
      switch member(key) {
      case .string(let string): return string
      case nil, .null?:
        if required { throw Problem(message: "the event has no '\(key)'") }
        return nil
      default: throw Problem(message: "'\(key)' must be text")
      }
    }
    let stamp = try text("ts", required: true)!
    guard let ts = timestamp(stamp) else {
      throw Problem(
        message:
          "'ts' must be an ISO 8601 date-time, got '\(terminalSafe(stamp, limit: ReportCommand.nameLimit))'")
    }
    var fields: [String: String] = [:]
    for (key, value) in object where !members.contains(key) {
      switch value {
      case .compound:
        throw Problem(
          message:
            "field '\(terminalSafe(key, limit: ReportCommand.nameLimit))' must be text, a number or a flag")
      case .null: continue
      case _ where wanted.map({ !$0.contains(key) }) ?? false: continue
      case .bool(let flag): fields[key] = flag ? "true" : "false"
      case .number(let number): fields[key] = formatNumber(number)
      case .string(let string): fields[key] = string
      }
    }
    return ReportEvent(
      ts: ts, user: try text("user", required: true)!, event: try text("event", required: true)!,
      flow: try text("flow", required: false), variant: try text("variant", required: false), fields: fields)
  }

  static let timestampFormats: [Date.ISO8601FormatStyle] = [
    Date.ISO8601FormatStyle(includingFractionalSeconds: false),
    Date.ISO8601FormatStyle(includingFractionalSeconds: true),
  ]

  /// `2026-03-02T07:00:04.250Z` (or without the milliseconds) read from its digits; any
  /// other ISO 8601 form through Foundation.
  static func timestamp(_ text: String) -> Date? {
    if let fast = fastTimestamp(text) { return fast }
    return timestampFormats.lazy.compactMap({ try? Date(text, strategy: $0) }).first
  }

  static func fastTimestamp(_ text: String) -> Date? {
    var text = text
    return text.withUTF8 { bytes -> Date? in
      guard bytes.count == 20 || bytes.count == 24, bytes[bytes.count - 1] == UInt8(ascii: "Z") else {
        return nil
      }
      func number(_ start: Int, _ count: Int) -> Int? {
        var value = 0
        for index in start..<start + count {
          let digit = Int(bytes[index]) - 48
          guard (0...9).contains(digit) else { return nil }
          value = value * 10 + digit
        }
        return value
      }
      func at(_ index: Int, _ character: Character) -> Bool { bytes[index] == character.asciiValue! }
      guard at(4, "-"), at(7, "-"), at(10, "T"), at(13, ":"), at(16, ":"), let year = number(0, 4),
        let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
        let minute = number(14, 2),
        let second = number(17, 2), year >= 1970, (1...12).contains(month), hour < 24, minute < 60,
        second < 60
      else { return nil }
      let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
      let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
      guard (1...lengths[month - 1]).contains(day) else { return nil }
      var milliseconds = 0
      if bytes.count == 24 {
        guard at(19, "."), let fraction = number(20, 3) else { return nil }
        milliseconds = fraction
      }
      // Howard Hinnant's days_from_civil.
      let y = month <= 2 ? year - 1 : year
      let era = y / 400
      let yearOfEra = y - era * 400
      let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
      let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
      let days = era * 146_097 + dayOfEra - 719_468
      let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
      // From the reference date, as Foundation's parser counts: the same `Date`, to the bit.
      return Date(timeIntervalSinceReferenceDate: Double(seconds - 978_307_200) + Double(milliseconds) / 1000)
    }
  }

  /// A strict JSON reader over one line's bytes: the top-level object's members in
  /// order; nested arrays and objects are checked and kept as `.compound`.
  struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    /// Deeper nesting than this is refused, as JSONDecoder refuses it, never a crash.
    static let depthLimit = 512

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func object() -> [(key: String, value: Value)]? {
      skipSpace()
      guard peek == UInt8(ascii: "{") else { return nil }
      index += 1
      var members: [(key: String, value: Value)] = []
      skipSpace()
      if peek == UInt8(ascii: "}") {
        index += 1
      } else {
        while true {
          skipSpace()
          guard peek == UInt8(ascii: "\""), let key = string() else { return nil }
          skipSpace()
          guard peek == UInt8(ascii: ":") else { return nil }
          index += 1
          guard let value = value(depth: 1) else { return nil }
          members.append((key, value))
          skipSpace()
          if peek == UInt8(ascii: ",") {
            index += 1
            // JSONDecoder takes a comma before the end (`{"a": 1,}`); so does the report.
            skipSpace()
            if peek == UInt8(ascii: "}") {
              index += 1
              break
            }
          } else if peek == UInt8(ascii: "}") {
            index += 1
            break
          } else {
            return nil
          }
        }
      }
      skipSpace()
      return index == bytes.count ? members : nil
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipSpace() {
      while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
      let count = word.utf8CodeUnitCount
      guard index + count <= bytes.count else { return false }
      for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
      index += count
      return true
    }

    private mutating func value(depth: Int) -> Value? {
      skipSpace()
      guard let byte = peek else { return nil }
      switch byte {
      case UInt8(ascii: "\""): return string().map(Value.string)
      case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
      case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
      case UInt8(ascii: "n"): return literal("null") ? .null : nil
      case UInt8(ascii: "["), UInt8(ascii: "{"):
        return depth < Self.depthLimit && skipCompound(depth: depth) ? .compound : nil
      default: return number().map(Value.number)
      }
    }

    /// An array or object, checked and passed over.
    private mutating func skipCompound(depth: Int) -> Bool {
      let isObject = bytes[index] == UInt8(ascii: "{")
      let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
      index += 1
      skipSpace()
      if peek == close {
        index += 1
        return true
      }
      while true {
        if isObject {
          skipSpace()
          guard peek == UInt8(ascii: "\""), string() != nil else { return false }
          skipSpace()
          guard peek == UInt8(ascii: ":") else { return false }
          index += 1
        }
        guard value(depth: depth + 1) != nil else { return false }
        skipSpace()
        if peek == UInt8(ascii: ",") {
          index += 1
          skipSpace()
          if peek == close {
            index += 1
            return true
          }
        } else if peek == close {
          index += 1
          return true
        } else {
          return false
        }
      }
    }

    /// A number as JSON spells it: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func number() -> Double? {
      let start = index
      if peek == UInt8(ascii: "-") { index += 1 }
      func digits() -> Int {
        let first = index
        while let byte = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
        return index - first
      }
      guard let first = peek else { return nil }
      if first == UInt8(ascii: "0") {
        index += 1
      } else if digits() == 0 {
        return nil
      }
      if peek == UInt8(ascii: ".") {
        index += 1
        guard digits() > 0 else { return nil }
      }
      if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
        index += 1
        if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
        guard digits() > 0 else { return nil }
      }
      let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
      guard let value = Double(text), value.isFinite else { return nil }
      return value
    }

    /// A string, its escapes read; nil for a control character, a bad escape, a lone
    /// surrogate or bytes that are not UTF-8.
    private mutating func string() -> String? {
      index += 1
      let start = index
      var escaped = false
      while let byte = peek, byte != UInt8(ascii: "\"") {
        if byte < 0x20 { return nil }
        if byte == UInt8(ascii: "\\") {
          escaped = true
          index += 1
          guard peek != nil else { return nil }
        }
        index += 1
      }
      guard peek == UInt8(ascii: "\"") else { return nil }
      let raw = UnsafeBufferPointer(rebasing: bytes[start..<index])
      index += 1
      guard escaped else { return String(validating: raw, as: UTF8.self) }
      return Self.unescape(raw)
    }

    private static func unescape(_ raw: UnsafeBufferPointer<UInt8>) -> String? {
      var out: [UInt8] = []
      out.reserveCapacity(raw.count)
      var index = 0
      func hex4(_ at: Int) -> UInt32? {
        guard at + 4 <= raw.count else { return nil }
        var value: UInt32 = 0
        for byte in raw[at..<at + 4] {
          guard let digit = Character(UnicodeScalar(byte)).hexDigitValue else { return nil }
          value = value * 16 + UInt32(digit)
        }
        return value
      }
      while index < raw.count {
        let byte = raw[index]
        guard byte == UInt8(ascii: "\\") else {
          out.append(byte)
          index += 1
          continue
        }
        let kind = raw[index + 1]
        index += 2
        switch kind {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(kind)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
          guard var scalar = hex4(index) else { return nil }
          index += 4
          if (0xD800..<0xDC00).contains(scalar) {
            guard index + 6 <= raw.count, raw[index] == UInt8(ascii: "\\"),
              raw[index + 1] == UInt8(ascii: "u"),
              let low = hex4(index + 2), (0xDC00..<0xE000).contains(low)
            else { return nil }
            index += 6
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
          }
          guard let unicode = Unicode.Scalar(scalar) else { return nil }
          out.append(contentsOf: String(Character(unicode)).utf8)
        default: return nil
        }
      }
      return String(validating: out, as: UTF8.self)
    }
  }
}
