import FlowKit
import Foundation
import YAMLTree

extension ScriptLoader {
  /// The longest single `advance`: a hundred years in any unit.
  public static let maxAdvanceSeconds = 100 * 366 * 86_400.0
  /// Seconds in each unit `advance` takes.
  static let advanceUnits: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]

  mutating func clockAdvance(_ node: YNode) -> ClockAdvance? {
    let text = node.text
    // Digits, an optional fraction, one unit: no signs, exponents, `inf` or `nan`.
    let number = text.dropLast()
    let isDecimal =
      !number.isEmpty && number.first != "." && number.last != "."
      && number.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
      && number.filter { $0 == "." }.count <= 1
    guard let unit = text.last, let scale = Self.advanceUnits[unit], isDecimal, number.count <= 20,
      let amount = Double(number)
    else {
      report(
        node.position, "advance takes an amount and a unit (s, m, h, d), e.g. 1d or 90m; got \(node.quoted)")
      return nil
    }
    guard amount * scale <= Self.maxAdvanceSeconds else {
      report(
        node.position,
        "advance moves the clock at most 100 years at a time (36600d), got \(node.quoted)")
      return nil
    }
    if unit == "d" {
      guard let days = Int(exactly: amount) else {
        report(node.position, "days advance in whole calendar days, got \(node.quoted)")
        return nil
      }
      return .days(days)
    }
    return .seconds(amount * scale)
  }

  /// The years a script's clock may start in: after the Unix epoch (entry ids hold
  /// milliseconds since it) and within four-digit years.
  static let startYears = 1970...9999

  mutating func localDateTime(_ node: YNode) -> DateComponents? {
    guard let text = string(node, "start") else { return nil }
    func fail(_ why: String) -> DateComponents? {
      report(
        node.position,
        "start is a local date-time YYYY-MM-DDTHH:MM[:SS] without a zone, got \(node.quoted)\(why)")
      return nil
    }
    // Read as text, exactly: 4-2-2 digits, `T`, 2:2[:2] digits.
    let characters = Array(text.utf8)
    let shape = characters.count == 16 ? "dddd-dd-ddTdd:dd" : "dddd-dd-ddTdd:dd:dd"
    guard characters.count == shape.utf8.count,
      zip(characters, shape.utf8).allSatisfy({ c, s in s == UInt8(ascii: "d") ? (48...57).contains(c) : c == s
      })
    else { return fail("") }
    func field(_ offset: Int, _ length: Int) -> Int {
      characters[offset..<offset + length].reduce(0) { $0 * 10 + Int($1 - 48) }
    }
    let (year, month, day) = (field(0, 4), field(5, 2), field(8, 2))
    let (hour, minute) = (field(11, 2), field(14, 2))
    let second = characters.count == 19 ? field(17, 2) : 0
    guard Self.startYears.contains(year) else {
      return fail(" (years \(Self.startYears.lowerBound)…\(Self.startYears.upperBound))")
    }
    guard (1...12).contains(month) else { return fail(" (no month \(month))") }
    // Days in a month are the same in every zone; UTC always exists.
    let gregorian = ManualClock.gregorian(in: TimeZone(identifier: "UTC") ?? .current)
    let daysInMonth =
      gregorian.date(from: DateComponents(year: year, month: month)).flatMap {
        gregorian.range(of: .day, in: .month, for: $0)?.count
      } ?? 31
    guard (1...daysInMonth).contains(day) else {
      return fail(
        " (\(String(year).leftPadded(to: 4))-\(String(month).leftPadded(to: 2)) has \(daysInMonth) days)")
    }
    guard hour <= 23, minute <= 59, second <= 59 else { return fail(" (no such time of day)") }
    return DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
  }
}
