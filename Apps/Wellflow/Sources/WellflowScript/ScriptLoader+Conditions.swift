import FlowKit
import Foundation
import YAMLTree

extension ScriptLoader {
  mutating func conditions(_ node: YNode) -> [Condition] {
    guard let entries = node.entries else {
      report(node.position, "expect takes a mapping of conditions, got \(node.described)")
      return []
    }
    checkKeys(entries, allowed: Self.conditionKeys, what: "expect")
    var conditions: [Condition] = []
    let flow = entries.first(where: { $0.key == "flow" })
    for entry in entries {
      let value = entry.value
      switch entry.key {
      case "screen":
        guard let id = string(value, "screen") else { continue }
        if !vocabulary.screens.contains(id) {
          report(
            value.position,
            "unknown screen '\(clipped(id))'\(suggestion(id, among: Array(vocabulary.screens)))")
        }
        conditions.append(.screen(id))
      case "alert":
        if value.value.isNull {
          conditions.append(.alert(nil))
        } else if let id = string(value, "alert") {
          if !vocabulary.alerts.contains(id) {
            report(
              value.position,
              "unknown alert '\(clipped(id))'\(suggestion(id, among: Array(vocabulary.alerts)))")
          }
          conditions.append(.alert(id))
        }
      case "idle":
        if let idle = bool(value, "idle") { conditions.append(.idle(idle)) }
      case "notification":
        if value.value.isNull {
          conditions.append(.notification(nil))
        } else if let id = string(value, "notification") {
          if !vocabulary.notifications.contains(id) {
            report(value.position, "unknown notification '\(clipped(id))'\(notificationList(id))")
          }
          conditions.append(.notification(id))
        }
      case "flow":
        guard let id = string(value, "flow") else { continue }
        if vocabulary.flows[id] == nil {
          report(
            value.position,
            "unknown flow '\(clipped(id))'\(suggestion(id, among: Array(vocabulary.flows.keys)))")
        }
        if entries.contains(where: { $0.key == "outcome" }) == false { conditions.append(.topFlow(id)) }
      case "outcome":
        guard let text = string(value, "outcome") else { continue }
        guard let outcome = FlowEnding.Outcome(rawValue: text) else {
          report(value.position, "outcome is completed or cancelled, got '\(clipped(text))'")
          continue
        }
        guard let flowID = flow?.value.string else {
          report(entry.keyPosition, "outcome needs `flow` (whose latest run it describes)")
          continue
        }
        conditions.append(.outcome(flow: flowID, outcome))
      case "enabled", "disabled":
        guard let id = string(value, entry.key) else { continue }
        checkElement(id, at: value.position, allowAlertButtons: false)
        conditions.append(entry.key == "enabled" ? .enabled(id) : .disabled(id))
      case "text":
        guard let text = value.scalarText else {
          report(value.position, "text takes the text to find on the screen, got \(value.typeName)")
          continue
        }
        conditions.append(.text(text))
      case "value":
        guard let pairs = value.entries else {
          report(value.position, "value takes {element: value}, got \(value.typeName)")
          continue
        }
        for pair in pairs {
          checkElement(pair.key, at: pair.keyPosition, allowAlertButtons: false)
          if let matcher = matcher(pair.value, type: nil, what: "value of \(pair.key)") {
            switch (matcher, pair.value.value) {
            case (.text(let id), _): checkOption(id, of: pair.key, at: pair.value.position)
            case (.list(let ids), .list(let items)):
              for (id, item) in zip(ids, items) { checkOption(id, of: pair.key, at: item.position) }
            default: break
            }
            conditions.append(.value(element: pair.key, matcher))
          }
        }
      case "data":
        guard let pairs = value.entries else {
          report(value.position, "data takes {query: value}, got \(value.typeName)")
          continue
        }
        for pair in pairs {
          guard let type = vocabulary.queries[pair.key] else {
            report(
              pair.keyPosition,
              "unknown query '\(clipped(pair.key))'\(suggestion(pair.key, among: Array(vocabulary.queries.keys)))"
            )
            continue
          }
          if let matcher = matcher(pair.value, type: type, what: pair.key) {
            conditions.append(.data(query: pair.key, matcher))
          }
        }
      default:
        break
      }
    }
    return conditions
  }

  func notificationList(_ id: String) -> String {
    let known = vocabulary.notifications.sorted()
    guard !known.isEmpty else { return " (no registered feature sends notifications)" }
    return suggestion(id, among: known) + " (notifications: \(known.joined(separator: ", ")))"
  }

  /// An expected value, checked against the query's type where it is known.
  /// `{value: {notes: text field, 5 characters}}`: conditions as transcripts show them,
  /// with the text a person types given as its length.
  func conditionSummary(_ node: YNode) -> String {
    guard let entries = node.entries else { return node.summaryText }
    func redacted(_ pairs: YNode, keeping secret: Set<String>) -> String {
      guard let entries = pairs.entries else { return pairs.summaryText }
      return "{"
        + entries.map { entry in
          let value =
            secret.contains(entry.key) && entry.value.scalarText != nil
            ? describeFreeText(entry.value.text) : entry.value.summaryText
          return "\(entry.key): \(value)"
        }.joined(separator: ", ") + "}"
    }
    return "{"
      + entries.map { entry in
        switch entry.key {
        case "value": "value: \(redacted(entry.value, keeping: vocabulary.textFields))"
        case "data": "data: \(redacted(entry.value, keeping: vocabulary.freeTextQueries))"
        default: "\(entry.key): \(entry.value.summaryText)"
        }
      }.joined(separator: ", ") + "}"
  }

  mutating func matcher(_ node: YNode, type: QueryType?, what: String) -> Matcher? {
    func wrongType(_ expected: String) -> Matcher? {
      report(node.position, "\(what) is \(expected), got \(node.described)")
      return nil
    }
    switch node.value {
    case .null:
      return type == .bool ? wrongType("a flag (true or false)") : Matcher.none
    case .bool(let bool):
      if let type, type != .bool { return wrongType(type.phrase) }
      return .bool(bool)
    case .number(let number):
      if let type, type != .number, type != .text { return wrongType(type.phrase) }
      return type == .text ? .text(node.text) : .number(number)
    case .string(let text):
      if let type, type != .text { return wrongType(type.phrase) }
      return .text(text)
    case .list(let items):
      if let type, type != .list { return wrongType(type.phrase) }
      var ids: [String] = []
      for item in items {
        guard let text = item.scalarText else {
          report(item.position, "\(what) lists single values, got \(item.typeName)")
          return nil
        }
        ids.append(text)
      }
      return .list(ids)
    case .map(let entries):
      if let type, type != .number { return wrongType(type.phrase) }
      checkKeys(entries, allowed: ["min", "max"], what: "range")
      var bounds: [String: Double] = [:]
      for entry in entries {
        guard case .number(let number) = entry.value.value else {
          report(
            entry.value.position,
            "\(entry.key) must be a number, got \(entry.value.described)")
          continue
        }
        bounds[entry.key] = number
      }
      return .range(min: bounds["min"], max: bounds["max"])
    }
  }
}

extension QueryType {
  var phrase: String {
    switch self {
    case .bool: "a flag (true or false)"
    case .number: "a number (or {min, max})"
    case .text: "text"
    case .list: "a list"
    }
  }
}
