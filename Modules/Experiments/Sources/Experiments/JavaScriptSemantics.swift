import Foundation
import StrictJSON

// GrowthBook's reference SDK is JavaScript and its conditions lean on JS coercions
// (`value + ""`, `value * 1`, `<` between mixed types). These helpers reproduce them for
// JSON values so that assignments and targeting match the JS SDK exactly.
extension JSONValue {
  /// JS truthiness.
  var isTruthy: Bool {
    switch self {
    case .null: return false
    case .bool(let value): return value
    case .number(let value): return value != 0 && !value.isNaN
    case .string(let value): return !value.isEmpty
    case .array, .object: return true
    }
  }

  /// JS `String(value)`.
  var jsString: String {
    switch self {
    case .null: return "null"
    case .bool(let value): return value ? "true" : "false"
    case .number(let value): return JavaScript.numberString(value)
    case .string(let value): return value
    case .array(let items):
      return items.map { $0 == .null ? "" : $0.jsString }.joined(separator: ",")
    case .object: return "[object Object]"
    }
  }

  /// JS `ToPrimitive`: arrays and objects become their string form.
  var jsPrimitive: JSONValue {
    switch self {
    case .array, .object: return .string(jsString)
    default: return self
    }
  }

  /// JS `Number(value)`.
  var jsNumber: Double {
    switch self {
    case .null: return 0
    case .bool(let value): return value ? 1 : 0
    case .number(let value): return value
    case .string(let value): return JavaScript.stringToNumber(value)
    case .array, .object: return jsPrimitive.jsNumber
    }
  }

  /// JS `===` (and `Array.prototype.includes`): arrays and objects are never equal
  /// because parsed JSON never shares references.
  func jsStrictEquals(_ other: JSONValue) -> Bool {
    switch (self, other) {
    case (.null, .null): return true
    case (.bool(let a), .bool(let b)): return a == b
    case (.number(let a), .number(let b)): return a == b
    case (.string(let a), .string(let b)): return JavaScript.sameCodeUnits(a, b)
    default: return false
    }
  }

  /// JS abstract relational comparison `self < other`; nil where JS yields `undefined`
  /// (a NaN operand), which makes `<`, `<=`, `>` and `>=` all false.
  func jsLessThan(_ other: JSONValue) -> Bool? {
    let left = jsPrimitive
    let right = other.jsPrimitive
    if case .string(let a) = left, case .string(let b) = right {
      return a.utf16.lexicographicallyPrecedes(b.utf16)
    }
    let a = left.jsNumber
    let b = right.jsNumber
    if a.isNaN || b.isNaN { return nil }
    return a < b
  }
}

enum JavaScript {
  /// JS string equality: the same UTF-16 code units, which is the same UTF-8 bytes (both
  /// encode the same scalars exactly). Unlike Swift's `==`, canonically equivalent but
  /// differently written strings differ, as in JS.
  @inline(__always)
  static func sameCodeUnits(_ a: String, _ b: String) -> Bool {
    guard a.utf8.count == b.utf8.count else { return false }
    var a = a
    var b = b
    // Native strings are contiguous UTF-8 already (small ones are copied to the stack).
    return a.withUTF8 { left in
      b.withUTF8 { right in
        left.count == right.count
          && (left.isEmpty || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0)
      }
    }
  }

  /// JS `Number.prototype.toString()`: shortest round-trip digits, laid out by ECMAScript's
  /// Number::toString rules (`1e21`, `1e-7`, `0.000001`, `100`).
  static func numberString(_ value: Double) -> String {
    if value.isNaN { return "NaN" }
    if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
    if value == 0 { return "0" }
    let sign = value < 0 ? "-" : ""
    // Swift's description also prints the shortest round-trip digits; only the layout differs.
    let text = "\(value.magnitude)"
    var mantissa = Substring(text)
    var exponent = 0
    if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
      mantissa = text[..<e]
      exponent = Int(text[text.index(after: e)...]) ?? 0
    }
    let parts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
    let integerPart = String(parts[0])
    let fractionPart = parts.count > 1 ? String(parts[1]) : ""
    var digits = integerPart + fractionPart
    var point = integerPart.count + exponent
    while digits.hasPrefix("0") {
      digits.removeFirst()
      point -= 1
    }
    while digits.hasSuffix("0") { digits.removeLast() }
    let k = digits.count
    let n = point
    let body: String
    if k <= n && n <= 21 {
      body = digits + String(repeating: "0", count: n - k)
    } else if 0 < n && n <= 21 {
      body = String(digits.prefix(n)) + "." + String(digits.dropFirst(n))
    } else if -6 < n && n <= 0 {
      body = "0." + String(repeating: "0", count: -n) + digits
    } else {
      let e = n - 1
      let exponentText = (e < 0 ? "-" : "+") + String(e.magnitude)
      let head = String(digits.prefix(1))
      let tail = digits.dropFirst()
      body = (tail.isEmpty ? head : head + "." + tail) + "e" + exponentText
    }
    return sign + body
  }

  /// JS `Number(string)`: trimmed; empty is 0; decimal, `0x`/`0o`/`0b` and `Infinity`
  /// literals; anything else is NaN.
  static func stringToNumber(_ text: String) -> Double {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    if trimmed.isEmpty { return 0 }
    let lower = trimmed.lowercased()
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] where lower.hasPrefix(prefix) {
      let digits = lower.dropFirst(2)
      guard !digits.isEmpty, let value = UInt64(digits, radix: radix) else { return .nan }
      return Double(value)
    }
    var body = Substring(trimmed)
    var sign = 1.0
    if let first = body.first, first == "+" || first == "-" {
      sign = first == "-" ? -1 : 1
      body = body.dropFirst()
    }
    if body == "Infinity" { return sign * .infinity }
    guard isDecimalLiteral(body), let value = Double(body) else { return .nan }
    return sign * value
  }

  private static func isDecimalLiteral(_ text: Substring) -> Bool {
    var index = text.startIndex
    var mantissaDigits = 0
    func skipDigits() -> Int {
      var count = 0
      while index < text.endIndex, text[index].isASCII, text[index].isNumber {
        index = text.index(after: index)
        count += 1
      }
      return count
    }
    mantissaDigits += skipDigits()
    if index < text.endIndex, text[index] == "." {
      index = text.index(after: index)
      mantissaDigits += skipDigits()
    }
    guard mantissaDigits > 0 else { return false }
    if index < text.endIndex, text[index] == "e" || text[index] == "E" {
      index = text.index(after: index)
      if index < text.endIndex, text[index] == "+" || text[index] == "-" {
        index = text.index(after: index)
      }
      guard skipDigits() > 0 else { return false }
    }
    return index == text.endIndex
  }

  /// JS `parseInt(text)` (radix 10): leading whitespace, an optional sign, then as many
  /// digits as there are; nil where JS gives NaN.
  static func parseInt(_ text: Substring) -> Int? {
    var body = text.drop(while: { $0.isWhitespace })
    var negative = false
    if let first = body.first, first == "+" || first == "-" {
      negative = first == "-"
      body = body.dropFirst()
    }
    let digits = body.prefix(while: { $0.isASCII && $0.isNumber })
    guard !digits.isEmpty, let value = Int(digits) else { return nil }
    return negative ? -value : value
  }
}
