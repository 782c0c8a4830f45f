import FlowKit
import Foundation
import WellflowCore

/// A fresh folder of scripts, removed when the test is done.
final class Workspace: Sendable {
  let url: URL

  init() {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("wellflow-tests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: url) }

  var path: String { url.path }

  func path(_ name: String) -> String { url.appendingPathComponent(name).path }

  @discardableResult
  func write(_ name: String, _ text: String) -> String {
    let file = url.appendingPathComponent(name)
    try? FileManager.default.createDirectory(
      at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try? Data(text.utf8).write(to: file)
    return file.path
  }

  /// Lines with this folder's path left out, so they read `s.yaml:3:5: …`.
  func relative(_ lines: [String]) -> [String] {
    lines.map { $0.replacingOccurrences(of: path + "/", with: "") }
  }
}

/// What `wellflow run` printed and returned.
struct RunOutcome {
  var code: Int32
  var out: [String]
  var err: [String]

  var outText: String { out.joined(separator: "\n") }
  var errText: String { err.joined(separator: "\n") }
}

@MainActor
func wellflowRun(_ paths: [String], _ configure: (inout RunConfiguration) -> Void = { _ in }) async
  -> RunOutcome
{
  let out = Locked<[String]>([])
  let err = Locked<[String]>([])
  var configuration = RunConfiguration(paths: paths)
  configure(&configuration)
  let code = await RunCommand.execute(
    configuration,
    console: Console(
      out: { text in out.withLock { $0.append(text) } }, err: { text in err.withLock { $0.append(text) } }))
  return RunOutcome(code: code, out: out.current, err: err.current)
}

/// The problems a script has, as `file:line:column: message` lines (folder left out).
func problems(_ file: String, in workspace: Workspace, registry: FlowRegistry? = nil) throws -> [String] {
  let registry = try registry ?? WellflowApp.makeRegistry()
  switch ScriptLoader.load(path: workspace.path(file), vocabulary: ScriptVocabulary(registry: registry)) {
  case .success: return []
  case .failure(let failure): return workspace.relative(failure.problems.map(\.description))
  }
}

struct ScriptDidNotLoad: Error, CustomStringConvertible {
  var description: String
}

/// Loads and runs one script against `registry` (the lab flow by default).
@MainActor
func runScript(
  _ file: String, in workspace: Workspace, registry: FlowRegistry? = nil, as user: String? = nil,
  options: ScriptRunner.Options = ScriptRunner.Options()
) async throws -> ScriptResult {
  let registry = try registry ?? LabFeature.registry()
  switch ScriptLoader.load(path: workspace.path(file), vocabulary: ScriptVocabulary(registry: registry)) {
  case .success(let script):
    return await ScriptRunner(registry: registry, options: options).run(script, as: user)
  case .failure(let failure):
    throw ScriptDidNotLoad(description: failure.problems.map(\.description).joined(separator: "\n"))
  }
}

extension ScriptResult {
  /// `line:column status summary → screen`, one a step, for compact expectations.
  var trace: [String] {
    steps.map { step in
      String(repeating: "  ", count: step.depth)
        + "\(step.position.line) \(step.status.rawValue) \(step.summary) → \(step.screen)"
    }
  }
}

/// A flow with every kind of input, so each script command has something to act on:
/// `lab.form` (text, slider, toggle, multiple choice, an alert, close) and `lab.done`.
final class LabCoordinator: FlowCoordinator<String> {
  let store: any KeyValueStore
  private var note = ""
  private var level = 5.0
  private var flag = false
  private var tags: [String] = []
  private var confirming = false
  private var done = false

  init(store: any KeyValueStore) { self.store = store }

  override var screen: Screen {
    if done {
      return Screen(
        id: "lab.done", title: "Done", message: "Level \(formatNumber(level))",
        elements: [.button("finish", "Finish")], canGoBack: true)
    }
    return Screen(
      id: "lab.form", title: "Lab form", message: "Fill in the form",
      elements: [
        .text("note", "Note", limit: 10, text: note),
        .slider("level", "Level", range: 1...10, step: 1, value: level, caption: "Level caption"),
        .toggle("flag", "Flag", isOn: flag),
        .multipleChoice(
          "tags", "Tags", options: ["a", "b", "c"].map { ChoiceOption(id: $0, label: "Tag \($0)") },
          selected: tags),
        .button("ask", "Ask", enabled: flag),
      ],
      alert: confirming
        ? Alert(
          id: "lab.confirm", title: "Go on?", message: "Sure?",
          buttons: [AlertButton(id: "proceed", label: "Proceed"), AlertButton(id: "stay", label: "Stay")])
        : nil,
      canClose: true)
  }

  override func handle(_ action: UserAction) throws(ActionError) {
    switch action {
    case .enter("note", let text): note = text
    case .set("level", let value): level = value
    case .toggle("flag", let isOn): flag = isOn
    case .select("tags", let chosen): tags = chosen
    case .tap("ask"): confirming = true
    case .tap("stay"): confirming = false
    case .tap("proceed"):
      confirming = false
      done = true
    case .back: done = false
    case .close: cancel()
    case .tap("finish"):
      try? store.set(note, forKey: "lab.note")
      try? store.set(formatNumber(level), forKey: "lab.level")
      try? store.set(flag, forKey: "lab.flag")
      try? store.set(tags.joined(separator: ","), forKey: "lab.tags")
      complete(note)
    default: break
    }
  }
}

enum LabFeature: FlowFeature {
  static func registry() throws -> FlowRegistry {
    var registry = FlowRegistry()
    try registry.register(LabFeature.self)
    return registry
  }

  static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    try registry.register(
      FlowDefinition(
        id: "lab", summary: "every kind of input", variants: ["plain", "other"],
        screens: [
          ScreenDeclaration(
            "lab.form", elements: ["note", "level", "flag", "tags", "ask"],
            alerts: [AlertDeclaration("lab.confirm", buttons: ["proceed", "stay"])]),
          ScreenDeclaration("lab.done", elements: ["finish"]),
        ],
        make: { context in LabCoordinator(store: context.environment.keyValueStore) }))
    try registry.register(
      QueryDefinition("lab.note", type: .text, summary: "") { env in
        try env.keyValueStore.string(forKey: "lab.note").map(QueryValue.text) ?? .none
      })
    try registry.register(
      QueryDefinition("lab.level", type: .number, summary: "") { env in
        .number(Double(try env.keyValueStore.string(forKey: "lab.level") ?? "0") ?? 0)
      })
    try registry.register(
      QueryDefinition("lab.flag", type: .bool, summary: "") { env in
        .bool(try env.keyValueStore.bool(forKey: "lab.flag"))
      })
    try registry.register(
      QueryDefinition("lab.tags", type: .list, summary: "") { env in
        .list((try env.keyValueStore.string(forKey: "lab.tags") ?? "").split(separator: ",").map(String.init))
      })
    try registry.register(
      QueryDefinition("lab.user", type: .text, summary: "") { env in .text(env.userID ?? "none") })
    try registry.register(
      QueryDefinition("clock.local", type: .text, summary: "the local date and time") { env in
        let parts = env.clock.calendar.dateComponents(
          [.year, .month, .day, .hour, .minute], from: env.clock.now)
        return .text(
          String(
            format: "%04d-%02d-%02dT%02d:%02d", parts.year!, parts.month!, parts.day!, parts.hour!,
            parts.minute!)
        )
      })
    try registry.register(
      LaunchRule(id: "lab", priority: 1, request: FlowRequest(flow: "lab", trigger: .launch)) { env in
        !(try env.keyValueStore.bool(forKey: "lab.flag"))
      })
  }
}
