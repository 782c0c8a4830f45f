import FlowKit
import Foundation
import YAMLTree

extension ScriptLoader {
  /// Context check-ins under `followUps:`: a list of `{id?, after, outcome?, when?, present}`.
  mutating func followUpDeclarations(_ node: YNode) -> [FollowUpDeclaration] {
    guard let items = node.items else {
      report(node.position, "followUps takes a list of {after, when, present}, got \(node.typeName)")
      return []
    }
    var declarations: [FollowUpDeclaration] = []
    var ids = Set<String>()
    for (index, item) in items.enumerated() {
      guard let entries = item.entries else {
        report(item.position, "a follow-up is a mapping {after, when, present}, got \(item.typeName)")
        continue
      }
      checkKeys(entries, allowed: ["id", "after", "outcome", "when", "present"], what: "follow-up")
      func field(_ name: String) -> YNode? { entries.first { $0.key == name }?.value }
      guard let afterNode = field("after") else {
        report(item.position, "a follow-up needs `after` (the flow whose ending it follows)")
        continue
      }
      guard let after = string(afterNode, "after") else { continue }
      if vocabulary.flows[after] == nil {
        report(
          afterNode.position,
          "unknown flow '\(clipped(after))'\(suggestion(after, among: Array(vocabulary.flows.keys)))")
      }
      var outcome = FlowEnding.Outcome.completed
      if let node = field("outcome"), let text = string(node, "outcome") {
        if let parsed = FlowEnding.Outcome(rawValue: text) {
          outcome = parsed
        } else {
          report(node.position, "outcome is completed or cancelled, got '\(clipped(text))'")
        }
      }
      var checks: [(query: String, matcher: Matcher)] = []
      if let node = field("when") {
        if let pairs = node.entries {
          for pair in pairs {
            guard let type = vocabulary.queries[pair.key] else {
              report(
                pair.keyPosition,
                "unknown query '\(clipped(pair.key))'\(suggestion(pair.key, among: Array(vocabulary.queries.keys)))"
              )
              continue
            }
            if let matcher = matcher(pair.value, type: type, what: pair.key) {
              checks.append((pair.key, matcher))
            }
          }
        } else {
          report(node.position, "when takes {query: value}, got \(node.typeName)")
        }
      }
      guard let presentNode = field("present") else {
        report(item.position, "a follow-up needs `present` (the flow to offer)")
        continue
      }
      guard var request = flowRequest(presentNode) else { continue }
      request.trigger = .event
      var id = "\(after)->\(request.flow)"
      if let node = field("id") { id = string(node, "id") ?? id }
      if !ids.insert(id).inserted {
        id += "#\(index + 1)"
        if !ids.insert(id).inserted { report(item.position, "follow-up id '\(clipped(id))' is given twice") }
      }
      declarations.append(
        FollowUpDeclaration(
          id: id, after: after, outcome: outcome, when: checks, present: request, position: item.position))
    }
    return declarations
  }
}
