import FlowKit
import Foundation
import Reminders
import Testing

/// A day's reminder, checked against the time-zone database itself: every zone the
/// system knows, a whole year, every time on the hour and half hour.
///
/// The answer expected is computed without any calendar: from the zone's UTC offsets
/// alone (`secondsFromGMT(for:)`), a day's time `HH:MM` is the first instant whose local
/// wall time (the instant plus its offset) is at or after that date's `HH:MM`. That is the
/// time itself, its first pass when the clocks pass it twice, or the end of the gap when
/// they jump over it (a reminder in a DST gap fires at the next valid time).
@Suite("Reminders: each day's occurrence in every time zone")
struct OccurrenceTests {
  /// 2026-01-01 as days since 1970-01-01.
  static let firstDay = 20_454
  static let days = 365
  static let times = (0..<48).map { (hour: $0 / 2, minute: $0 % 2 * 30) }
  /// Zones whose 2026 gap touches midnight (Cuba, Lebanon, Egypt, Chile jump 00:00 → 01:00;
  /// Greenland 23:00 → 00:00), and one with an ordinary gap at 02:00.
  static let named = [
    "America/Havana", "Asia/Beirut", "Africa/Cairo", "America/Santiago", "America/Nuuk", "Europe/Berlin",
  ]

  /// One zone's offsets from two days before 2026 to two days after it, as segments of
  /// constant offset: read at every UTC hour, and minute by minute within an hour whose
  /// end differs from its start (no zone changes its offset twice within an hour).
  struct Offsets {
    var segments: [(start: Int, offset: Int)] = []
    var end: Int

    init(_ zone: TimeZone) {
      func offset(_ seconds: Int) -> Int {
        zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
      }
      let start = (OccurrenceTests.firstDay - 2) * 86_400
      end = (OccurrenceTests.firstDay + OccurrenceTests.days + 2) * 86_400
      var current = offset(start)
      segments = [(start, current)]
      for hour in stride(from: start + 3_600, through: end, by: 3_600) where offset(hour) != current {
        var minute = hour - 3_540
        while offset(minute) == current { minute += 60 }
        current = offset(minute)
        segments.append((minute, current))
      }
    }

    /// The first instant (seconds since 1970) whose wall time is `wall` (seconds since
    /// 1970 of the local date and time, read as if it were UTC) or later.
    func firstInstant(atOrAfterWall wall: Int) -> Int? {
      for (index, segment) in segments.enumerated() {
        let segmentEnd = index + 1 < segments.count ? segments[index + 1].start : end
        // Within a segment the wall time grows with the instant.
        if segmentEnd + segment.offset > wall { return max(segment.start, wall - segment.offset) }
      }
      return nil
    }

    /// Zones with equal signatures show every instant of the year at the same wall time.
    var signature: String { segments.map { "\($0.start)\($0.offset >= 0 ? "+" : "")\($0.offset)" }.joined() }
  }

  /// Days since 1970 as a proleptic Gregorian date (Howard Hinnant's `civil_from_days`).
  static func civil(_ days: Int) -> (year: Int, month: Int, day: Int) {
    let shifted = days + 719_468
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let shiftedMonth = (5 * dayOfYear + 2) / 153
    let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
    let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }

  /// What each day of 2026 at each time should get in `zone`, by day then time.
  static func expected(_ offsets: Offsets) -> [[Date]] {
    (0..<days).map { index in
      times.map { time in
        let wall = (firstDay + index) * 86_400 + time.hour * 3_600 + time.minute * 60
        return Date(timeIntervalSince1970: TimeInterval(offsets.firstInstant(atOrAfterWall: wall)!))
      }
    }
  }

  static func describe(_ date: Date?, in calendar: Calendar) -> String {
    guard let date else { return "none" }
    let local = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
    return String(
      format: "%04d-%02d-%02d %02d:%02d:%02d local (%.0f)", local.year!, local.month!, local.day!,
      local.hour!, local.minute!, local.second!, date.timeIntervalSince1970)
  }

