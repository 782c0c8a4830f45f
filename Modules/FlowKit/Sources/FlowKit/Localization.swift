import Foundation

/// A problem in a `.strings` file, with its line and column (from 1).
public struct StringsFileError: Error, Equatable, CustomStringConvertible {
  public var line: Int
  public var column: Int
  public var message: String

  public init(line: Int, column: Int, message: String) {
    self.line = line
    self.column = column
    self.message = message
  }

  public var description: String { "\(line):\(column): \(message)" }
}

/// One language's strings, read from a file in Apple's `.strings` format
/// (`"Source text" = "Übersetzung";`, `/* comments */` and `// comments`), keyed by
/// the English text the flows show. Foundation's `Bundle` localization does not find
/// SwiftPM resources' `.lproj` folders on Linux, so the files are read here; on Apple
/// platforms the same files sit in `Localizable.strings` and Xcode reads them too.
public struct StringTable: Sendable, Equatable {
  public var locale: String
  public var entries: [String: String]

  public init(locale: String, entries: [String: String]) {
    self.locale = locale
    self.entries = entries
  }

  /// Parses the text of a `.strings` file. A key given twice is an error (the second
  /// would silently win in Apple's reader).
  public init(locale: String, parsing text: String) throws(StringsFileError) {
    self.locale = locale
    var parser = StringsFileParser(text)
    entries = try parser.parse()
  }
}

private struct StringsFileParser {
  let scalars: [Unicode.Scalar]
  var index = 0
  var line = 1
  var column = 1

  init(_ text: String) { scalars = Array(text.unicodeScalars) }

  mutating func parse() throws(StringsFileError) -> [String: String] {
    var entries: [String: String] = [:]
    while true {
      try skipSpaceAndComments()
      guard index < scalars.count else { return entries }
      let (keyLine, keyColumn) = (line, column)
      let key = try token("a key")
      try skipSpaceAndComments()
      try expect("=")
      try skipSpaceAndComments()
      let value = try token("a value")
      try skipSpaceAndComments()
      try expect(";")
      guard entries[key] == nil else {
        throw StringsFileError(line: keyLine, column: keyColumn, message: "key \"\(key)\" is given twice")
      }
      entries[key] = value
    }
  }

  func fail(_ message: String) -> StringsFileError {
    StringsFileError(line: line, column: column, message: message)
  }

  mutating func advance() {
    if scalars[index] == "\n" {
      line += 1
      column = 1
    } else {
      column += 1
    }
    index += 1
  }

  mutating func skipSpaceAndComments() throws(StringsFileError) {
    while index < scalars.count {
      let scalar = scalars[index]
      if scalar.properties.isWhitespace {
        advance()
      } else if scalar == "/", index + 1 < scalars.count, scalars[index + 1] == "*" {
        let start = fail("a comment that is never closed")
        advance()
        advance()
        while index + 1 < scalars.count, !(scalars[index] == "*" && scalars[index + 1] == "/") { advance() }
        guard index + 1 < scalars.count else { throw start }
        advance()
        advance()
      } else if scalar == "/", index + 1 < scalars.count, scalars[index + 1] == "/" {
        while index < scalars.count, scalars[index] != "\n" { advance() }
      } else {
        return
      }
    }
  }

  mutating func expect(_ character: Unicode.Scalar) throws(StringsFileError) {
    guard index < scalars.count, scalars[index] == character else {
      let found = index < scalars.count ? "'\(scalars[index])'" : "the end of the file"
      throw fail("expected '\(character)', found \(found)")
    }
    advance()
  }

  /// A quoted string with escapes, or an unquoted word of letters, digits, `_.-`.
  mutating func token(_ what: String) throws(StringsFileError) -> String {
    guard index < scalars.count else { throw fail("expected \(what), found the end of the file") }
    guard scalars[index] == "\"" else {
      var word = String.UnicodeScalarView()
      while index < scalars.count,
        scalars[index].properties.isAlphabetic || ("0"..."9").contains(scalars[index])
          || "_.-".unicodeScalars.contains(scalars[index])
      {
        word.append(scalars[index])
        advance()
      }
      guard !word.isEmpty else { throw fail("expected \(what) in double quotes, found '\(scalars[index])'") }
      return String(word)
    }
    let opening = fail("a string that is never closed")
    advance()
    var text = String.UnicodeScalarView()
    while true {
      guard index < scalars.count else { throw opening }
      let scalar = scalars[index]
      if scalar == "\"" {
        advance()
        return String(text)
      }
      if scalar == "\\" {
        advance()
        guard index < scalars.count else { throw opening }
        let escaped = scalars[index]
        switch escaped {
        case "n": text.append("\n")
        case "t": text.append("\t")
        case "r": text.append("\r")
        case "\"", "\\", "'": text.append(escaped)
        case "U", "u":
          var hex = ""
          for _ in 0..<4 {
            advance()
            guard index < scalars.count, scalars[index].properties.isASCIIHexDigit else {
              throw fail("\\U needs four hex digits")
            }
            hex.unicodeScalars.append(scalars[index])
          }
          guard let value = UInt32(hex, radix: 16), let decoded = Unicode.Scalar(value) else {
            throw fail("\\U\(hex) is not a character")
          }
          text.append(decoded)
        default: throw fail("unknown escape '\\\(escaped)'")
        }
        advance()
        continue
      }
      text.append(scalar)
      advance()
    }
  }
}

/// Turns a screen's English text into the person's language with one `StringTable`.
/// A text is found by its whole English source; a key holding format specifiers
/// (`%@`, `%d`, `%lld`, `%1$@`) matches text made from it ("Step %@ of %@"), and what
/// filled the specifiers is put into the translation, translated itself where the
/// table has it. Text the table lacks stays English: a missing translation never stops
/// a run (a test finds it).
public struct ScreenLocalizer: Sendable {
  public let table: StringTable
  private let patterns: [Pattern]

