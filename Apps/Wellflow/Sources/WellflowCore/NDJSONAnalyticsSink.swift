import FlowKit
import Foundation

/// Writes analytics events to a file, one JSON object a line, spelled byte by byte
/// (`NDJSONLine`): `JSONSerialization` with sorted keys cost several times the step that
/// made the event. Lines are gathered in a buffer and written when it fills and at
/// `flush()`, which `wellflow run` calls after each script run and before it ends: a
/// crash loses at most the run under way, never an earlier one. A write that fails (a
/// full disk) is kept as `failure`, and nothing more is written.
public final class NDJSONAnalyticsSink: AnalyticsSink {
  /// Bytes gathered before a write, so a run of millions of steps holds at most this.
  static let bufferLimit = 1 << 16

  private struct State {
    var buffer: [UInt8] = []
    var failure: WriteFailure?
    /// An event's members while its line is spelled, kept between events so a line
    /// allocates nothing.
    var members: [NDJSONLine.Entry] = []
  }

  private let file: OutputFile
  private let tags: [String: EventValue]
  private let state = Locked(State())

  /// A new file at `path` (an existing one is emptied, so a report never mixes an earlier
  /// population into this one), or with `append` the events added after what it holds.
  /// `tags` are fields added to every event that has none of that name (`source: script`).
  public init(path: String, append: Bool = false, tags: [String: EventValue] = [:]) throws(WriteFailure) {
    file = try OutputFile.open(path, appending: append, as: "events")
    self.tags = tags
    state.withLock { $0.buffer.reserveCapacity(Self.bufferLimit + 1024) }
  }

  deinit {
    flush()
    file.close()
  }

  /// The first write that failed; the run reports it and stops.
  public var failure: WriteFailure? { state.withLock { $0.failure } }

  public func record(_ event: AnalyticsEvent) {
    // Under the lock, so lines of events recorded at once never interleave.
    state.withLock { state in
      guard state.failure == nil else { return }
      NDJSONLine.append(event, tags: tags, to: &state.buffer, members: &state.members)
      if state.buffer.count >= Self.bufferLimit { write(&state) }
    }
  }

  /// Writes what the buffer holds; a failure is kept in `failure`.
  public func flush() {
    state.withLock { write(&$0) }
  }

  /// Adds the bytes of the file at `path` (a worker's events, whole lines) after what was
  /// recorded; a file that cannot be read adds nothing.
  public func append(contentsOf path: String) {
    guard let handle = FileHandle(forReadingAtPath: path) else { return }
    defer { try? handle.close() }
    flush()
    while let data = try? handle.read(upToCount: 1 << 20), !data.isEmpty {
      state.withLock { state in
        guard state.failure == nil else { return }
        state.buffer.append(contentsOf: data)
        write(&state)
      }
    }
  }

  private func write(_ state: inout State) {
    guard state.failure == nil, !state.buffer.isEmpty else { return }
    state.failure = state.buffer.withUnsafeBytes { bytes -> WriteFailure? in
      do throws(WriteFailure) {
        try file.write(bytes)
        return nil
      } catch {
        return error
      }
    }
    state.buffer.removeAll(keepingCapacity: true)
  }