  @Test func theOracleSeesTheGapsThatTouchMidnight() {
    func wall(_ zone: String, _ local: (Int, Int, Int, Int, Int)) -> Int? {
      let days = (Self.firstDay..<(Self.firstDay + Self.days)).first { day in
        let date = Self.civil(day)
        return (date.year, date.month, date.day) == (local.0, local.1, local.2)
      }!
      return Offsets(TimeZone(identifier: zone)!).firstInstant(
        atOrAfterWall: days * 86_400 + local.3 * 3_600 + local.4 * 60)
    }
    // 2026-03-08 00:30 in Havana does not exist: 01:00 CDT (05:00 UTC) is the first time after it.
    #expect(wall("America/Havana", (2026, 3, 8, 0, 30)) == 1_772_946_000)
    // 2026-03-28 23:30 in Nuuk does not exist: the next day's 00:00 (01:00 UTC) is.
    #expect(wall("America/Nuuk", (2026, 3, 28, 23, 30)) == 1_774_746_000)
    // 2026-11-01 01:30 in New York happens twice: the first is 05:30 UTC.
    #expect(wall("America/New_York", (2026, 11, 1, 1, 30)) == 1_793_511_000)
  }

  /// Every known zone, grouped by its offsets over 2026: zones in one group show every
  /// instant at the same local time, so one zone of each group is asked for every day
  /// and time (the zones named above always among them).
  @Test func everyZoneGetsEachDaysTimeOrTheEndOfItsGap() {
    var groups: [String: (zone: String, offsets: Offsets, members: Int)] = [:]
    for identifier in TimeZone.knownTimeZoneIdentifiers {
      guard let zone = TimeZone(identifier: identifier) else { continue }
      let offsets = Offsets(zone)
      let signature = offsets.signature
      if let group = groups[signature] {
        let zone = Self.named.contains(identifier) ? identifier : group.zone
        groups[signature] = (zone, group.offsets, group.members + 1)
      } else {
        groups[signature] = (identifier, offsets, 1)
      }
    }
    let checked = groups.values.sorted { $0.zone < $1.zone }
    #expect(Set(Self.named).isSubset(of: checked.map(\.zone)))
    #expect(checked.reduce(0) { $0 + $1.members } == TimeZone.knownTimeZoneIdentifiers.count)
    // Most zones keep one offset all year; the test would be idle without the others.
    #expect(checked.filter { $0.offsets.segments.count > 1 }.count >= 20)

    var wrong: [String] = []
    for group in checked {
      let calendar = ManualClock.gregorian(in: TimeZone(identifier: group.zone)!)
      let expected = Self.expected(group.offsets)
      for index in 0..<Self.days {
        let date = Self.civil(Self.firstDay + index)
        for (position, time) in Self.times.enumerated() {
          let actual = LocalNotificationScheduler.occurrence(
            hour: time.hour, minute: time.minute, year: date.year, month: date.month, day: date.day,
            calendar: calendar)
          guard actual != expected[index][position] else { continue }
          wrong.append(
            "\(group.zone) \(date) \(time.hour):\(time.minute): \(Self.describe(actual, in: calendar)), "
              + "expected \(Self.describe(expected[index][position], in: calendar))")
        }
      }
    }
    #expect(wrong.isEmpty, "\(wrong.count) wrong, e.g.:\n\(wrong.prefix(20).joined(separator: "\n"))")
  }

  /// What the scheduler does: from one delivery to the next through the whole year, in
  /// the zones named above, every time on the hour and half hour.
  @Test(arguments: named)
  func deliveryAfterDeliveryGetsEachDayOnce(zone: String) {
    let offsets = Offsets(TimeZone(identifier: zone)!)
    let calendar = ManualClock.gregorian(in: TimeZone(identifier: zone)!)
    let expected = Self.expected(offsets)
    var wrong: [String] = []
    for (position, time) in Self.times.enumerated() {
      // 2025-12-31 23:59:59, after every time of that day.
      var after = Date(
        timeIntervalSince1970: TimeInterval(
          offsets.firstInstant(atOrAfterWall: (Self.firstDay - 1) * 86_400 + 86_399)!))
      var delivered: [Date] = []
      for _ in 0..<Self.days {
        guard
          let next = LocalNotificationScheduler.nextOccurrence(
            hour: time.hour, minute: time.minute, after: after, calendar: calendar)
        else { break }
        delivered.append(next)
        after = next
      }
      let wanted = expected.map { $0[position] }
      if delivered != wanted {
        let first =
          (0..<min(delivered.count, wanted.count)).first { delivered[$0] != wanted[$0] }
          ?? min(delivered.count, wanted.count)
        wrong.append(
          "\(time.hour):\(time.minute): delivery \(first + 1) at "
            + "\(Self.describe(first < delivered.count ? delivered[first] : nil, in: calendar)), expected "
            + "\(Self.describe(first < wanted.count ? wanted[first] : nil, in: calendar))")
      }
    }
    #expect(wrong.isEmpty, "\(zone):\n\(wrong.joined(separator: "\n"))")
  }
}
