import Foundation
import StrictJSON

extension GrowthBook {
  /// GrowthBook's targeting condition language (a MongoDB-like subset), evaluated against
  /// `attributes` exactly as the JS SDK's `evalCondition` does, JS coercions included.
  ///
  /// Keys are operators (`$and`, `$or`, `$nor`, `$not`) or dotted attribute paths; a
  /// path's value is a literal to compare with or an object of operators. `savedGroups`
  /// holds the member lists that `$inGroup` and `$notInGroup` refer to by id.
  ///
  /// One deliberate difference: a literal object compares equal to an attribute with the
  /// same members in any order (the JS SDK compares `JSON.stringify` output, which is
  /// sensitive to member order that JSON itself does not define).
  public static func evalCondition(
    _ attributes: JSONValue, _ condition: JSONValue, savedGroups: [String: [JSONValue]] = [:]
  ) -> Bool {
    CompiledCondition(condition).matches(attributes, savedGroups: savedGroups)
  }

  /// GrowthBook's `paddedVersionString`: a form of a version in which plain string
  /// comparison orders versions (numeric parts left-padded, `~` marking a release).
  public static func paddedVersionString(_ input: JSONValue) -> String {
    var text: String
    switch input {
    case .number: text = input.jsString
    case .string(let value) where !value.isEmpty: text = value
    default: text = "0"
    }
    if text.hasPrefix("v") { text.removeFirst() }
    if let plus = text.firstIndex(of: "+") { text = String(text[..<plus]) }
    var parts = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "-" || $0 == "." })
      .map(String.init)
    // "~" sorts after every other ASCII character, so 1.0.0 > 1.0.0-beta.
    if parts.count == 3 { parts.append("~") }
    return parts.map { part in
      let isNumeric = !part.isEmpty && part.allSatisfy { $0.isASCII && $0.isNumber }
      return isNumeric && part.count < 5 ? String(repeating: " ", count: 5 - part.count) + part : part
    }.joined(separator: "-")
  }
}

extension JSONValue {
  /// `members[key]`; a few attributes are scanned rather than hashed, which is faster for
  /// the handful an assignment reads.
  @inline(__always)
  static func member(_ key: String, of members: [String: JSONValue]) -> JSONValue? {
    guard members.count <= 8 else { return members[key] }
    // Lengths first: most names differ in length, which is cheaper to see.
    let length = key.utf8.count
    for (name, value) in members where name.utf8.count == length && name == key { return value }
    return nil
  }

  /// The value at a dotted path, or null when any step is missing (JS `getPath`).
  func value(atPath path: String) -> JSONValue {
    value(atComponents: path.split(separator: ".", omittingEmptySubsequences: false))
  }

  /// The value at a path already split on dots.
  func value<Part: StringProtocol>(atComponents parts: [Part]) -> JSONValue {
    var current = self
    for part in parts {
      switch current {
      case .object(let members):
        guard let next = members[String(part)] else { return .null }
        current = next
      case .array(let items):
        // JS objects include arrays: `"0" in list` and `"length" in list` both hold.
        if part == "length" {
          current = .number(Double(items.count))
        } else if let index = Int(part), index >= 0, index < items.count, String(index) == part {
          current = items[index]
        } else {
          return .null
        }
      default:
        return .null
      }
    }
    return current
  }
}

/// A targeting condition parsed once: paths split on dots and operator objects told
/// from literals ahead of time, so evaluating it for many users repeats no parsing.
/// `GrowthBook.evalCondition` compiles and evaluates; an experiment keeps its compiled
/// condition.
public struct CompiledCondition: Sendable {
  private let root: Node

  public init(_ condition: JSONValue) { root = Node(condition) }

  /// Whether `attributes` satisfies the condition.
  public func matches(_ attributes: JSONValue, savedGroups: [String: [JSONValue]] = [:]) -> Bool {
    root.evaluate(attributes, ConditionEvaluator(savedGroups: savedGroups))
  }

