import FlowKit
import Foundation

/// `- toggle: {ELEMENT: true}`: turns a toggle on or off.
struct ToggleStep: ActionCommand {
  static let name = "toggle"
  static let takes = CommandValue.required

  let action: UserAction

  static func load(_ input: CommandInput, into loader: inout ScriptLoader) -> LoadedCommand? {
    guard let entry = loader.elementPair(name, input.value) else { return nil }
    guard case .bool(let isOn) = entry.value.value else {
      loader.report(
        entry.value.position, "toggle \(entry.key) takes true or false, got \(entry.value.described)")
      return nil
    }
    let action = UserAction.toggle(entry.key, isOn)
    return (Self(action: action), action.description)
  }

  static func schema(in builder: inout SchemaBuilder) -> SchemaJSON {
    builder.elementPair(name, value: { builder, _ in builder.typed("boolean") })
  }
}
