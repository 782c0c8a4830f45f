import FlowKit
import Foundation

/// `- tap: ID`: taps a button or an alert's button.
struct TapStep: ActionCommand {
  static let name = "tap"
  static let takes = CommandValue.required

  let action: UserAction

  static func load(_ input: CommandInput, into loader: inout ScriptLoader) -> LoadedCommand? {
    let argument = input.value
    guard let id = argument.scalarText else {
      loader.report(argument.position, "tap takes an element id, got \(argument.typeName)")
      return nil
    }
    loader.checkElement(id, at: argument.position, allowAlertButtons: true)
    return (Self(action: .tap(id)), "tap \(id)")
  }

  static func schema(in builder: inout SchemaBuilder) -> SchemaJSON {
    builder.ids(
      "tappable", builder.vocabulary.elements.union(builder.vocabulary.alertButtons),
      "An element or an alert button.")
  }
}
