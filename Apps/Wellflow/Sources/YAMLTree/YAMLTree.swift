import CYaml
import Foundation

/// A place in a script file, as people and editors read it: `file:line:column`.
public struct SourcePosition: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
  public var file: String
  public var line: Int
  public var column: Int

  public init(file: String, line: Int, column: Int) {
    self.file = file
    self.line = line
    self.column = column
  }

  public var description: String { "\(file):\(line):\(column)" }
}

/// A problem found while reading or checking a script.
public struct ScriptProblem: Error, Sendable, Hashable, CustomStringConvertible {
  public var position: SourcePosition
  public var message: String

  /// A message is one line: control characters in it (from a quoted value) are escaped.
  public init(_ position: SourcePosition, _ message: String) {
    self.position = position
    self.message =
      message.unicodeScalars.contains {
        $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{2028}"
      }
      ? clipped(message, limit: .max) : message
  }

  public var description: String { "\(position): \(message)" }
}

/// A YAML value with its position, after `${VAR}` substitution and type resolution.
package struct YNode: Sendable {
  package typealias Entry = (key: String, keyPosition: SourcePosition, value: YNode)

  package indirect enum Value: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case list([YNode])
    case map([(key: String, keyPosition: SourcePosition, value: YNode)])
  }

  package var value: Value
  package var position: SourcePosition
  /// The scalar's text as written (after substitution), for messages and for option
  /// ids, which compare as text.
  package var text: String
  /// A plain (unquoted) scalar, whose type is read from its text.
  package var isPlain = false

  package init(value: Value, position: SourcePosition, text: String, isPlain: Bool = false) {
    self.value = value
    self.position = position
    self.text = text
    self.isPlain = isPlain
  }

  package var typeName: String {
    switch value {
    case .null: "null"
    case .bool: "a boolean"
    case .number: "a number"
    case .string: "text"
    case .list: "a list"
    case .map: "a mapping"
    }
  }

  /// The value quoted for an error message.
  package var quoted: String {
    switch value {
    case .list, .map: typeName
    default: "'\(clipped(text))'"
    }
  }

  /// The type with the value quoted, for "got …" in messages: `text 'high'`, `a list`.
  package var described: String {
    switch value {
    case .null, .list, .map: typeName
    default: "\(typeName) '\(clipped(text))'"
    }
  }

  package var string: String? {
    if case .string(let string) = value { return string }
    return nil
  }

  /// Text for a scalar of any type (option ids and typed text compare as text).
  package var scalarText: String? {
    switch value {
    case .string, .number, .bool: text
    default: nil
    }
  }

  package var entries: [(key: String, keyPosition: SourcePosition, value: YNode)]? {
    if case .map(let entries) = value { return entries }
    return nil
  }

  package var items: [YNode]? {
    if case .list(let items) = value { return items }
    return nil
  }
}

