import Foundation
import Yams

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

  public init(_ position: SourcePosition, _ message: String) {
    self.position = position
    self.message = message
  }

  public var description: String { "\(position): \(message)" }
}

/// A YAML value with its position, after `${VAR}` substitution and type resolution.
struct YNode: Sendable {
  indirect enum Value: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case list([YNode])
    case map([(key: String, keyPosition: SourcePosition, value: YNode)])
  }

  var value: Value
  var position: SourcePosition
  /// The scalar's text as written (after substitution), for messages and for option
  /// ids, which compare as text.
  var text: String

  var typeName: String {
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
  var quoted: String {
    switch value {
    case .list, .map: typeName
    default: "'\(text)'"
    }
  }

  /// The type with the value quoted, for "got …" in messages: `text 'high'`, `a list`.
  var described: String {
    switch value {
    case .null, .list, .map: typeName
    default: "\(typeName) '\(text)'"
    }
  }

  var string: String? {
    if case .string(let string) = value { return string }
    return nil
  }

  /// Text for a scalar of any type (option ids and typed text compare as text).
  var scalarText: String? {
    switch value {
    case .string, .number, .bool: text
    default: nil
    }
  }

  var entries: [(key: String, keyPosition: SourcePosition, value: YNode)]? {
    if case .map(let entries) = value { return entries }
    return nil
  }

  var items: [YNode]? {
    if case .list(let items) = value { return items }
    return nil
  }
}

/// Reads YAML text into `YNode`s, replacing `${NAME}` in scalars before their type is
/// read, so an unquoted `${SCORE}` can stand for a number.
struct YAMLReader {
  let file: String
  let variables: [String: String]
  var problems: [ScriptProblem] = []

  init(file: String, variables: [String: String]) {
    self.file = file
    self.variables = variables
  }

  mutating func read(_ text: String) -> YNode? {
    do {
      guard let node = try Yams.compose(yaml: text) else {
        problems.append(ScriptProblem(SourcePosition(file: file, line: 1, column: 1), "the file is empty"))
        return nil
      }
      return convert(node)
    } catch let error as YamlError {
      problems.append(Self.problem(for: error, file: file))
      return nil
    } catch {
      problems.append(
        ScriptProblem(SourcePosition(file: file, line: 1, column: 1), "cannot read YAML: \(error)"))
      return nil
    }
  }

  static func problem(for error: YamlError, file: String) -> ScriptProblem {
    switch error {
    case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
      .composer(let context, let problem, let mark, _):
      let detail = context.map { "\($0.text) \(problem)" } ?? problem
      return ScriptProblem(
        SourcePosition(file: file, line: mark.line, column: mark.column), "invalid YAML: \(detail)")
    default:
      return ScriptProblem(SourcePosition(file: file, line: 1, column: 1), "invalid YAML: \(error)")
    }
  }

  private func position(_ mark: Mark?) -> SourcePosition {
    SourcePosition(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1)
  }

  private mutating func convert(_ node: Node) -> YNode {
    let position = position(node.mark)
    switch node {
    case .scalar(let scalar):
      let text = substitute(scalar.string, at: position)
      let value: YNode.Value = scalar.style == .plain ? Self.resolvePlain(text) : .string(text)
      return YNode(value: value, position: position, text: text)
    case .sequence(let sequence):
      return YNode(value: .list(sequence.map { convert($0) }), position: position, text: "")
    case .mapping(let mapping):
      var entries: [(key: String, keyPosition: SourcePosition, value: YNode)] = []
      for (key, value) in mapping {
        let keyNode = convert(key)
        if entries.contains(where: { $0.key == keyNode.text }) {
          problems.append(ScriptProblem(keyNode.position, "duplicate key '\(keyNode.text)'"))
        }
        entries.append((keyNode.text, keyNode.position, convert(value)))
      }
      return YNode(value: .map(entries), position: position, text: "")
    case .alias:
      problems.append(ScriptProblem(position, "YAML aliases are not supported in scripts"))
      return YNode(value: .null, position: position, text: "")
    }
  }

  /// YAML 1.2 core schema for plain scalars; everything else is text (so `2026-03-02T08:00`
  /// and `yes` stay text).
  static func resolvePlain(_ text: String) -> YNode.Value {
    switch text {
    case "", "~", "null", "Null", "NULL": return .null
    case "true", "True", "TRUE": return .bool(true)
    case "false", "False", "FALSE": return .bool(false)
    default: break
    }
    let isNumeric = text.first.map { $0.isNumber || $0 == "-" || $0 == "+" || $0 == "." } ?? false
    if isNumeric, let number = Double(text), number.isFinite { return .number(number) }
    return .string(text)
  }

  private mutating func substitute(_ text: String, at position: SourcePosition) -> String {
    guard text.contains("${") else { return text }
    var result = ""
    var rest = Substring(text)
    while let start = rest.range(of: "${") {
      result += rest[..<start.lowerBound]
      guard let end = rest[start.upperBound...].firstIndex(of: "}") else {
        problems.append(ScriptProblem(position, "unterminated variable in '\(text)'"))
        return text
      }
      let name = String(rest[start.upperBound..<end])
      if let value = variables[name] {
        result += value
      } else {
        let known = variables.keys.sorted()
        let hint = known.isEmpty ? "no variables are defined" : "defined: \(known.joined(separator: ", "))"
        problems.append(ScriptProblem(position, "undefined variable ${\(name)} (\(hint))"))
      }
      rest = rest[rest.index(after: end)...]
    }
    return result + rest
  }
}
