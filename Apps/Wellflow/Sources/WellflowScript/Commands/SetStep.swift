import FlowKit
import Foundation

/// `- set: {ELEMENT: NUMBER}`: moves a slider.
struct SetStep: ActionCommand {
  static let name = "set"
  static let takes = CommandValue.required

  let action: UserAction

  static func load(_ input: CommandInput, into loader: inout ScriptLoader) -> LoadedCommand? {
    guard let entry = loader.elementPair(name, input.value) else { return nil }
    guard case .number(let number) = entry.value.value else {
      loader.report(entry.value.position, "set \(entry.key) takes a number, got \(entry.value.described)")
      return nil
    }
    let action = UserAction.set(entry.key, number)
    return (Self(action: action), action.description)
  }

  static func schema(in builder: inout SchemaBuilder) -> SchemaJSON {
    builder.elementPair(name, value: { builder, _ in builder.typed("number") })
  }
}
