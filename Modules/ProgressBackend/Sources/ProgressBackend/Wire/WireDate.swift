import Foundation

/// The dates of the wire: days (`YYYY-MM-DD`) and the day an ISO 8601 date-time names.
enum WireDate {
  /// The calendar day a date or date-time names, as written (its own offset's day):
  /// `YYYY-MM-DD`, optionally followed by `THH:MM[:SS[.fff]]` and `Z` or `±HH:MM`.
  static let utcGregorian: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar
  }()

  static func day(of text: String) -> String? {
    var text = text
    text.makeContiguousUTF8()
    return text.utf8.withContiguousStorageIfAvailable { day(of: $0) } ?? nil
  }

  /// The same over UTF-8: only ASCII (digits and separators) can be a date.
  static func day(of bytes: UnsafeBufferPointer<UInt8>) -> String? {
    guard bytes.count >= 10, isDay(UnsafeBufferPointer(rebasing: bytes[0..<10])) else { return nil }
    let prefix = String(decoding: UnsafeBufferPointer(rebasing: bytes[0..<10]), as: UTF8.self)
    guard bytes.count > 10 else { return prefix }
    var index = 10
    func take(_ byte: UInt8) -> Bool {
      guard index < bytes.count, bytes[index] == byte else { return false }
      index += 1
      return true
    }
    func number(_ digits: Int, max: Int) -> Bool {
      guard index + digits <= bytes.count else { return false }
      var value = 0
      for offset in 0..<digits {
        let byte = bytes[index + offset]
        guard (0x30...0x39).contains(byte) else { return false }
        value = value * 10 + Int(byte - 0x30)
      }
      guard value <= max else { return false }
      index += digits
      return true
    }
    guard take(UInt8(ascii: "T")) || take(UInt8(ascii: " ")) else { return nil }
    guard number(2, max: 23), take(UInt8(ascii: ":")), number(2, max: 59) else { return nil }
    if take(UInt8(ascii: ":")) {
      guard number(2, max: 60) else { return nil }
      if take(UInt8(ascii: ".")) {
        let start = index
        while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
        guard index > start else { return nil }
      }
    }
    if index == bytes.count || take(UInt8(ascii: "Z")) { return index == bytes.count ? prefix : nil }
    guard take(UInt8(ascii: "+")) || take(UInt8(ascii: "-")), number(2, max: 23) else { return nil }
    _ = take(UInt8(ascii: ":"))
    guard number(2, max: 59), index == bytes.count else { return nil }
    return prefix
  }

  static func isDay(_ text: String) -> Bool {
    var text = text
    text.makeContiguousUTF8()
    return text.utf8.withContiguousStorageIfAvailable { isDay($0) } ?? false
  }

  /// `YYYY-MM-DD` naming a day of the Gregorian calendar.
  static func isDay(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else {
      return false
    }
    func value(_ range: Range<Int>) -> Int? {
      var value = 0
      for index in range {
        guard (0x30...0x39).contains(bytes[index]) else { return nil }
        value = value * 10 + Int(bytes[index] - 0x30)
      }
      return value
    }
    guard let year = value(0..<4), let month = value(5..<7), let day = value(8..<10),
      (1...12).contains(month),
      day >= 1
    else { return false }
    // From 1583 on the calendar is the Gregorian one throughout; before, Foundation's
    // follows the Julian calendar, so it is asked.
    guard year >= 1583 else {
      guard let date = utcGregorian.date(from: DateComponents(year: year, month: month, day: day)) else {
        return false
      }
      return utcGregorian.component(.day, from: date) == day
        && utcGregorian.component(.month, from: date) == month
    }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    return day <= days
  }
}