  /// Whether an attribute object satisfies the condition (the common case, without
  /// wrapping the members first).
  public func matches(attributes: [String: JSONValue], savedGroups: [String: [JSONValue]] = [:]) -> Bool {
    root.evaluate(members: attributes, ConditionEvaluator(savedGroups: savedGroups))
  }

  /// A condition: its clauses all hold. Anything but an object has no clauses.
  fileprivate final class Node: Sendable {
    let clauses: [Clause]
    /// The same clauses when each is a test of a top-level attribute (the common case):
    /// read straight from the attribute object, without building a JSON value of it.
    let attributeTests: [AttributeTest]?
    /// Their names' lengths in UTF-8, to pass over other names cheaply.
    let attributeLengths: [Int]

    init(_ condition: JSONValue) {
      guard case .object(let members) = condition else {
        clauses = []
        attributeTests = []
        attributeLengths = []
        return
      }
      let clauses: [Clause] = members.map { key, value in
        switch key {
        case "$or": .or(Self.list(value))
        case "$nor": .nor(Self.list(value))
        case "$and": .and(Self.list(value))
        case "$not": .not(Node(value))
        default: .path(Path(key), Test(value))
        }
      }
      self.clauses = clauses
      var tests: [AttributeTest]? = []
      for clause in clauses {
        guard case .path(let path, let test) = clause, path.rest.isEmpty else {
          tests = nil
          break
        }
        tests?.append(AttributeTest(name: path.first, test: test))
      }
      attributeTests = tests
      attributeLengths = tests?.map(\.length) ?? []
    }

    /// Nil when the value is not a list (the clause then has nothing to check).
    static func list(_ value: JSONValue) -> [Node]? {
      guard case .array(let items) = value else { return nil }
      return items.map(Node.init)
    }

    /// `evaluate(.object(members))`, reading single-step paths straight from `members`.
    func evaluate(members: [String: JSONValue], _ evaluator: ConditionEvaluator) -> Bool {
      guard let attributeTests else { return evaluate(.object(members), evaluator) }
      let count = attributeTests.count
      guard count <= 64, members.count <= 8 else {
        for test in attributeTests where !test.evaluate(members: members, evaluator) { return false }
        return true
      }
      // A few attributes: one pass over them, each checked by the test naming it (names
      // are unique), then the tests of attributes the user lacks, against null.
      var seen: UInt64 = 0
      for (name, value) in members {
        let length = name.utf8.count
        for index in 0..<count where attributeLengths[index] == length {
          guard attributeTests[index].name == name else { continue }
          seen |= 1 << UInt64(index)
          if !attributeTests[index].test.evaluate(value, evaluator) { return false }
          break
        }
      }
      for index in 0..<count where seen & (1 << UInt64(index)) == 0 {
        if !attributeTests[index].test.evaluate(.null, evaluator) { return false }
      }
      return true
    }

    func evaluate(_ object: JSONValue, _ evaluator: ConditionEvaluator) -> Bool {
      for clause in clauses {
        switch clause {
        case .or(let list):
          if !Self.any(list, object, evaluator) { return false }
        case .nor(let list):
          if Self.any(list, object, evaluator) { return false }
        case .and(let list):
          if let list, !list.allSatisfy({ $0.evaluate(object, evaluator) }) { return false }
        case .not(let node):
          if node.evaluate(object, evaluator) { return false }
        case .path(let path, let test):
          if !test.evaluate(path.value(in: object), evaluator) { return false }
        }
      }
      return true
    }

    /// `$or`: an empty or missing list holds.
    static func any(_ list: [Node]?, _ object: JSONValue, _ evaluator: ConditionEvaluator) -> Bool {
      guard let list, !list.isEmpty else { return true }
      return list.contains { $0.evaluate(object, evaluator) }
    }
  }