/// Reads YAML text into `YNode`s through libyaml's event parser, never expanding
/// anything: anchors and aliases, duplicate keys, control characters, nesting past
/// `maxDepth` and files past `maxBytes` are refused at their own line and column, in
/// time and memory linear in the file's size. Plain scalars keep their text so `${NAME}`
/// can be replaced before their type is read (`substituted(_:)`).
package struct YAMLReader {
  /// Deeper than any script needs, shallow enough that no reader recursion can overflow.
  package static let maxDepth = 64
  package static let maxBytes = 4 << 20
  /// A file with more problems than this stops being read.
  package static let maxProblems = 50

  package let file: String
  package private(set) var problems: [ScriptProblem] = []

  package init(file: String) {
    self.file = file
  }

  /// Reads the file at `file`; `position` is where a caller named it (for "cannot read").
  package mutating func readFile(what: String, namedAt position: SourcePosition? = nil) -> YNode? {
    let at = position ?? SourcePosition(file: file, line: 1, column: 1)
    // `stat` itself: FileManager's attributes also look up the owner's and group's names.
    var info = stat()
    if stat(file, &info) == 0, info.st_size > Self.maxBytes {
      let size = info.st_size
      report(at, "\(what) '\(file)' is \(size) bytes; the limit is \(Self.maxBytes) bytes")
      return nil
    }
    guard let data = FileManager.default.contents(atPath: file) else {
      report(at, "cannot read \(what) '\(file)'")
      return nil
    }
    guard data.count <= Self.maxBytes else {
      report(at, "\(what) '\(file)' is \(data.count) bytes; the limit is \(Self.maxBytes) bytes")
      return nil
    }
    return read(data)
  }

  package mutating func read(_ text: String) -> YNode? { read(Data(text.utf8)) }

  package mutating func read(_ data: Data) -> YNode? {
    checkCharacters(data)
    guard problems.isEmpty else { return nil }
    return data.withUnsafeBytes { bytes in
      document(EventReader(bytes.bindMemory(to: UInt8.self)))
    }
  }

  private mutating func report(_ position: SourcePosition, _ message: String) {
    if problems.count < Self.maxProblems {
      problems.append(ScriptProblem(position, message))
    } else if problems.count == Self.maxProblems {
      problems.append(ScriptProblem(position, "more problems from here on are not listed; fix these first"))
    }
  }

  private func position(line: Int, column: Int) -> SourcePosition {
    SourcePosition(file: file, line: line, column: column)
  }

  /// Invalid UTF-8, control characters and the line breaks editors do not show as
  /// breaks (U+0085, U+2028, U+2029, which YAML readers count as new lines and so
  /// would shift every later line number).
  private mutating func checkCharacters(_ data: Data) {
    // Most files are printable ASCII with tabs and line breaks: nothing to report.
    let printable = data.withUnsafeBytes { raw in
      raw.allSatisfy { (0x20..<0x7F).contains($0) || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
    }
    if printable { return }
    var line = 1
    var column = 1
    var iterator = data.makeIterator()
    var decoder = UTF8()
    var previousWasCR = false
    var isFirst = true
    loop: while true {
      switch decoder.decode(&iterator) {
      case .emptyInput: break loop
      case .error:
        report(position(line: line, column: column), "the file is not valid UTF-8 here")
        return
      case .scalarValue(let scalar):
        defer { isFirst = false }
        switch scalar.value {
        case 0x0A:
          if !previousWasCR {
            line += 1
            column = 1
          }
          previousWasCR = false
          continue loop
        case 0x0D:
          line += 1
          column = 1
          previousWasCR = true
          continue loop
        case 0x09, 0x20..<0x7F, 0xA0..<0x2028, 0x202A..<0xFEFF, 0xFF00...0x10FFFF:
          break
        case 0xFEFF where isFirst:
          break
        default:
          let name =
            switch scalar.value {
            case 0x2028: "line separator U+2028"
            case 0x2029: "paragraph separator U+2029"
            case 0xFEFF: "byte order mark U+FEFF"
            default: "control character \(Self.codePoint(scalar))"
            }
          report(
            position(line: line, column: column),
            "\(name) is not allowed in the file (write it as \\u\(String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)) inside double quotes)"
          )
        }
        previousWasCR = false
        column += 1
      }
    }
  }

  package static func codePoint(_ scalar: Unicode.Scalar) -> String {
    "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
  }

  private mutating func document(_ events: EventReader) -> YNode? {
    do {
      var event = try events.next()
      if event.kind == .streamStart { event = try events.next() }
      guard event.kind == .documentStart else {
        report(position(line: 1, column: 1), "the file is empty")
        return nil
      }
      var anchors = 0
      guard let root = try node(events, try events.next(), depth: 0, anchors: &anchors) else { return nil }
      _ = try events.next()  // document end
      let after = try events.next()
      if after.kind == .documentStart {
        report(
          position(line: after.line, column: after.column),
          "a second YAML document starts here; a file holds one document")
      }
      return root
    } catch {
      report(position(line: error.position.line, column: error.position.column), error.message)
      return nil
    }
  }

  private mutating func node(_ events: EventReader, _ event: Event, depth: Int, anchors: inout Int)
    throws(ScriptProblem) -> YNode?
  {
    let position = position(line: event.line, column: event.column)
    if let anchor = event.anchor {
      report(
        position,
        "YAML anchors (&\(clipped(anchor))) are not allowed: write the value out where it is used")
    }
    switch event.kind {
    case .alias:
      report(
        position,
        "YAML aliases (*\(clipped(event.value))) are not allowed: write the value out here")
      return YNode(value: .null, position: position, text: "", isPlain: false)
    case .scalar:
      let value: YNode.Value = event.isPlain ? Self.resolvePlain(event.value) : .string(event.value)
      return YNode(value: value, position: position, text: event.value, isPlain: event.isPlain)
    case .sequenceStart, .mappingStart:
      guard depth < Self.maxDepth else {
        report(position, "the file nests deeper than \(Self.maxDepth) levels")
        return nil
      }
      if event.kind == .sequenceStart {
        var items: [YNode] = []
        while true {
          let next = try events.next()
          if next.kind == .sequenceEnd { break }
          guard let item = try node(events, next, depth: depth + 1, anchors: &anchors) else { return nil }
          items.append(item)
        }
        return YNode(value: .list(items), position: position, text: "", isPlain: false)
      }
      var entries: [YNode.Entry] = []
      var firstLine: [String: Int] = [:]
      while true {
        let next = try events.next()
        if next.kind == .mappingEnd { break }
        guard let key = try node(events, next, depth: depth + 1, anchors: &anchors),
          let value = try node(events, try events.next(), depth: depth + 1, anchors: &anchors)
        else { return nil }
        switch key.value {
        case .list, .map:
          report(key.position, "a key must be a single value, got \(key.typeName)")
          continue
        default: break
        }
        if let line = firstLine[key.text] {
          report(key.position, "duplicate key '\(clipped(key.text))' (first on line \(line))")
        } else {
          firstLine[key.text] = key.position.line
        }
        entries.append((key.text, key.position, value))
      }
      return YNode(value: .map(entries), position: position, text: "", isPlain: false)
    default:
      throw ScriptProblem(position, "invalid YAML: unexpected \(event.kind)")
    }
  }

  /// YAML 1.2 core schema for plain scalars; everything else is text (so `2026-03-02T08:00`
  /// and `yes` stay text). Numbers are finite; `.inf` and `.nan` stay text.
  package static func resolvePlain(_ text: String) -> YNode.Value {
    switch text {
    case "", "~", "null", "Null", "NULL": return .null
    case "true", "True", "TRUE": return .bool(true)
    case "false", "False", "FALSE": return .bool(false)
    default: break
    }
    // Bytes, not characters: this runs for every plain scalar of every script.
    func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
    let isNumeric = text.utf8.first.map { (0x30...0x39).contains($0) || "-+.".utf8.contains($0) } ?? false
    if isNumeric, text.utf8.count <= 64,
      text.utf8.allSatisfy({
        $0 < 0x80 && !isLetter($0) || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E")
      }),
      let number = Double(text), number.isFinite
    {
      return .number(number)
    }
    return .string(text)
  }
}

extension YNode {
  /// The node with `${NAME}` replaced in every scalar, plain scalars typed again after
  /// the replacement (so an unquoted `${SCORE}` can stand for a number).
  package func substituted(_ variables: [String: String], problems: inout [ScriptProblem]) -> YNode {
    switch value {
    case .list(let items):
      var copy = self
      copy.value = .list(items.map { $0.substituted(variables, problems: &problems) })
      return copy
    case .map(let entries):
      var copy = self
      copy.value = .map(
        entries.map { ($0.key, $0.keyPosition, $0.value.substituted(variables, problems: &problems)) })
      return copy
    default:
      // `$${` too: it becomes `${`. A scan of the bytes, not Foundation's `contains`,
      // which goes through NSString for every scalar of every script.
      guard Self.mayHoldVariable(text) else { return self }
      let replaced = Self.substitute(text, variables, at: position, problems: &problems)
      var copy = self
      copy.text = replaced
      copy.value = isPlain ? YAMLReader.resolvePlain(replaced) : .string(replaced)
      return copy
    }
  }

  /// Whether `text` holds `${`.
  private static func mayHoldVariable(_ text: String) -> Bool {
    var afterDollar = false
    for byte in text.utf8 {
      if afterDollar && byte == UInt8(ascii: "{") { return true }
      afterDollar = byte == UInt8(ascii: "$")
    }
    return false
  }

  private static func substitute(
    _ text: String, _ variables: [String: String], at position: SourcePosition,
    problems: inout [ScriptProblem]
  ) -> String {
    var result = ""
    var rest = Substring(text)
    while let start = rest.range(of: "${") {
      result += rest[..<start.lowerBound]
      // `$${` is a literal `${`.
      if result.last == "$" {
        result.removeLast()
        result += "${"
        rest = rest[start.upperBound...]
        continue
      }
      guard let end = rest[start.upperBound...].firstIndex(of: "}") else {
        problems.append(ScriptProblem(position, "unterminated variable in '\(clipped(text))'"))
        return text
      }
      let name = String(rest[start.upperBound..<end])
      if let value = variables[name] {
        result += value
      } else {
        let known = variables.keys.sorted()
        let hint = known.isEmpty ? "no variables are defined" : "defined: \(known.joined(separator: ", "))"
        problems.append(ScriptProblem(position, "undefined variable ${\(clipped(name))} (\(hint))"))
      }
      rest = rest[rest.index(after: end)...]
    }
    return result + rest
  }
}

/// One libyaml event, copied out of the C struct.
private struct Event {
  enum Kind: CustomStringConvertible {
    case streamStart, streamEnd, documentStart, documentEnd, alias, scalar
    case sequenceStart, sequenceEnd, mappingStart, mappingEnd, none

    var description: String {
      switch self {
      case .streamStart: "start of stream"
      case .streamEnd: "end of file"
      case .documentStart: "document start"
      case .documentEnd: "document end"
      case .alias: "alias"
      case .scalar: "value"
      case .sequenceStart: "list"
      case .sequenceEnd: "end of list"
      case .mappingStart: "mapping"
      case .mappingEnd: "end of mapping"
      case .none: "nothing"
      }
    }
  }

  var kind: Kind
  /// 1-based, as editors count.
  var line: Int
  var column: Int
  var anchor: String?
  var value = ""
  var isPlain = false
}

/// libyaml's event parser over a byte buffer that outlives it.
private final class EventReader {
  /// On the heap, where libyaml's state stays put.
  private let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
  private let bytes: UnsafeBufferPointer<UInt8>

  init(_ bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
    parser.initialize(to: yaml_parser_t())
    yaml_parser_initialize(parser)
    yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
    yaml_parser_set_input_string(parser, bytes.baseAddress, bytes.count)
  }

  deinit {
    yaml_parser_delete(parser)
    parser.deallocate()
  }

  func next() throws(ScriptProblem) -> Event {
    var event = yaml_event_t()
    guard yaml_parser_parse(parser, &event) == 1 else { throw problem() }
    defer { yaml_event_delete(&event) }
    var result = Event(
      kind: .none, line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
    switch event.type {
    case YAML_STREAM_START_EVENT: result.kind = .streamStart
    case YAML_STREAM_END_EVENT: result.kind = .streamEnd
    case YAML_DOCUMENT_START_EVENT: result.kind = .documentStart
    case YAML_DOCUMENT_END_EVENT: result.kind = .documentEnd
    case YAML_ALIAS_EVENT:
      result.kind = .alias
      result.value = Self.string(event.data.alias.anchor) ?? ""
    case YAML_SCALAR_EVENT:
      result.kind = .scalar
      result.anchor = Self.string(event.data.scalar.anchor)
      result.value = String(
        decoding: UnsafeBufferPointer(start: event.data.scalar.value, count: event.data.scalar.length),
        as: UTF8.self)
      result.isPlain = event.data.scalar.style == YAML_PLAIN_SCALAR_STYLE
    case YAML_SEQUENCE_START_EVENT:
      result.kind = .sequenceStart
      result.anchor = Self.string(event.data.sequence_start.anchor)
    case YAML_SEQUENCE_END_EVENT: result.kind = .sequenceEnd
    case YAML_MAPPING_START_EVENT:
      result.kind = .mappingStart
      result.anchor = Self.string(event.data.mapping_start.anchor)
    case YAML_MAPPING_END_EVENT: result.kind = .mappingEnd
    default: result.kind = .none
    }
    return result
  }

  private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
    pointer.map { String(cString: $0) }
  }

  private func problem() -> ScriptProblem {
    let state = parser.pointee
    let what = state.problem.map { String(cString: $0) } ?? "cannot read the file"
    if what.hasPrefix("Maximum nesting level") {
      return ScriptProblem(
        SourcePosition(
          file: "", line: Int(state.problem_mark.line) + 1, column: Int(state.problem_mark.column) + 1),
        "the file nests too deeply")
    }
    let context = state.context.map { String(cString: $0) + " " } ?? ""
    var mark = state.problem_mark
    if state.error == YAML_READER_ERROR {
      // Reader errors carry a byte offset only.
      mark = Self.mark(atByte: min(state.problem_offset, bytes.count), in: bytes)
    }
    return ScriptProblem(
      SourcePosition(file: "", line: Int(mark.line) + 1, column: Int(mark.column) + 1),
      "invalid YAML: \(context)\(what)")
  }

  private static func mark(atByte offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> yaml_mark_t {
    var mark = yaml_mark_t()
    for byte in bytes[..<offset] {
      if byte == 0x0A {
        mark.line += 1
        mark.column = 0
      } else if byte & 0xC0 != 0x80 {
        mark.column += 1
      }
    }
    mark.index = offset
    return mark
  }
}

/// A value as an error message quotes it: control characters escaped, long text cut.
package func clipped(_ text: String, limit: Int = 80) -> String {
  // Short printable ASCII, the usual case, is returned as it is.
  if text.utf8.count <= limit, text.utf8.allSatisfy({ (0x20..<0x7F).contains($0) }) { return text }
  var result = ""
  var count = 0
  for scalar in text.unicodeScalars {
    if count == limit {
      return result + "… (\(text.count) characters)"
    }
    count += 1
    switch scalar.value {
    case 0x0A: result += "\\n"
    case 0x0D: result += "\\r"
    case 0x09: result += "\\t"
    case 0x00..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0xFEFF:
      result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
    default: result.unicodeScalars.append(scalar)
    }
  }
  return result
}

extension String {
  package func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
