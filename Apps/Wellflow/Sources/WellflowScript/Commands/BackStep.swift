import FlowKit
import Foundation

/// `- back`: goes back a step, as the navigation bar's back button does.
struct BackStep: ActionCommand {
  static let name = "back"
  static let takes = CommandValue.none

  var action: UserAction { .back }

  static func load(_ input: CommandInput, into loader: inout ScriptLoader) -> LoadedCommand? {
    (Self(), "back")
  }

  static func schema(in builder: inout SchemaBuilder) -> SchemaJSON { SchemaBuilder.type("null") }

  var thinkTimes: ClosedRange<Double>? { 1...4 }
}
