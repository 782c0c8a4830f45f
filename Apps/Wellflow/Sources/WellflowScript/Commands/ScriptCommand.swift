import FlowKit
import Foundation
import YAMLTree

/// A script command: its name, the value it takes, its static checks (run when the script
/// is loaded), its schema and its run. A loaded step holds one, with its checked value.
/// A new command is a new type listed in `ScriptCommands.all`.
protocol ScriptCommand: Sendable {
  /// The name a script writes (`tap`).
  static var name: String { get }
  /// Whether the command takes a value after its name.
  static var takes: CommandValue { get }
  /// Keys of the step besides the command (`then`, `else`), each a list of steps,
  /// whether the step must hold it.
  static var branchKeys: [(key: String, required: Bool)] { get }
  /// Reads and checks the step's value; nil when the step cannot be loaded (its problems
  /// are reported to `loader`).
  static func load(_ input: CommandInput, into loader: inout ScriptLoader) -> LoadedCommand?
  /// The JSON Schema of the command's value (`wellflow schema`).
  static func schema(in builder: inout SchemaBuilder) -> SchemaJSON

  /// Steps the step takes when run, repeats multiplied out and the longer branch of
  /// each `if`; saturates at `Int.max`. Bounds what a script may ask at load time.
  var executedCount: Int { get }
  /// What running every branch of the step costs (a repeat of nothing costing a step a
  /// round); the fuzzers skip running scripts that cost too much.
  var workload: Int { get }
  /// How long a person takes before the step, in seconds: a second or two to open the
  /// app, a few seconds to read a screen and tap, longer to type. Nil for steps that are
  /// not a person's (expectations, sync, the clock, the network).
  var thinkTimes: ClosedRange<Double>? { get }
  /// Runs the step.
  @MainActor func run(_ running: RunningStep) async throws(ScriptRunner.StepFailure) -> StepCompletion
}

extension ScriptCommand {
  static var branchKeys: [(key: String, required: Bool)] { [] }
  var executedCount: Int { 1 }
  var workload: Int { 1 }
  var thinkTimes: ClosedRange<Double>? { nil }
}

/// What a command takes after its name.
enum CommandValue: Sendable {
  /// Nothing: `- launch`.
  case none
  /// Nothing or a value: `- relaunch`, `- relaunch: {clearState: true}`.
  case optional
  /// A value: `- tap: continue`.
  case required
}

/// A command with its checked value, and how the step reads in a transcript.
typealias LoadedCommand = (command: any ScriptCommand, summary: String)

/// A step's command as written, for its `load`.
struct CommandInput {
  /// The value after the command's name; a null node where none is given (a command
  /// that needs a value always has one: the loader reports its absence first).
  var value: YNode
  /// Where the command's name is.
  var position: SourcePosition
  /// The step's `branchKeys` entries.
  var branches: [YNode.Entry]
  /// The folder of the file the step is in, for `run:`.
  var directory: String
  /// The variables `${NAME}` was replaced from, passed on to sub-scripts.
  var variables: [String: String]

  /// The value of a branch key, when the step has it.
  func branch(_ key: String) -> YNode? { branches.first { $0.key == key }?.value }
}

/// How a step ends after its command ran.
enum StepCompletion {
  /// The runner lets the app settle, fails on problems it reports, and records the step.
  case settle
  /// The command recorded the step itself (commands that run steps of their own, `sync`).
  case recorded
}

/// The commands scripts may name, in the order `wellflow schema` and problems list them.
enum ScriptCommands {
  static let all: [any ScriptCommand.Type] = [
    LaunchStep.self, RelaunchStep.self, StartStep.self, TapStep.self, SelectStep.self, EnterStep.self,
    SetStep.self, ToggleStep.self, BackStep.self, CloseStep.self, ExpectStep.self, AdvanceStep.self,
    NetworkStep.self, SyncStep.self, RunStep.self, RepeatStep.self, IfStep.self, OpenStep.self,
    MaybeStep.self,
  ]

  static let names = all.map { $0.name }

  static func named(_ name: String) -> (any ScriptCommand.Type)? {
    all.first { $0.name == name }
  }

  /// Keys a step may hold for some command besides the command itself.
  static let branchKeys = Set(all.flatMap { $0.branchKeys.map(\.key) })
}
