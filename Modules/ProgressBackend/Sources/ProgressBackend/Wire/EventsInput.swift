import FlowKit
import Foundation
import ProgressContract
import StrictJSON

private typealias E = EventField

/// The events of `POST /api/v1/events`, read and checked from the body: each an object of
/// `ts`, `event` and fields that are text, numbers, booleans or null, as in an events file.
struct EventsInput: Sendable {
  static let maxNameLength = 64
  static let maxTextLength = 1_000

  /// Each event as the JSON object of an events file line, its `user` the caller.
  var events: [[String: JSONValue]]

  init(_ object: [String: JSONValue]) throws(Refusal) {
    let limit = EventsInputField.maxEvents
    guard case .array(let items) = object[EventsInputField.events.rawValue], !items.isEmpty else {
      throw Refusal.invalid("\(EventsInputField.events) is required: an array of 1 to \(limit) events")
    }
    guard items.count <= limit else {
      throw Refusal.invalid("a call holds at most \(limit) events, got \(items.count)")
    }
    events = []
    events.reserveCapacity(items.count)
    for (index, item) in items.enumerated() {
      events.append(try Self.event(item, name: "\(EventsInputField.events)[\(index)]"))
    }
  }

  private static func event(_ item: JSONValue, name: String) throws(Refusal) -> [String: JSONValue] {
    guard case .object(let fields) = item else { throw Refusal.invalid("\(name) must be an object") }
    guard case .string(let ts) = fields[E.ts.rawValue] else {
      throw Refusal.invalid("\(name).\(E.ts) is required (a UTC date-time such as 2026-03-02T08:00:00.000Z)")
    }
    guard Self.isTimestamp(ts) else {
      throw Refusal.invalid(
        "\(name).\(E.ts) must be a UTC date-time such as 2026-03-02T08:00:00.000Z, got \"\(ts.prefix(50))\"")
    }
    guard case .string(let event) = fields[E.event.rawValue], !event.isEmpty,
      event.count <= maxNameLength
    else {
      throw Refusal.invalid("\(name).\(E.event) is required: a name of 1 to \(maxNameLength) characters")
    }
    try Refusal.checkName(event, "\(name).\(E.event)")
    switch fields[E.user.rawValue] {
    case nil, .string: break
    default: throw Refusal.invalid("\(name).\(E.user) must be text")
    }
    for (key, value) in fields {
      guard !key.isEmpty, key.count <= maxNameLength else {
        throw Refusal.invalid("\(name) has a field name of \(key.count) characters (1 to \(maxNameLength))")
      }
      try Refusal.checkName(key, "\(name)'s field name")
      switch value {
      case .null, .bool, .number: break
      case .string(let text):
        guard text.count <= maxTextLength else {
          throw Refusal.invalid("\(name).\(key.prefix(64)) holds more than \(maxTextLength) characters")
        }
        // PostgreSQL's jsonb holds no NUL.
        guard !text.utf8.contains(0) else { throw Refusal.invalid("\(name).\(key.prefix(64)) holds U+0000") }
      case .array, .object:
        throw Refusal.invalid("\(name).\(key.prefix(64)) must be text, a number, a boolean or null")
      }
    }
    return fields
  }

  /// `YYYY-MM-DDTHH:MM:SS[.mmm]Z` of a real day: what an events file's `ts` is, and what the
  /// report reads.
  static func isTimestamp(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    guard bytes.count == 20 || bytes.count == 24, bytes.last == UInt8(ascii: "Z"),
      bytes[10] == UInt8(ascii: "T"),
      WireDate.day(of: String(decoding: bytes[0..<10], as: UTF8.self)) != nil
    else { return false }
    func number(_ range: Range<Int>) -> Int? {
      guard bytes[range].allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
      return Int(String(decoding: bytes[range], as: UTF8.self))
    }
    guard bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
      let hour = number(11..<13), hour < 24, let minute = number(14..<16), minute < 60,
      let second = number(17..<19), second < 60
    else { return false }
    return bytes.count == 20 || (bytes[19] == UInt8(ascii: ".") && number(20..<23) != nil)
  }

  /// Each event as one line of an events file, with `user` set to `userID`.
  func lines(userID: String) -> [String] {
    events.map { fields in
      var fields = fields
      fields[E.user.rawValue] = .string(userID)
      var bytes: [UInt8] = [UInt8(ascii: "{")]
      // The file's order: ts, user, event, then the rest by name.
      let first = [E.ts.rawValue, E.user.rawValue, E.event.rawValue]
      let names = first + fields.keys.filter { !first.contains($0) }.sorted()
      for (index, key) in names.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        JSONText.appendString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        switch fields[key]! {
        case .null: bytes += "null".utf8
        case .bool(let value): bytes += (value ? "true" : "false").utf8
        case .number(let value): JSONText.appendNumber(value, to: &bytes)
        case .string(let text): JSONText.appendString(text, to: &bytes)
        case .array, .object: bytes += "null".utf8
        }
      }
      bytes.append(UInt8(ascii: "}"))
      return String(decoding: bytes, as: UTF8.self)
    }
  }
}
