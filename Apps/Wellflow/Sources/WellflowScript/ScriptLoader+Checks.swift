import FlowKit
import Foundation
import YAMLTree

extension ScriptLoader {
  mutating func checkElement(_ id: String, at position: SourcePosition, allowAlertButtons: Bool) {
    if vocabulary.elements.contains(id) || (allowAlertButtons && vocabulary.alertButtons.contains(id)) {
      return
    }
    let known = Array(vocabulary.elements) + (allowAlertButtons ? Array(vocabulary.alertButtons) : [])
    report(
      position, "unknown element '\(clipped(id))': no registered screen has it\(suggestion(id, among: known))"
    )
  }

  /// Options shown in a problem before the rest are counted.
  static let shownOptions = 12

  /// An option id of a choice whose options are declared; others are checked when shown.
  mutating func checkOption(_ id: String, of element: String, at position: SourcePosition) {
    guard let known = vocabulary.options[element], !known.contains(id) else { return }
    // A value already reported there (an undefined variable) is not reported again.
    guard !problems.contains(where: { $0.position == position }) else { return }
    var hint = suggestion(id, among: known)
    if hint.isEmpty {
      let more = known.count > Self.shownOptions ? ", … (\(known.count) in all)" : ""
      hint = " (options: \(known.prefix(Self.shownOptions).joined(separator: ", "))\(more))"
    }
    report(position, "unknown option '\(clipped(id))' of \(element)\(hint)")
  }

  mutating func checkKeys(
    _ entries: [(key: String, keyPosition: SourcePosition, value: YNode)], allowed: [String], what: String
  ) {
    for entry in entries where !allowed.contains(entry.key) {
      report(
        entry.keyPosition,
        "unknown key '\(clipped(entry.key))' in \(what)\(suggestion(entry.key, among: allowed))")
    }
  }

  mutating func string(_ node: YNode, _ what: String) -> String? {
    if let text = node.string { return text }
    report(node.position, "\(what) must be text, got \(node.described)")
    return nil
  }

  mutating func bool(_ node: YNode, _ what: String) -> Bool? {
    if case .bool(let value) = node.value { return value }
    report(node.position, "\(what) must be true or false, got \(node.described)")
    return nil
  }

  mutating func stringList(_ node: YNode, _ what: String) -> [String] {
    if let text = node.string { return [text] }
    guard let items = node.items else {
      report(node.position, "\(what) must be a list of text, got \(node.typeName)")
      return []
    }
    return items.compactMap { string($0, what) }
  }
}
