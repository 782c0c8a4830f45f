import Foundation
import StrictJSON

/// One step into a condition: a member name or a list index.
public enum ConditionPathElement: Sendable, Hashable, CustomStringConvertible {
  case key(String)
  case index(Int)

  public var description: String {
    switch self {
    case .key(let key): key
    case .index(let index): "[\(index)]"
    }
  }
}

/// Something in a condition that the evaluator would silently treat as "no match":
/// an unknown operator, an operand of the wrong shape, a pattern that does not compile.
public struct ConditionProblem: Sendable, Equatable, CustomStringConvertible {
  /// Where in the condition, from its root.
  public var path: [ConditionPathElement]
  public var message: String

  public init(path: [ConditionPathElement], message: String) {
    self.path = path
    self.message = message
  }

  public var description: String {
    path.isEmpty ? message : "\(path.map(\.description).joined(separator: ".")): \(message)"
  }
}

extension GrowthBook {
  /// Operators that combine conditions, at the top of a condition.
  public static let logicalOperators: [String] = ["$and", "$or", "$nor", "$not"]

  /// Operators that test an attribute's value (`{skill: {$in: [beginner]}}`): every one
  /// `evalCondition` knows. An operator not listed here fails closed when evaluated.
  public static let valueOperators: [String] = [
    "$eq", "$ne", "$lt", "$lte", "$gt", "$gte", "$exists", "$in", "$ini", "$nin", "$nini", "$all", "$alli",
    "$size", "$elemMatch", "$not", "$regex", "$regexi", "$type", "$inGroup", "$notInGroup", "$veq", "$vne",
    "$vgt", "$vgte", "$vlt", "$vlte",
  ]

  /// The names `$type` compares with.
  public static let typeNames: [String] = ["null", "boolean", "number", "string", "array", "object"]

  /// Mistakes in a condition that evaluation would not report (it fails closed, as the
  /// JS SDK does): unknown operators, list operators without a list, bad patterns.
  /// Empty when the condition is well formed.
  public static func conditionProblems(_ condition: JSONValue) -> [ConditionProblem] {
    var validator = ConditionValidator()
    validator.condition(condition, at: [])
    return validator.problems
  }
}

private struct ConditionValidator {
  var problems: [ConditionProblem] = []

  mutating func report(_ path: [ConditionPathElement], _ message: String) {
    problems.append(ConditionProblem(path: path, message: message))
  }

  mutating func condition(_ value: JSONValue, at path: [ConditionPathElement]) {
    guard case .object(let clauses) = value else {
      report(path, "a condition is a mapping of attributes to values or operators, got \(describe(value))")
      return
    }
    for (key, operand) in clauses.sorted(by: { $0.key < $1.key }) {
      let here = path + [.key(key)]
      switch key {
      case "$and", "$or", "$nor":
        guard case .array(let items) = operand else {
          report(here, "\(key) takes a list of conditions, got \(describe(operand))")
          continue
        }
        for (index, item) in items.enumerated() { condition(item, at: here + [.index(index)]) }
      case "$not":
        condition(operand, at: here)
      default:
        if key.hasPrefix("$") {
          report(
            here,
            "unknown operator '\(key)' (conditions start with an attribute or one of "
              + "\(GrowthBook.logicalOperators.joined(separator: ", ")))")
        } else {
          attributeValue(operand, at: here)
        }
      }
    }
  }

  /// What an attribute is compared with: a literal, or a mapping of operators.
  mutating func attributeValue(_ value: JSONValue, at path: [ConditionPathElement]) {
    guard case .object(let members) = value, members.keys.contains(where: { $0.hasPrefix("$") }) else {
      return
    }
    if let field = members.keys.sorted().first(where: { !$0.hasPrefix("$") }) {
      report(
        path + [.key(field)],
        "'\(field)' is mixed with operators; a mapping is either all operators or a literal value")
      return
    }
    for (op, operand) in members.sorted(by: { $0.key < $1.key }) {
      operatorOperand(op, operand, at: path + [.key(op)])
    }
  }

  mutating func operatorOperand(_ op: String, _ operand: JSONValue, at path: [ConditionPathElement]) {
    switch op {
    case "$in", "$ini", "$nin", "$nini", "$all", "$alli":
      if case .array = operand { return }
      report(path, "\(op) takes a list, got \(describe(operand))")
    case "$not", "$size":
      attributeValue(operand, at: path)
    case "$elemMatch":
      if case .object(let members) = operand, members.keys.contains(where: { $0.hasPrefix("$") }),
        members.keys.allSatisfy({ $0.hasPrefix("$") })
      {
        attributeValue(operand, at: path)
      } else {
        condition(operand, at: path)
      }
    case "$regex", "$regexi":
      guard case .string(let pattern) = operand else {
        report(path, "\(op) takes a regular expression as text, got \(describe(operand))")
        return
      }
      if (try? NSRegularExpression(pattern: pattern)) == nil {
        report(path, "\(op) pattern '\(pattern)' is not a valid regular expression")
      }
    case "$type":
      guard case .string(let name) = operand, GrowthBook.typeNames.contains(name) else {
        report(
          path, "$type takes one of \(GrowthBook.typeNames.joined(separator: ", ")), got \(describe(operand))"
        )
        return
      }
    case "$exists":
      if case .bool = operand { return }
      report(path, "$exists takes true or false, got \(describe(operand))")
    default:
      if !GrowthBook.valueOperators.contains(op) {
        report(
          path, "unknown operator '\(op)' (operators: \(GrowthBook.valueOperators.joined(separator: ", ")))")
      }
    }
  }

  func describe(_ value: JSONValue) -> String {
    switch value {
    case .null: "null"
    case .bool(let bool): "\(bool)"
    case .number: "the number \(value.jsString)"
    case .string(let text): "'\(text)'"
    case .array: "a list"
    case .object: "a mapping"
    }
  }
}
