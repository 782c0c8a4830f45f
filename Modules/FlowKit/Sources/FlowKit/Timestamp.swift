import Foundation

/// ISO 8601 in UTC to the second (`2026-03-02T07:00:04Z`), as settings and events store
/// times. It prints what `Date.ISO8601FormatStyle()` prints, by arithmetic: that style
/// builds calendar components for every date, and a run formats one for its first launch
/// and one for every event it writes.
public enum Timestamp {
  /// The Gregorian year, month and day `days` days after 1970-01-01 (negative before), by
  /// Howard Hinnant's `civil_from_days`.
  public static func civilDate(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }

  /// `date` to the whole second below it; dates outside years 1–9999 fall back to
  /// Foundation's formatting.
  public static func string(from date: Date) -> String {
    // 0001-01-01 and 9999-12-31T23:59:59 in seconds since 1970.
    guard let seconds = Int(exactly: date.timeIntervalSince1970.rounded(.down)),
      (-62_135_596_800...253_402_300_799).contains(seconds)
    else {
      return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: false))
    }
    let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    let time = seconds - days * 86_400
    let (year, month, day) = civilDate(daysSince1970: days)
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let paddedYear = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
    return
      "\(paddedYear)-\(two(month))-\(two(day))T\(two(time / 3_600)):\(two(time / 60 % 60)):\(two(time % 60))Z"
  }
}