  /// A test of one top-level attribute. A class, so reading one for each user copies
  /// nothing.
  fileprivate final class AttributeTest: Sendable {
    let name: String
    /// The name's length in UTF-8.
    let length: Int
    let test: Test

    init(name: String, test: Test) {
      self.name = name
      length = name.utf8.count
      self.test = test
    }

    @inline(__always)
    func evaluate(members: [String: JSONValue], _ evaluator: ConditionEvaluator) -> Bool {
      test.evaluate(JSONValue.member(name, of: members) ?? .null, evaluator)
    }
  }

  fileprivate enum Clause: Sendable {
    case or([Node]?)
    case nor([Node]?)
    case and([Node]?)
    case not(Node)
    case path(Path, Test)
  }

  /// A dotted attribute path, split once.
  fileprivate struct Path: Sendable {
    var first: String
    var rest: [String]

    init(_ text: String) {
      let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
      first = parts[0]
      rest = Array(parts.dropFirst())
    }

    func value(in object: JSONValue) -> JSONValue {
      if rest.isEmpty, case .object(let members) = object { return members[first] ?? .null }
      return object.value(atComponents: [first] + rest)
    }
  }

  /// What a path's value is checked against: a literal, or operators. Classes with
  /// their operands prepared, so checking one for each user copies nothing.
  fileprivate final class Test: Sendable {
    /// The literal compared with, when the value is not an operator object.
    let literal: JSONValue?
    /// The literal when it is text (compared as is with a text attribute).
    let literalText: String?
    let checks: [Check]

    init(_ value: JSONValue) {
      if case .object(let members) = value, ConditionEvaluator.isOperatorObject(value) {
        literal = nil
        literalText = nil
        checks = members.map { Check(ConditionOperator(rawValue: $0.key) ?? .unknown, $0.value) }
      } else {
        literal = value
        if case .string(let text) = value { literalText = text } else { literalText = nil }
        checks = []
      }
    }

    @inline(__always)
    func evaluate(_ actual: JSONValue, _ evaluator: ConditionEvaluator) -> Bool {
      if let literal {
        // A text literal against a text attribute: compared as is (JS `String(value)`).
        if let literalText, case .string(let value) = actual {
          return JavaScript.sameCodeUnits(value, literalText)
        }
        return evaluator.evaluateValue(literal, actual)
      }
      for check in checks where !check.evaluate(actual, evaluator) { return false }
      return true
    }
  }

  /// One operator and its operand, with the common shapes prepared: `$in`/`$nin` of
  /// texts and comparisons with a number. Other operands go the general way.
  fileprivate final class Check: Sendable {
    enum Shape { case texts, number, general }

    let op: ConditionOperator
    let operand: JSONValue
    let shape: Shape
    /// For `texts`: the listed texts as UTF-8 (JS compares code units, so bytes do);
    /// `negated` for `$nin`.
    let texts: [[UInt8]]
    let negated: Bool
    /// For `number`: the operand.
    let number: Double

    init(_ op: ConditionOperator, _ operand: JSONValue) {
      self.op = op
      self.operand = operand
      negated = op == .nin
      var texts: [[UInt8]] = []
      var number = 0.0
      var shape = Shape.general
      switch (op, operand) {
      case (.in, .array(let items)), (.nin, .array(let items)):
        texts = items.compactMap { item -> [UInt8]? in
          if case .string(let text) = item { return Array(text.utf8) }
          return nil
        }
        if texts.count == items.count { shape = .texts }
      case (.eq, .number(let value)), (.ne, .number(let value)), (.lt, .number(let value)),
        (.lte, .number(let value)), (.gt, .number(let value)), (.gte, .number(let value)):
        number = value
        shape = .number
      default:
        break
      }
      self.texts = texts
      self.number = number
      self.shape = shape
    }

    @inline(__always)
    func evaluate(_ actual: JSONValue, _ evaluator: ConditionEvaluator) -> Bool {
      switch shape {
      case .texts:
        // Only a text attribute is in a list of texts (JS `===`); a list attribute matches
        // by any of its items, the general way.
        switch actual {
        case .string(var value):
          let found = value.withUTF8 { bytes in
            texts.contains { text in
              text.count == bytes.count
                && (bytes.isEmpty
                  || text.withUnsafeBufferPointer {
                    memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0
                  })
            }
          }
          return found != negated
        case .array: return evaluator.evaluateOperator(op, actual, operand)
        default: return negated
        }
      case .number:
        // Between numbers JS comparisons are IEEE comparisons (false with NaN).
        guard case .number(let value) = actual else { return evaluator.evaluateOperator(op, actual, operand) }
        switch op {
        case .eq: return value == number
        case .ne: return value != number
        case .lt: return value < number
        case .lte: return value <= number
        case .gt: return value > number
        default: return value >= number
        }
      case .general:
        return evaluator.evaluateOperator(op, actual, operand)
      }
    }
  }
}

