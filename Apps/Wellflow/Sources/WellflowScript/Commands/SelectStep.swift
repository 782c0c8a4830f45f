import FlowKit
import Foundation

/// `- select: {ELEMENT: OPTION}` or a list of options: chooses in a choice.
struct SelectStep: ActionCommand {
  static let name = "select"
  static let takes = CommandValue.required

  let action: UserAction

  static func load(_ input: CommandInput, into loader: inout ScriptLoader) -> LoadedCommand? {
    guard let entry = loader.elementPair(name, input.value) else { return nil }
    let value = entry.value
    let action: UserAction
    if let items = value.items {
      let ids = items.compactMap { item -> String? in
        guard let text = item.scalarText else {
          loader.report(item.position, "select \(entry.key) takes option ids, got \(item.typeName)")
          return nil
        }
        loader.checkOption(text, of: entry.key, at: item.position)
        return text
      }
      action = .select(entry.key, ids)
    } else {
      guard let id = value.scalarText else {
        loader.report(
          value.position, "select \(entry.key) takes an option id or a list of them, got \(value.typeName)")
        return nil
      }
      loader.checkOption(id, of: entry.key, at: value.position)
      action = .select(entry.key, [id])
    }
    return (Self(action: action), action.description)
  }

  static func schema(in builder: inout SchemaBuilder) -> SchemaJSON {
    builder.elementPair(name, value: { builder, element in builder.optionValue(element) })
  }
}