  private struct Pattern: @unchecked Sendable {
    let expression: NSRegularExpression
    let translation: String
  }

  public init(table: StringTable) {
    self.table = table
    // The longest literal text first: the most specific key wins.
    let formatKeys = table.entries.keys.filter { Self.hasSpecifier($0) }.sorted {
      (Self.literalLength($0), $0) > (Self.literalLength($1), $1)
    }
    patterns = formatKeys.compactMap { key in
      guard
        let expression = try? NSRegularExpression(
          pattern: Self.regex(for: key), options: [.dotMatchesLineSeparators])
      else { return nil }
      return Pattern(expression: expression, translation: table.entries[key]!)
    }
  }

  public var locale: String { table.locale }

  private static let specifier = try! NSRegularExpression(
    pattern: "%(?:[0-9]+\\$)?(?:@|d|lld|ld|i|u|f|\\.[0-9]f)")

  static func hasSpecifier(_ text: String) -> Bool {
    specifier.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
  }

  private static func literalLength(_ key: String) -> Int {
    specifier.stringByReplacingMatches(in: key, range: NSRange(key.startIndex..., in: key), withTemplate: "")
      .count
  }

  private static func regex(for key: String) -> String {
    var pattern = "^"
    var last = key.startIndex
    for match in specifier.matches(in: key, range: NSRange(key.startIndex..., in: key)) {
      let range = Range(match.range, in: key)!
      pattern += NSRegularExpression.escapedPattern(for: String(key[last..<range.lowerBound])) + "(.+?)"
      last = range.upperBound
    }
    return pattern + NSRegularExpression.escapedPattern(for: String(key[last...])) + "$"
  }

  /// The translation of `text`, nil when the table has none.
  public func translation(of text: String) -> String? {
    if let exact = table.entries[text] { return exact }
    if text.isEmpty { return text }
    // A list the flow joined ("Calm, Proud"): each item by itself.
    if text.contains(", ") {
      let items = text.components(separatedBy: ", ").map { table.entries[$0] }
      if items.allSatisfy({ $0 != nil }) { return items.map { $0! }.joined(separator: ", ") }
    }
    let range = NSRange(text.startIndex..., in: text)
    for pattern in patterns {
      guard let match = pattern.expression.firstMatch(in: text, range: range) else { continue }
      let arguments = (1..<match.numberOfRanges).map { group in
        let argument = String(text[Range(match.range(at: group), in: text)!])
        return table.entries[argument] ?? argument
      }
      return Self.fill(pattern.translation, with: arguments)
    }
    return nil
  }

  /// `text` in the table's language, or `text` itself when the table lacks it.
  public func translate(_ text: String) -> String { translation(of: text) ?? text }

  /// Puts `arguments` into a format's specifiers, in order or by position (`%2$@`).
  public static func fill(_ format: String, with arguments: [String]) -> String {
    var result = ""
    var last = format.startIndex
    var next = 0
    for match in specifier.matches(in: format, range: NSRange(format.startIndex..., in: format)) {
      let range = Range(match.range, in: format)!
      result += format[last..<range.lowerBound]
      let spec = format[range]
      var argumentIndex = next
      if let dollar = spec.firstIndex(of: "$"),
        let position = Int(spec[spec.index(after: spec.startIndex)..<dollar])
      {
        argumentIndex = position - 1
      } else {
        next += 1
      }
      result += arguments.indices.contains(argumentIndex) ? arguments[argumentIndex] : ""
      last = range.upperBound
    }
    return result + format[last...]
  }

  /// The screen with every text a person reads translated; ids and values unchanged
  /// (but an info element's text, which is copy).
  public func localize(_ screen: Screen) -> Screen {
    var screen = screen
    screen.title = translate(screen.title)
    screen.message = screen.message.map(translate)
    for index in screen.elements.indices {
      var element = screen.elements[index]
      element.label = translate(element.label)
      switch element.kind {
      case .choice(let options, let multiple):
        element.kind = .choice(
          options: options.map { ChoiceOption(id: $0.id, label: translate($0.label)) }, multiple: multiple)
      case .slider(let range, let step, let caption):
        element.kind = .slider(range: range, step: step, caption: caption.map(translate))
      case .info:
        if case .text(let text) = element.value { element.value = .text(translate(text)) }
      default: break
      }
      screen.elements[index] = element
    }
    if var alert = screen.alert {
      alert.title = translate(alert.title)
      alert.message = translate(alert.message)
      alert.buttons = alert.buttons.map { AlertButton(id: $0.id, label: translate($0.label)) }
      screen.alert = alert
    }
    return screen
  }
}

/// String tables that ship as resources of the modules whose screens show them.
public enum StringTables {
  /// FlowKit's own: the words every feature's buttons share (Continue, OK, Cancel…).
  public static var flowKit: Bundle { .module }

  /// Where a module keeps its `locale` table inside its bundle.
  public static func path(_ locale: String) -> String { "Localization/\(locale).lproj/Localizable.strings" }

  /// The `locale` table in `bundle`; nil when the module ships none for that language.
  /// A file that does not parse throws, with its place in the file.
  public static func load(_ locale: String, from bundle: Bundle) throws -> StringTable? {
    guard
      let url = bundle.url(
        forResource: "Localizable", withExtension: "strings", subdirectory: "Localization/\(locale).lproj")
    else { return nil }
    return try StringTable(locale: locale, parsing: String(contentsOf: url, encoding: .utf8))
  }
}