/// A condition operator, resolved from its name once.
enum ConditionOperator: String, Sendable {
  case veq = "$veq"
  case vne = "$vne"
  case vgt = "$vgt"
  case vgte = "$vgte"
  case vlt = "$vlt"
  case vlte = "$vlte"
  case eq = "$eq"
  case ne = "$ne"
  case lt = "$lt"
  case lte = "$lte"
  case gt = "$gt"
  case gte = "$gte"
  case exists = "$exists"
  case `in` = "$in"
  case ini = "$ini"
  case nin = "$nin"
  case nini = "$nini"
  case inGroup = "$inGroup"
  case notInGroup = "$notInGroup"
  case not = "$not"
  case size = "$size"
  case elemMatch = "$elemMatch"
  case all = "$all"
  case alli = "$alli"
  case regex = "$regex"
  case regexi = "$regexi"
  case type = "$type"
  /// Any other name: it fails closed.
  case unknown
}

private struct ConditionEvaluator {
  let savedGroups: [String: [JSONValue]]

  func evaluate(_ object: JSONValue, _ condition: JSONValue) -> Bool {
    // Conditions are JSON objects; anything else has no clauses to fail.
    guard case .object(let clauses) = condition else { return true }
    for (key, value) in clauses {
      switch key {
      case "$or": if !evaluateOr(object, value) { return false }
      case "$nor": if evaluateOr(object, value) { return false }
      case "$and": if !evaluateAnd(object, value) { return false }
      case "$not": if evaluate(object, value) { return false }
      default: if !evaluateValue(value, object.value(atPath: key)) { return false }
      }
    }
    return true
  }

  private func evaluateOr(_ object: JSONValue, _ conditions: JSONValue) -> Bool {
    guard case .array(let list) = conditions, !list.isEmpty else { return true }
    return list.contains { evaluate(object, $0) }
  }

  private func evaluateAnd(_ object: JSONValue, _ conditions: JSONValue) -> Bool {
    guard case .array(let list) = conditions else { return true }
    return list.allSatisfy { evaluate(object, $0) }
  }

  func evaluateValue(_ condition: JSONValue, _ value: JSONValue, insensitive: Bool = false)
    -> Bool
  {
    switch condition {
    case .string(let expected):
      if insensitive { return value.jsString.lowercased() == expected.lowercased() }
      return JavaScript.sameCodeUnits(value.jsString, expected)
    case .number(let expected):
      return value.jsNumber == expected
    case .bool(let expected):
      return value != .null && value.isTruthy == expected
    case .null:
      return value == .null
    case .array:
      return value == condition
    case .object(let operators):
      guard Self.isOperatorObject(condition) else { return value == condition }
      return operators.allSatisfy {
        evaluateOperator(ConditionOperator(rawValue: $0.key) ?? .unknown, value, $0.value)
      }
    }
  }

  static func isOperatorObject(_ value: JSONValue) -> Bool {
    guard case .object(let members) = value, !members.isEmpty else { return false }
    return members.keys.allSatisfy { $0.hasPrefix("$") }
  }

