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

  static let members: Set<String> = ["ts", "user", "event", "flow", "variant"]

  static func event(_ line: UnsafeBufferPointer<UInt8>, keeping wanted: Set<String>?) throws(Problem)
    -> ReportEvent
  {
    guard let object = object(line) else {
      let text = terminalSafe(String(decoding: line.prefix(60), as: UTF8.self))
      throw Problem(message: "not a JSON object: \(text)\(line.count > 60 ? "…" : "")")
    }
    // The last of a repeated key wins, as in PostgreSQL's jsonb: a report from the
    // database reads the line as the file's report does.
    func member(_ key: String) -> JSONValue? { object.last { $0.key == key }?.value }
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
      case .array, .object:
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

  /// The line's top-level object, its members in order. Nil when the line is not one
  /// JSON object.
  static func object(_ line: UnsafeBufferPointer<UInt8>) -> [(key: String, value: JSONValue)]? {
    var scanner = JSONScanner(bytes: line)
    var members: [(key: String, value: JSONValue)] = []
    do throws(JSONSyntaxError) {
      scanner.skipWhitespace()
      try scanner.members { (key, scanner) throws(JSONSyntaxError) in
        members.append((key, try scanner.value(depth: 1)))
      }
      scanner.skipWhitespace()
      return scanner.isAtEnd ? members : nil
    } catch {
      return nil
    }
  }
}
