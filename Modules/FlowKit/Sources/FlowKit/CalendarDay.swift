import Foundation

/// A calendar day in the user's time zone; `description` is its ISO form `YYYY-MM-DD`,
/// which sorts like the days themselves. Shared so that what reads days (a feature's
/// history, `wellflow export`'s `--from`/`--to`) parses and bounds them one way.
public struct CalendarDay: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
  public let year: Int
  public let month: Int
  public let day: Int

  public init(year: Int, month: Int, day: Int) {
    self.year = year
    self.month = month
    self.day = day
  }

  /// The day `date` falls on in `calendar`'s time zone.
  public init(_ date: Date, in calendar: Calendar) {
    let parts = calendar.dateComponents([.year, .month, .day], from: date)
    self.init(year: parts.year ?? 0, month: parts.month ?? 0, day: parts.day ?? 0)
  }

  /// Parses `YYYY-MM-DD`; nil for anything else or a day the calendar does not have.
  public init?(_ text: String) {
    var text = text
    guard let day = text.withUTF8({ CalendarDay(utf8: $0) }) else { return nil }
    self = day
  }

  /// `init(_:)` on UTF-8 bytes. Plain arithmetic, because storage reads parse one of
  /// these per row, straight from the database's buffer.
  public init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
    guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
    func number(_ range: Range<Int>) -> Int? {
      var value = 0
      for byte in bytes[range] {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
      }
      return value
    }
    guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
      (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day)
    else { return nil }
    self.init(year: year, month: month, day: day)
  }

  private static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  public var description: String {
    let y = String(year).leftPadded(to: 4)
    return "\(y)-\(String(month).leftPadded(to: 2))-\(String(day).leftPadded(to: 2))"
  }

  /// Why a range of days that starts after it ends is not one, in words a person can
  /// act on (a mood history's range, an export's `--from`/`--to`).
  public static func invertedRangeMessage(start: CalendarDay, end: CalendarDay) -> String {
    "the range starts \(start), after it ends \(end); pick a start on or before the end"
  }

  public static func < (lhs: CalendarDay, rhs: CalendarDay) -> Bool {
    (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
  }

  /// Midnight at the start of this day in `calendar`'s time zone.
  public func start(in calendar: Calendar) -> Date {
    let noon = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 12))!
    return calendar.startOfDay(for: noon)
  }

  /// Day arithmetic is the same in every time zone, so it runs in UTC.
  public func adding(days: Int) -> CalendarDay {
    let date = Self.utc.date(from: DateComponents(year: year, month: month, day: day))!
    return CalendarDay(Self.utc.date(byAdding: .day, value: days, to: date)!, in: Self.utc)
  }

  /// Days since 1970-01-01 (negative before), by Howard Hinnant's `days_from_civil`.
  public var dayNumber: Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// The day `dayNumber` days after 1970-01-01 (the inverse of `dayNumber`).
  public init(dayNumber: Int) {
    let (year, month, day) = Timestamp.civilDate(daysSince1970: dayNumber)
    self.init(year: year, month: month, day: day)
  }

  /// Whole days from this day to `other` (negative when `other` is earlier).
  public func days(to other: CalendarDay) -> Int {
    let from = Self.utc.date(from: DateComponents(year: year, month: month, day: day))!
    let to = Self.utc.date(from: DateComponents(year: other.year, month: other.month, day: other.day))!
    return Self.utc.dateComponents([.day], from: from, to: to).day!
  }

  private static let utc: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar
  }()

  /// This day at the local time of day `now` has (how `mood.log` reads an ISO date).
  public func moment(atLocalTimeOf now: Date, in calendar: Calendar) -> Date {
    let time = calendar.dateComponents([.hour, .minute, .second, .nanosecond], from: now)
    let parts = DateComponents(
      year: year, month: month, day: day, hour: time.hour, minute: time.minute, second: time.second,
      nanosecond: time.nanosecond)
    return calendar.date(from: parts) ?? start(in: calendar)
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let day = CalendarDay(text) else {
      throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not YYYY-MM-DD")
    }
    self = day
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