  func evaluateOperator(_ op: ConditionOperator, _ actual: JSONValue, _ expected: JSONValue) -> Bool {
    switch op {
    case .veq, .vne, .vgt, .vgte, .vlt, .vlte:
      return compareVersions(op, actual, expected)
    case .eq: return actual.jsStrictEquals(expected)
    case .ne: return !actual.jsStrictEquals(expected)
    case .lt: return actual.jsLessThan(expected) == true
    case .lte: return expected.jsLessThan(actual) == false
    case .gt: return expected.jsLessThan(actual) == true
    case .gte: return actual.jsLessThan(expected) == false
    case .exists: return expected.isTruthy ? actual != .null : actual == .null
    case .in, .ini, .nin, .nini:
      guard case .array(let list) = expected else { return false }
      let found = isIn(actual, list, insensitive: op == .ini || op == .nini)
      return op == .nin || op == .nini ? !found : found
    case .inGroup: return isIn(actual, savedGroups[expected.jsString] ?? [], insensitive: false)
    case .notInGroup: return !isIn(actual, savedGroups[expected.jsString] ?? [], insensitive: false)
    case .not: return !evaluateValue(expected, actual)
    case .size:
      guard case .array(let items) = actual else { return false }
      return evaluateValue(expected, .number(Double(items.count)))
    case .elemMatch: return elementMatches(actual, expected)
    case .all, .alli:
      guard case .array(let list) = expected else { return false }
      return containsAll(actual, list, insensitive: op == .alli)
    case .regex, .regexi:
      let options: NSRegularExpression.Options = op == .regexi ? [.caseInsensitive] : []
      // An invalid pattern matches nothing, as the JS SDK's try/catch does.
      guard let regex = try? NSRegularExpression(pattern: expected.jsString, options: options) else {
        return false
      }
      let text = actual.jsString
      return regex.firstMatch(in: text, range: NSRange(location: 0, length: text.utf16.count)) != nil
    case .type: return expected.jsStrictEquals(.string(typeName(actual)))
    case .unknown:
      // Unknown operators fail closed, as in the JS SDK.
      return false
    }
  }

  private func compareVersions(_ op: ConditionOperator, _ actual: JSONValue, _ expected: JSONValue) -> Bool {
    let a = GrowthBook.paddedVersionString(actual).utf16
    let b = GrowthBook.paddedVersionString(expected).utf16
    switch op {
    case .veq: return a.elementsEqual(b)
    case .vne: return !a.elementsEqual(b)
    case .vgt: return b.lexicographicallyPrecedes(a)
    case .vgte: return !a.lexicographicallyPrecedes(b)
    case .vlt: return a.lexicographicallyPrecedes(b)
    default: return !b.lexicographicallyPrecedes(a)
    }
  }

  private func typeName(_ value: JSONValue) -> String {
    switch value {
    case .null: return "null"
    case .bool: return "boolean"
    case .number: return "number"
    case .string: return "string"
    case .array: return "array"
    case .object: return "object"
    }
  }

  /// `$in`: an array attribute matches if any of its items is listed.
  private func isIn(_ actual: JSONValue, _ list: [JSONValue], insensitive: Bool) -> Bool {
    func fold(_ value: JSONValue) -> JSONValue {
      if insensitive, case .string(let text) = value { return .string(text.lowercased()) }
      return value
    }
    guard case .array(let items) = actual else {
      let item = fold(actual)
      return list.contains { item.jsStrictEquals(fold($0)) }
    }
    return items.contains { item in list.contains { fold(item).jsStrictEquals(fold($0)) } }
  }

  private func containsAll(_ actual: JSONValue, _ list: [JSONValue], insensitive: Bool) -> Bool {
    guard case .array(let items) = actual else { return false }
    return list.allSatisfy { expected in
      items.contains { evaluateValue(expected, $0, insensitive: insensitive) }
    }
  }

  private func elementMatches(_ actual: JSONValue, _ expected: JSONValue) -> Bool {
    guard case .array(let items) = actual else { return false }
    let isOperator = Self.isOperatorObject(expected)
    // Falsy items never match, as in the JS SDK (`actual[i] && check(actual[i])`).
    return items.contains { item in
      item.isTruthy && (isOperator ? evaluateValue(expected, item) : evaluate(item, expected))
    }
  }
}
