import FlowKit
import Foundation

/// `- close`: closes the flow shown, as its close button does.
struct CloseStep: ActionCommand {
  static let name = "close"
  static let takes = CommandValue.none

  var action: UserAction { .close }

  static func load(_ input: CommandInput, into loader: inout ScriptLoader) -> LoadedCommand? {
    (Self(), "close")
  }

  static func schema(in builder: inout SchemaBuilder) -> SchemaJSON { SchemaBuilder.type("null") }

  var thinkTimes: ClosedRange<Double>? { 1...4 }
}
