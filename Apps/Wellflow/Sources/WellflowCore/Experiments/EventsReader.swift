import Experiments
import FlowKit
import Foundation
import StrictJSON

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
    let wanted = fields.map(EventLine.Wanted.init)
    func parse(_ line: UnsafeBufferPointer<UInt8>, last: Bool) throws {
      summary.lines += 1
      guard line.contains(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0D) }) else { return }
      do {
        try body(try EventLine.event(line, wanted: wanted))
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
        while start < bytes.count,
          let found = memchr(bytes.baseAddress! + start, Int32(UInt8(ascii: "\n")), bytes.count - start)
        {
          let end = bytes.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
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

  /// The fields a report keeps, as bytes: a line's names are compared with these where
  /// they stand, and only the names kept become `String`s.
  struct Wanted {
    let names: [[UInt8]]

    init(_ names: Set<String>) { self.names = names.map { Array($0.utf8) } }

    func contains(_ name: JSONScanner.RawString, in scanner: JSONScanner) -> Bool {
      guard name.isPlain else { return names.contains(Array(scanner.text(of: name).utf8)) }
      let count = name.end - name.start
      return names.contains { wanted in
        wanted.count == count
          && (count == 0
            || wanted.withUnsafeBufferPointer { wanted in
              memcmp(wanted.baseAddress!, scanner.bytes.baseAddress! + name.start, count) == 0
            })
      }
    }
  }

  /// The last value a line gave one of the event's own members.
  private enum Slot {
    case absent, null, other
    case text(JSONScanner.RawString)
  }

  static func event(_ line: UnsafeBufferPointer<UInt8>, keeping wanted: Set<String>?) throws(Problem)
    -> ReportEvent
  {
    try event(line, wanted: wanted.map(Wanted.init))
  }

  /// The line read in one pass over its bytes, without a value per member: the event's
  /// own members are found by their names' bytes and kept as where their text stands,
  /// fields become text only when `wanted` keeps them. It reads as the whole-object
  /// reader did: a name given twice counts its last value, as in PostgreSQL's jsonb, so a
  /// report from the database reads the line alike (a `null` field leaves the earlier
  /// value); the first problem named is the same.
  static func event(_ line: UnsafeBufferPointer<UInt8>, wanted: Wanted?) throws(Problem) -> ReportEvent {
    var scanner = JSONScanner(bytes: line)
    var ts = Slot.absent
    var user = Slot.absent
    var event = Slot.absent
    var flow = Slot.absent
    var variant = Slot.absent
    // The first field that holds an array or an object: named once the `ts` is read.
    var nested: JSONScanner.RawString?
    var fields: [String: String] = [:]
    do throws(JSONSyntaxError) {
      scanner.skipWhitespace()
      try scanner.rawMembers { (name, scanner) throws(JSONSyntaxError) in
        func slot() throws(JSONSyntaxError) -> Slot {
          if scanner.peek == UInt8(ascii: "\"") { return .text(try scanner.rawString()) }
          return try scanner.value(depth: 1) == .null ? .null : .other
        }
        if name.equals("ts", in: scanner) {
          ts = try slot()
        } else if name.equals("user", in: scanner) {
          user = try slot()
        } else if name.equals("event", in: scanner) {
          event = try slot()
        } else if name.equals("flow", in: scanner) {
          flow = try slot()
        } else if name.equals("variant", in: scanner) {
          variant = try slot()
        } else if scanner.peek == UInt8(ascii: "\"") {
          let text = try scanner.rawString()
          if wanted?.contains(name, in: scanner) ?? true {
            fields[scanner.text(of: name)] = scanner.text(of: text)
          }
        } else {
          let value = try scanner.value(depth: 1)
          let kept: String
          switch value {
          case .null, .string: return
          case .array, .object:
            if nested == nil { nested = name }
            return
          case .bool(let flag): kept = flag ? "true" : "false"
          case .number(let number): kept = formatNumber(number)
          }
          if wanted?.contains(name, in: scanner) ?? true { fields[scanner.text(of: name)] = kept }
        }
      }
      scanner.skipWhitespace()
      guard scanner.isAtEnd else { throw scanner.error("data after the value") }
    } catch {
      let text = terminalSafe(String(decoding: line.prefix(60), as: UTF8.self))
      throw Problem(message: "not a JSON object: \(text)\(line.count > 60 ? "…" : "")")
    }
    func text(_ slot: Slot, _ key: String, required: Bool) throws(Problem) -> String? {
      switch slot {
      case .text(let raw): return scanner.text(of: raw)
      case .absent, .null:
        if required { throw Problem(message: "the event has no '\(key)'") }
        return nil
      case .other: throw Problem(message: "'\(key)' must be text")
      }
    }
    let stamp: Date
    if case .text(let raw) = ts, raw.isPlain,
      let fast = fastTimestamp(UnsafeBufferPointer(rebasing: line[raw.start..<raw.end]))
    {
      stamp = fast
    } else {
      let text = try text(ts, "ts", required: true)!
      guard let parsed = timestamp(text) else {
        throw Problem(
          message:
            "'ts' must be an ISO 8601 date-time, got '\(terminalSafe(text, limit: ReportCommand.nameLimit))'")
      }
      stamp = parsed
    }
    if let nested {
      let key = scanner.text(of: nested)
      throw Problem(
        message:
          "field '\(terminalSafe(key, limit: ReportCommand.nameLimit))' must be text, a number or a flag")
    }
    return ReportEvent(
      ts: stamp, user: try text(user, "user", required: true)!,
      event: try text(event, "event", required: true)!,
      flow: try text(flow, "flow", required: false), variant: try text(variant, "variant", required: false),
      fields: fields)
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
    return text.withUTF8 { fastTimestamp($0) }
  }

  static func fastTimestamp(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
    guard bytes.count == 20 || bytes.count == 24, bytes[bytes.count - 1] == UInt8(ascii: "Z") else {
      return nil
    }
    func number(_ start: Int, _ count: Int) -> Int? {
      var value = 0
      for index in start..<start + count {
        let digit = Int(bytes[index]) &- 48
        guard (0...9).contains(digit) else { return nil }
        value = value * 10 + digit
      }
      return value
    }
    func at(_ index: Int, _ character: Unicode.Scalar) -> Bool { bytes[index] == UInt8(ascii: character) }
    guard at(4, "-"), at(7, "-"), at(10, "T"), at(13, ":"), at(16, ":"), let year = number(0, 4),
      let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
      let minute = number(14, 2),
      let second = number(17, 2), year >= 1970, (1...12).contains(month), hour < 24, minute < 60,
      second < 60
    else { return nil }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    let length: Int
    switch month {
    case 2: length = leap ? 29 : 28
    case 4, 6, 9, 11: length = 30
    default: length = 31
    }
    guard (1...length).contains(day) else { return nil }
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
