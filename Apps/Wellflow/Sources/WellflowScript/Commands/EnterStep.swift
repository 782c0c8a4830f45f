import FlowKit
import Foundation

/// `- enter: {ELEMENT: TEXT}`: types into a text field.
struct EnterStep: ActionCommand {
  static let name = "enter"
  static let takes = CommandValue.required

  let action: UserAction

  static func load(_ input: CommandInput, into loader: inout ScriptLoader) -> LoadedCommand? {
    guard let entry = loader.elementPair(name, input.value) else { return nil }
    guard let text = entry.value.scalarText else {
      loader.report(entry.value.position, "enter \(entry.key) takes text, got \(entry.value.typeName)")
      return nil
    }
    let action = UserAction.enter(entry.key, text)
    return (Self(action: action), action.description)
  }

  static func schema(in builder: inout SchemaBuilder) -> SchemaJSON {
    builder.elementPair(name, value: { builder, _ in builder.scalar() })
  }

  var thinkTimes: ClosedRange<Double>? { 8...40 }
}
