import Foundation

/// What the entries list shows of an entry, and what it needs to order and number it:
/// a list of a month can hold thousands of these, so a store reads only this much (the
/// whole entry is read when one is edited).
public struct MoodEntrySummary: Sendable, Hashable, Identifiable {
  public var id: UUID
  public var date: Date
  public var createdAt: Date
  public var score: Int
  /// The primary emotion.
  public var emotion: MoodLabel?

  public init(id: UUID, date: Date, createdAt: Date, score: Int, emotion: MoodLabel?) {
    self.id = id
    self.date = date
    self.createdAt = createdAt
    self.score = score
    self.emotion = emotion
  }

  public init(_ entry: MoodEntry) {
    self.init(
      id: entry.id, date: entry.date, createdAt: entry.createdAt, score: entry.score, emotion: entry.emotion)
  }
}

/// One row of the entries list: the entry and its option id, the local date-time
/// `YYYY-MM-DDTHH:MM`, with `-2`, `-3`… for later entries of the same minute.
public struct MoodEntryListing: Sendable, Hashable, Identifiable {
  public var id: String
  public var entry: MoodEntrySummary

  public init(id: String, entry: MoodEntrySummary) {
    self.id = id
    self.entry = entry
  }

  /// The local day, `YYYY-MM-DD`, read off the id.
  public var day: Substring { id.prefix(10) }
  /// The local time, `HH:MM`, read off the id.
  public var time: Substring { id.dropFirst(11).prefix(5) }

  /// The listing of `entries` (ascending by date, then save order, as the repository
  /// reads them), newest first. Within a minute, entries are numbered by date, then by
  /// when they were created, then in the order given: an edit keeps date and creation
  /// time, so it does not renumber them (only entries saved at the very same instant,
  /// which a script's still clock can make, fall back to the save order).
  public static func newestFirst(_ entries: [MoodEntrySummary], in calendar: Calendar) -> [MoodEntryListing] {
    func before(_ a: (offset: Int, element: MoodEntrySummary), _ b: (offset: Int, element: MoodEntrySummary))
      -> Bool
    {
      (a.element.date, a.element.createdAt, a.offset) < (b.element.date, b.element.createdAt, b.offset)
    }
    // A store's order is nearly always this order already; sorting is for the ties.
    let inOrder = zip(entries, entries.dropFirst()).allSatisfy { a, b in
      (a.date, a.createdAt) <= (b.date, b.createdAt)
    }
    let ascending = inOrder ? entries : entries.enumerated().sorted(by: before).map(\.element)
    var minutes = LocalMinutes(calendar)
    var listings: [MoodEntryListing] = []
    listings.reserveCapacity(ascending.count)
    var previous = ""
    var number = 0
    for entry in ascending {
      // Ascending, so the entries of one minute are next to each other.
      let minute = minutes.text(entry.date)
      number = minute == previous ? number + 1 : 1
      previous = minute
      listings.append(MoodEntryListing(id: number == 1 ? minute : "\(minute)-\(number)", entry: entry))
    }
    listings.reverse()
    return listings
  }

  /// `YYYY-MM-DDTHH:MM` in the calendar's time zone.
  public static func localMinute(_ date: Date, in calendar: Calendar) -> String {
    var minutes = LocalMinutes(calendar)
    return minutes.text(date)
  }
}

/// `YYYY-MM-DDTHH:MM` of many dates in one time zone, by arithmetic on the zone's
/// offset: asking the calendar for each date's components cost about a microsecond
/// apiece, the largest part of listing a busy month. The offset is asked for once and
/// reused until the zone's next transition, so dates in ascending order ask again only
/// where the offset may change. Calendars other than the Gregorian ask the calendar.
struct LocalMinutes {
  private let calendar: Calendar
  private let gregorian: Bool
  /// The offset from UTC in seconds, valid from `validFrom` up to (not including)
  /// `validUntil`.
  private var offset = 0
  private var validFrom = Date.distantFuture
  private var validUntil = Date.distantPast

  init(_ calendar: Calendar) {
    self.calendar = calendar
    gregorian = calendar.identifier == .gregorian
  }

  mutating func text(_ date: Date) -> String {
    // From 1600 (before 1582 the calendar counts Julian days, which the arithmetic does
    // not) through 9999-12-30 (four-digit years).
    guard gregorian, date.timeIntervalSince1970 >= -11_676_096_000,
      date.timeIntervalSince1970 < 253_402_128_000
    else { return Self.asked(date, calendar) }
    if date < validFrom || date >= validUntil {
      let zone = calendar.timeZone
      offset = zone.secondsFromGMT(for: date)
      validFrom = date
      validUntil = zone.nextDaylightSavingTimeTransition(after: date) ?? .distantFuture
    }
    let local = Int(date.timeIntervalSince1970.rounded(.down)) + offset
    let days = (local >= 0 ? local : local - 86_399) / 86_400
    let secondOfDay = local - days * 86_400
    let day = MoodDay(dayNumber: days)
    let hour = secondOfDay / 3_600
    let minute = secondOfDay % 3_600 / 60
    // `YYYY-MM-DDTHH:MM`, written as bytes: interpolation cost as much as the rest.
    return String(unsafeUninitializedCapacity: 16) { out in
      func put(_ value: Int, _ digits: Int, at start: Int) {
        var value = value
        for index in stride(from: start + digits - 1, through: start, by: -1) {
          out[index] = UInt8(ascii: "0") + UInt8(value % 10)
          value /= 10
        }
      }
      put(day.year, 4, at: 0)
      out[4] = UInt8(ascii: "-")
      put(day.month, 2, at: 5)
      out[7] = UInt8(ascii: "-")
      put(day.day, 2, at: 8)
      out[10] = UInt8(ascii: "T")
      put(hour, 2, at: 11)
      out[13] = UInt8(ascii: ":")
      put(minute, 2, at: 14)
      return 16
    }
  }

  /// What the calendar says, for calendars and dates the arithmetic does not cover.
  static func asked(_ date: Date, _ calendar: Calendar) -> String {
    let parts = calendar.dateComponents([.hour, .minute], from: date)
    return "\(MoodDay(date, in: calendar))T\(twoDigits(parts.hour ?? 0)):\(twoDigits(parts.minute ?? 0))"
  }

  static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
