import Foundation

extension YNode.Value {
  package var isNull: Bool {
    if case .null = self { return true }
    return false
  }
}

extension YNode {
  /// A compact one-line rendering of a node for transcripts: `{screen: onboarding.welcome}`.
  package var summaryText: String {
    switch value {
    case .null: "null"
    case .bool, .number: text
    case .string: text.isEmpty ? "\"\"" : clipped(text)
    case .list(let items): "[" + items.map(\.summaryText).joined(separator: ", ") + "]"
    case .map(let entries):
      "{" + entries.map { "\($0.key): \($0.value.summaryText)" }.joined(separator: ", ") + "}"
    }
  }
}
