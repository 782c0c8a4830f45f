import Foundation

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
    ConditionEvaluator(savedGroups: savedGroups).evaluate(attributes, condition)
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
  /// The value at a dotted path, or null when any step is missing (JS `getPath`).
  func value(atPath path: String) -> JSONValue {
    var current = self
    for part in path.split(separator: ".", omittingEmptySubsequences: false) {
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

  private func evaluateValue(_ condition: JSONValue, _ value: JSONValue, insensitive: Bool = false)
    -> Bool
  {
    switch condition {
    case .string(let expected):
      if insensitive { return value.jsString.lowercased() == expected.lowercased() }
      return value.jsString.utf16.elementsEqual(expected.utf16)
    case .number(let expected):
      return value.jsNumber == expected
    case .bool(let expected):
      return value != .null && value.isTruthy == expected
    case .null:
      return value == .null
    case .array:
      return value == condition
    case .object(let operators):
      guard isOperatorObject(condition) else { return value == condition }
      return operators.allSatisfy { evaluateOperator($0.key, value, $0.value) }
    }
  }

  private func isOperatorObject(_ value: JSONValue) -> Bool {
    guard case .object(let members) = value, !members.isEmpty else { return false }
    return members.keys.allSatisfy { $0.hasPrefix("$") }
  }

  private func evaluateOperator(_ op: String, _ actual: JSONValue, _ expected: JSONValue) -> Bool {
    switch op {
    case "$veq", "$vne", "$vgt", "$vgte", "$vlt", "$vlte":
      return compareVersions(op, actual, expected)
    case "$eq": return actual.jsStrictEquals(expected)
    case "$ne": return !actual.jsStrictEquals(expected)
    case "$lt": return actual.jsLessThan(expected) == true
    case "$lte": return expected.jsLessThan(actual) == false
    case "$gt": return expected.jsLessThan(actual) == true
    case "$gte": return actual.jsLessThan(expected) == false
    case "$exists": return expected.isTruthy ? actual != .null : actual == .null
    case "$in", "$ini", "$nin", "$nini":
      guard case .array(let list) = expected else { return false }
      let found = isIn(actual, list, insensitive: op.hasSuffix("i"))
      return op.hasPrefix("$n") ? !found : found
    case "$inGroup": return isIn(actual, savedGroups[expected.jsString] ?? [], insensitive: false)
    case "$notInGroup": return !isIn(actual, savedGroups[expected.jsString] ?? [], insensitive: false)
    case "$not": return !evaluateValue(expected, actual)
    case "$size":
      guard case .array(let items) = actual else { return false }
      return evaluateValue(expected, .number(Double(items.count)))
    case "$elemMatch": return elementMatches(actual, expected)
    case "$all", "$alli":
      guard case .array(let list) = expected else { return false }
      return containsAll(actual, list, insensitive: op == "$alli")
    case "$regex", "$regexi":
      let options: NSRegularExpression.Options = op == "$regexi" ? [.caseInsensitive] : []
      // An invalid pattern matches nothing, as the JS SDK's try/catch does.
      guard let regex = try? NSRegularExpression(pattern: expected.jsString, options: options) else {
        return false
      }
      let text = actual.jsString
      return regex.firstMatch(in: text, range: NSRange(location: 0, length: text.utf16.count)) != nil
    case "$type": return expected.jsStrictEquals(.string(typeName(actual)))
    default:
      // Unknown operators fail closed, as in the JS SDK.
      return false
    }
  }

  private func compareVersions(_ op: String, _ actual: JSONValue, _ expected: JSONValue) -> Bool {
    let a = GrowthBook.paddedVersionString(actual).utf16
    let b = GrowthBook.paddedVersionString(expected).utf16
    switch op {
    case "$veq": return a.elementsEqual(b)
    case "$vne": return !a.elementsEqual(b)
    case "$vgt": return b.lexicographicallyPrecedes(a)
    case "$vgte": return !a.lexicographicallyPrecedes(b)
    case "$vlt": return a.lexicographicallyPrecedes(b)
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
    let candidates: [JSONValue]
    if case .array(let items) = actual { candidates = items } else { candidates = [actual] }
    return candidates.contains { item in list.contains { fold(item).jsStrictEquals(fold($0)) } }
  }

  private func containsAll(_ actual: JSONValue, _ list: [JSONValue], insensitive: Bool) -> Bool {
    guard case .array(let items) = actual else { return false }
    return list.allSatisfy { expected in
      items.contains { evaluateValue(expected, $0, insensitive: insensitive) }
    }
  }

  private func elementMatches(_ actual: JSONValue, _ expected: JSONValue) -> Bool {
    guard case .array(let items) = actual else { return false }
    let isOperator = isOperatorObject(expected)
    // Falsy items never match, as in the JS SDK (`actual[i] && check(actual[i])`).
    return items.contains { item in
      item.isTruthy && (isOperator ? evaluateValue(expected, item) : evaluate(item, expected))
    }
  }
}