  /// `ts` in UTC to the millisecond (`2026-03-02T07:00:04.250Z`): events of one step
  /// are milliseconds apart. Spelled from whole milliseconds, so a stamp never rounds
  /// onto the one before it.
  public static func timestamp(_ date: Date) -> String {
    var bytes: [UInt8] = []
    NDJSONLine.appendTimestamp(date, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The event as one JSON object, without the line's end.
  public static func line(for event: AnalyticsEvent) -> String {
    var bytes: [UInt8] = []
    NDJSONLine.append(event, tags: [:], to: &bytes)
    return String(decoding: bytes.dropLast(), as: UTF8.self)
  }
}

/// One event as an NDJSON line, byte for byte what `JSONSerialization` wrote with
/// `.sortedKeys` and `.withoutEscapingSlashes` before (files stay comparable across
/// versions): keys in its order, strings escaped as it escapes them, numbers as Swift
/// spells a `Double` without a trailing `.0`.
enum NDJSONLine {
  static func append(_ event: AnalyticsEvent, tags: [String: EventValue], to out: inout [UInt8]) {
    var members: [Entry] = []
    append(event, tags: tags, to: &out, members: &members)
  }

  /// `members` is scratch space, emptied and filled here (its capacity is what a caller
  /// keeps between lines).
  static func append(
    _ event: AnalyticsEvent, tags: [String: EventValue], to out: inout [UInt8], members: inout [Entry]
  ) {
    // The event's own members first; then fields (an event's own field wins over a tag),
    // never one that repeats a member already written.
    func taken(_ key: String) -> Bool {
      switch key {
      case "ts", "user", "event": true
      case "flow": event.flow != nil
      case "variant": event.variant != nil
      default: false
      }
    }
    members.removeAll(keepingCapacity: true)
    members.append(Entry(key: "ts", value: .timestamp(event.ts)))
    members.append(Entry(key: "user", value: .value(.string(event.user))))
    members.append(Entry(key: "event", value: .value(.string(event.event))))
    if let flow = event.flow { members.append(Entry(key: "flow", value: .value(.string(flow)))) }
    if let variant = event.variant { members.append(Entry(key: "variant", value: .value(.string(variant)))) }
    for (key, value) in event.fields where !taken(key) {
      members.append(Entry(key: key, value: .value(value)))
    }
    for (key, value) in tags where event.fields[key] == nil && !taken(key) {
      members.append(Entry(key: key, value: .value(value)))
    }
    // Keys of lowercase letters and `_` (every key events have) sort by their bytes, which
    // `<` compares for ASCII; others the way `JSONSerialization` did.
    if members.allSatisfy({ plain($0.key) }) {
      members.sort { $0.key < $1.key }
    } else {
      members.sort { precedes($0.key, $1.key) }
    }

    out.append(UInt8(ascii: "{"))
    for index in members.indices {
      if index > 0 { out.append(UInt8(ascii: ",")) }
      appendString(members[index].key, to: &out)
      out.append(UInt8(ascii: ":"))
      switch members[index].value {
      case .timestamp(let date):
        out.append(UInt8(ascii: "\""))
        appendTimestamp(date, to: &out)
        out.append(UInt8(ascii: "\""))
      case .value(.string(let text)): appendString(text, to: &out)
      case .value(.number(let number)): appendNumber(number, to: &out)
      case .value(.bool(let flag)): out.append(contentsOf: flag ? "true".utf8 : "false".utf8)
      }
    }
    out.append(UInt8(ascii: "}"))
    out.append(UInt8(ascii: "\n"))
  }

  struct Entry {
    var key: String
    var value: Member
  }

  enum Member {
    case timestamp(Date)
    case value(EventValue)
  }

  static func plain(_ key: String) -> Bool {
    key.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || $0 == UInt8(ascii: "_") }
  }

  /// `JSONSerialization`'s sorted order (numeric, case-insensitive, by the system
  /// locale's collation). For keys of lowercase ASCII letters and `_`, the keys events
  /// have, that order is the order of their bytes; others ask Foundation.
  static func precedes(_ a: String, _ b: String) -> Bool {
    if plain(a), plain(b) { return a.utf8.lexicographicallyPrecedes(b.utf8) }
    return a.compare(
      b, options: [.numeric, .caseInsensitive, .forcedOrdering], range: a.startIndex..<a.endIndex,
      locale: Locale(identifier: "")) == .orderedAscending
  }

  private static let hex = Array("0123456789abcdef".utf8)

  static func appendString(_ text: String, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    // Usually nothing to escape: the bytes go in at once (read from the string's own
    // storage; walking its `utf8` view a byte at a time cost more than the rest of a line).
    let whole = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
      for byte in bytes where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
        return false
      }
      out.append(contentsOf: bytes)
      return true
    }
    if whole == true {
      out.append(UInt8(ascii: "\""))
      return
    }
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), byte])
      case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), byte])
      case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
      case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
      case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
      case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
      case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
      case 0..<0x20:
        out.append(contentsOf: [
          UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)],
          hex[Int(byte & 0xF)],
        ])
      default: out.append(byte)
      }
    }
    out.append(UInt8(ascii: "\""))
  }

  /// As Swift spells the `Double`, without a trailing `.0` (`3`, `0.25`, `1e+16`). A
  /// number JSON cannot hold (infinite, NaN), which `JSONSerialization` refused with an
  /// empty line, is `null`.
  static func appendNumber(_ number: Double, to out: inout [UInt8]) {
    guard number.isFinite else {
      out.append(contentsOf: "null".utf8)
      return
    }
    if number == number.rounded(), abs(number) < 1e15 {
      let whole = Int(number)
      if whole == 0, number.sign == .minus { out.append(UInt8(ascii: "-")) }
      appendInteger(whole, to: &out)
      return
    }
    var text = number.description
    if text.hasSuffix(".0") { text.removeLast(2) }
    out.append(contentsOf: text.utf8)
  }

  static func appendInteger(_ value: Int, to out: inout [UInt8]) {
    if value < 0 { out.append(UInt8(ascii: "-")) }
    let magnitude = value.magnitude
    var divisor: UInt = 1
    while divisor <= magnitude / 10 { divisor *= 10 }
    while divisor > 0 {
      out.append(UInt8(ascii: "0") + UInt8(magnitude / divisor % 10))
      divisor /= 10
    }
  }

  /// `2026-03-02T07:00:04.250Z`, from whole milliseconds; years before 1970 or after 9999
  /// go through `Timestamp`.
  static func appendTimestamp(_ date: Date, to out: inout [UInt8]) {
    let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
    guard let whole = Int(exactly: milliseconds), (0..<253_402_300_800_000).contains(whole) else {
      out.append(contentsOf: slowTimestamp(date, milliseconds: milliseconds).utf8)
      return
    }
    let seconds = whole / 1000
    let days = seconds / 86_400
    let time = seconds - days * 86_400
    let (year, month, day) = Timestamp.civilDate(daysSince1970: days)
    func digits(_ value: Int, _ count: Int) {
      var divisor = 1
      for _ in 1..<count { divisor *= 10 }
      while divisor > 0 {
        out.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
        divisor /= 10
      }
    }
    digits(year, 4)
    out.append(UInt8(ascii: "-"))
    digits(month, 2)
    out.append(UInt8(ascii: "-"))
    digits(day, 2)
    out.append(UInt8(ascii: "T"))
    digits(time / 3_600, 2)
    out.append(UInt8(ascii: ":"))
    digits(time / 60 % 60, 2)
    out.append(UInt8(ascii: ":"))
    digits(time % 60, 2)
    out.append(UInt8(ascii: "."))
    digits(whole % 1000, 3)
    out.append(UInt8(ascii: "Z"))
  }

  /// The stamp as `timestamp(_:)` spelled it before, for dates the fast path leaves.
  static func slowTimestamp(_ date: Date, milliseconds: Double) -> String {
    let seconds = (milliseconds / 1000).rounded(.down)
    guard let fraction = Int(exactly: milliseconds - seconds * 1000) else {
      return Timestamp.string(from: date)
    }
    let whole = Timestamp.string(from: Date(timeIntervalSince1970: seconds))
    let digits = String(fraction)
    return whole.dropLast() + "." + String(repeating: "0", count: max(0, 3 - digits.count)) + digits + "Z"
  }
}

/// Sends each event to several sinks.
public struct FanOutAnalyticsSink: AnalyticsSink {
  public let sinks: [any AnalyticsSink]
  public init(_ sinks: [any AnalyticsSink]) { self.sinks = sinks }
  public func record(_ event: AnalyticsEvent) { for sink in sinks { sink.record(event) } }
  public var isRecording: Bool { sinks.contains { $0.isRecording } }
}
