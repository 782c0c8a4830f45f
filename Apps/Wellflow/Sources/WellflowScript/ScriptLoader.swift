import FlowKit
import Foundation
import WellflowComposition
import YAMLTree

/// Reads a script and every sub-script it runs, checking every name against the
/// vocabulary. All problems are collected, one `file:line:column: message` each.
public struct ScriptLoader {
  public let vocabulary: ScriptVocabulary
  var problems: [ScriptProblem] = []
  var runStack: [String] = []
  /// The folder every sub-script lies in or below (its real path): the top-level
  /// script's, or `--scripts-root`. A sub-script's problems quote its lines, so a
  /// `run:` must not reach other files.
  var scriptsRoot = "/"
  /// Each file's tree, read once per load (a sub-script run from many steps is parsed once).
  var parsedFiles: [String: YNode?] = [:]
  /// Steps read so far, sub-scripts counted at every `run`: bounds the time and memory a
  /// load may take.
  var stepCount = 0

  /// Sub-scripts running sub-scripts, deeper than any real suite needs.
  static let maxRunDepth = 32
  /// Steps a script and its sub-scripts may hold, each `run` counting its file again.
  static let maxSteps = 100_000
  /// Steps a run may take, repeats multiplied out: a bound that a mistyped `times` hits
  /// at load time rather than hours into the run.
  static let maxExecutedSteps = 10_000_000

  static let topLevelKeys = [
    "name", "tags", "user", "start", "timezone", "locale", "experiments", "followUps", "env", "steps",
  ]
  static let subScriptKeys = ["name", "tags", "env", "steps"]
  /// What `expect` and `if` may check.
  static let conditionKeys = [
    "screen", "alert", "idle", "flow", "outcome", "enabled", "disabled", "value", "text", "data",
    "notification",
  ]
  /// What `start: {trigger}` may name.
  static let triggers = [FlowTrigger.launch, .manual, .notification, .event].map(\.rawValue)

  public init(vocabulary: ScriptVocabulary) {
    self.vocabulary = vocabulary
  }

  /// Loads a top-level script. `overrides` are the `-e KEY=VALUE` variables; its
  /// sub-scripts lie in `scriptsRoot`, or by default in the script's folder, or below.
  public static func load(
    path: String, vocabulary: ScriptVocabulary, overrides: [String: String] = [:], scriptsRoot: String? = nil
  ) -> Result<Script, ScriptLoadFailure> {
    var loader = ScriptLoader(vocabulary: vocabulary)
    let folder = directory(of: path)
    loader.scriptsRoot = loader.canonical(scriptsRoot ?? (folder.isEmpty ? "." : folder))
    let script = loader.loadTopLevel(path: path, overrides: overrides)
    if let script, loader.problems.isEmpty { return .success(script) }
    // A sub-script run from several steps reports its problems once.
    var seen = Set<ScriptProblem>()
    return .failure(ScriptLoadFailure(problems: loader.problems.filter { seen.insert($0).inserted }))
  }

  mutating func report(_ position: SourcePosition, _ message: String) {
    problems.append(ScriptProblem(position, message))
  }

  /// The file's tree before substitution, read once however often it is run.
  mutating func parsed(_ path: String, at position: SourcePosition?) -> YNode? {
    if let cached = parsedFiles[path] { return cached }
    var reader = YAMLReader(file: path)
    let root = reader.readFile(what: "script file", namedAt: position)
    problems += reader.problems
    parsedFiles[path] = .some(root)
    return root
  }

  /// The file's own `env:` (defaults), read without substitution.
  mutating func ownEnvironment(of root: YNode) -> [String: String] {
    guard let envNode = root.entries?.first(where: { $0.key == "env" })?.value else { return [:] }
    var env: [String: String] = [:]
    guard let entries = envNode.entries else {
      report(envNode.position, "env must be a mapping of NAME: value, got \(envNode.typeName)")
      return [:]
    }
    for entry in entries {
      guard let text = entry.value.scalarText else {
        report(entry.value.position, "env \(entry.key) must be a single value, got \(entry.value.typeName)")
        continue
      }
      env[entry.key] = text
    }
    return env
  }

  mutating func substituted(_ root: YNode, _ variables: [String: String]) -> YNode {
    var found: [ScriptProblem] = []
    let result = root.substituted(variables, problems: &found)
    problems += found
    return result
  }

  mutating func loadTopLevel(path: String, overrides: [String: String]) -> Script? {
    guard let raw = parsed(path, at: nil) else { return nil }
    let env = ownEnvironment(of: raw)
    guard problems.isEmpty else { return nil }
    let variables = env.merging(overrides) { $1 }
    let root = substituted(raw, variables)
    guard let entries = root.entries else {
      report(root.position, "a script is a mapping with name and steps, got \(root.typeName)")
      return nil
    }
    checkKeys(entries, allowed: Self.topLevelKeys, what: "script")
    runStack = [canonical(path)]
    var script = Script(file: path)
    if let name = entries.first(where: { $0.key == "name" })?.value {
      script.name = string(name, "name") ?? ""
    } else {
      report(root.position, "the script has no name (add `name: …`)")
    }
    if let tags = entries.first(where: { $0.key == "tags" })?.value { script.tags = stringList(tags, "tags") }
    if let user = entries.first(where: { $0.key == "user" })?.value {
      script.user = string(user, "user") ?? ""
      if let id = user.string, let problem = UserID.problem(with: id) {
        report(user.position, "user '\(clipped(id))' \(problem) (\(UserID.rule))")
      }
    }
    if let start = entries.first(where: { $0.key == "start" })?.value, let components = localDateTime(start) {
      script.start = components
    }
    if let zone = entries.first(where: { $0.key == "timezone" })?.value, let id = string(zone, "timezone") {
      if let timeZone = TimeZone(identifier: id) {
        script.timeZone = timeZone
      } else {
        report(zone.position, "unknown time zone '\(clipped(id))' (use an IANA name such as Europe/Berlin)")
      }
    }
    if let experiments = entries.first(where: { $0.key == "experiments" })?.value {
      script.experiments = forcedVariations(experiments)
    }
    if let node = entries.first(where: { $0.key == "locale" })?.value, let locale = string(node, "locale") {
      if vocabulary.locales.contains(locale) {
        script.locale = locale
      } else {
        report(
          node.position,
          "unknown locale '\(clipped(locale))' (locales: \(vocabulary.locales.joined(separator: ", ")))")
      }
    }
    if let node = entries.first(where: { $0.key == "followUps" })?.value {
      script.followUps = followUpDeclarations(node)
    }
    script.steps = steps(in: entries, of: root, directory: directory(of: path), variables: variables)
    return script
  }

  mutating func forcedVariations(_ node: YNode) -> [String: String] {
    guard let entries = node.entries else {
      report(node.position, "experiments must map an experiment key to a variation, got \(node.typeName)")
      return [:]
    }
    var forced: [String: String] = [:]
    for entry in entries {
      guard let variation = entry.value.scalarText else {
        report(
          entry.value.position,
          "experiment \(entry.key) takes one variation name, got \(entry.value.typeName)")
        continue
      }
      if let known = vocabulary.experiments {
        if !known.contains(entry.key) {
          report(
            entry.keyPosition,
            "unknown experiment '\(clipped(entry.key))' (experiments: \(known.sorted().joined(separator: ", ")))"
          )
        } else if let variations = vocabulary.experimentVariations[entry.key], !variations.contains(variation)
        {
          report(
            entry.value.position,
            "experiment '\(clipped(entry.key))' has no variation '\(clipped(variation))'\(suggestion(variation, among: variations))"
              + " (variations: \(variations.joined(separator: ", ")))")
        }
      } else {
        report(
          entry.keyPosition,
          "experiment '\(clipped(entry.key))' is forced, but no experiment file was given (--experiments FILE)"
        )
      }
      forced[entry.key] = variation
    }
    return forced
  }

  mutating func steps(
    in entries: [(key: String, keyPosition: SourcePosition, value: YNode)], of root: YNode, directory: String,
    variables: [String: String]
  ) -> [Step] {
    guard let stepsNode = entries.first(where: { $0.key == "steps" })?.value else {
      report(root.position, "the script has no steps (add `steps:` with a list of steps)")
      return []
    }
    return stepList(stepsNode, directory: directory, variables: variables)
  }

  mutating func stepList(_ node: YNode, directory: String, variables: [String: String]) -> [Step] {
    guard let items = node.items else {
      report(node.position, "steps must be a list, got \(node.typeName)")
      return []
    }
    var steps: [Step] = []
    for item in items {
      stepCount += 1
      guard stepCount <= Self.maxSteps else {
        if stepCount == Self.maxSteps + 1 {
          report(
            item.position,
            "the script and its sub-scripts hold more than \(Self.maxSteps) steps (each `run` counts its file again)"
          )
        }
        break
      }
      if let step = step(item, directory: directory, variables: variables) { steps.append(step) }
    }
    return steps
  }

  /// Steps a list takes when run, repeats multiplied out and the longer branch of each
  /// `if`; saturates at `Int.max`.
  static func executedCount(_ steps: [Step]) -> Int {
    var total = 0
    for step in steps {
      let count = step.command.executedCount
      let sum = total.addingReportingOverflow(count)
      total = sum.overflow || count < 0 ? .max : sum.partialValue
    }
    return total
  }

  mutating func step(_ node: YNode, directory: String, variables: [String: String]) -> Step? {
    var label: String?
    var isOptional = false
    let command: String
    let argument: YNode?
    let commandPosition: SourcePosition
    var branches: [YNode.Entry] = []

    switch node.value {
    case .string(let name):
      command = name
      argument = nil
      commandPosition = node.position
    case .map(let entries):
      var found: (key: String, keyPosition: SourcePosition, value: YNode)?
      for entry in entries {
        switch entry.key {
        case "label": label = string(entry.value, "label")
        case "optional": isOptional = bool(entry.value, "optional") ?? false
        case let key where ScriptCommands.branchKeys.contains(key): branches.append(entry)
        default:
          if let found {
            report(
              entry.keyPosition,
              "a step has one command; '\(clipped(entry.key))' follows '\(clipped(found.key))' (start a new `- ` item)"
            )
          } else {
            found = entry
          }
        }
      }
      guard let found else {
        report(
          node.position,
          "the step names no command (commands: \(ScriptCommands.names.joined(separator: ", ")))")
        return nil
      }
      command = found.key
      argument = found.value.value.isNull ? nil : found.value
      commandPosition = found.keyPosition
      let ownBranches = ScriptCommands.named(command)?.branchKeys.map(\.key) ?? []
      for entry in branches where !ownBranches.contains(entry.key) {
        let owner = ScriptCommands.all.first { $0.branchKeys.contains { $0.key == entry.key } }
        report(entry.keyPosition, "'\(clipped(entry.key))' belongs to an `\(owner?.name ?? "")` step")
      }
    default:
      report(node.position, "a step is a command name or a mapping, got \(node.described)")
      return nil
    }

    guard let type = ScriptCommands.named(command) else {
      report(
        commandPosition,
        "unknown command '\(clipped(command))'\(suggestion(command, among: ScriptCommands.names))")
      return nil
    }
    switch type.takes {
    case .none:
      if let argument {
        report(argument.position, "'\(clipped(command))' takes no value, got \(argument.quoted)")
      }
    case .required where argument == nil:
      report(commandPosition, "'\(clipped(command))' needs a value")
      return nil
    case .optional, .required: break
    }
    let input = CommandInput(
      value: argument ?? YNode(value: .null, position: commandPosition, text: ""), position: commandPosition,
      branches: branches, directory: directory, variables: variables)
    guard let loaded = type.load(input, into: &self) else { return nil }
    return Step(
      command: loaded.command, position: node.position, label: label, isOptional: isOptional,
      summary: loaded.summary)
  }

  /// The sub-script a `run:` step names (`file` or `{file, env}`), loaded with its steps:
  /// the file as written, its path, and its steps.
  mutating func subScript(_ node: YNode, directory: String, variables: [String: String]) -> (
    written: String, path: String, steps: [Step]
  )? {
    var file: String?
    var runEnv: [String: String] = [:]
    if let text = node.string {
      file = text
    } else if let entries = node.entries {
      checkKeys(entries, allowed: ["file", "env"], what: "run")
      if let fileNode = entries.first(where: { $0.key == "file" })?.value { file = string(fileNode, "file") }
      if let envNode = entries.first(where: { $0.key == "env" })?.value {
        for entry in envNode.entries ?? [] {
          guard let text = entry.value.scalarText else {
            report(
              entry.value.position, "env \(entry.key) must be a single value, got \(entry.value.typeName)")
            continue
          }
          runEnv[entry.key] = text
        }
        if envNode.entries == nil { report(envNode.position, "env must be a mapping of NAME: value") }
      }
    } else {
      report(node.position, "run takes a file name or {file, env}, got \(node.typeName)")
      return nil
    }
    guard let file else {
      report(node.position, "run needs `file`")
      return nil
    }
    // A file name ends at a NUL for the file system: `a.yaml\0x` would run a.yaml.
    if let control = ControlCharacter.first(in: file) {
      report(node.position, "run: the file name '\(clipped(file))' holds \(control)")
      return nil
    }
    guard Self.isScriptName(file) else {
      report(node.position, "run: '\(clipped(file))' is not a script (a sub-script is a .yaml or .yml file)")
      return nil
    }
    let path = file.hasPrefix("/") ? file : (directory as NSString).appendingPathComponent(file)
    let normalized = (path as NSString).standardizingPath
    let key = canonical(normalized)
    guard scriptsRoot == "/" || key == scriptsRoot || key.hasPrefix(scriptsRoot + "/") else {
      report(
        node.position,
        "run: '\(clipped(file))' is outside \(scriptsRoot), the folder sub-scripts are run from (--scripts-root names another)"
      )
      return nil
    }
    if runStack.contains(key) {
      report(
        node.position,
        "'\(clipped(file))' runs itself (\((runStack + [key]).map { ($0 as NSString).lastPathComponent }.joined(separator: " → ")))"
      )
      return nil
    }
    guard FileManager.default.fileExists(atPath: normalized) else {
      report(node.position, "no script file '\(clipped(file))' (looked for \(normalized))")
      return nil
    }
    // A link named a.yaml may lead to a device, a FIFO (a read that never ends) or a
    // file that is no script.
    guard Self.isScriptName(key), Self.isRegularFile(key) else {
      report(node.position, "run: '\(clipped(file))' is not a script file (it leads to \(key))")
      return nil
    }
    guard runStack.count < Self.maxRunDepth else {
      report(
        node.position,
        "sub-scripts nest deeper than \(Self.maxRunDepth) levels (\(runStack.first.map { ($0 as NSString).lastPathComponent } ?? "") → … → \((file as NSString).lastPathComponent))"
      )
      return nil
    }
    guard let raw = parsed(normalized, at: node.position) else { return nil }
    // Own env gives defaults; the caller's variables and then the run step's env override them.
    let subVariables = ownEnvironment(of: raw).merging(variables) { $1 }.merging(runEnv) { $1 }
    let root = substituted(raw, subVariables)
    guard let entries = root.entries else {
      report(root.position, "a sub-script is a mapping with steps, got \(root.typeName)")
      return nil
    }
    checkKeys(
      entries, allowed: Self.subScriptKeys,
      what: "sub-script (user, start, timezone and experiments belong to the top-level script)")
    runStack.append(key)
    defer { runStack.removeLast() }
    let steps = steps(
      in: entries, of: root, directory: (normalized as NSString).deletingLastPathComponent,
      variables: subVariables)
    return (file, normalized, steps)
  }

  mutating func flowRequest(_ node: YNode) -> FlowRequest? {
    var request: FlowRequest
    if let flow = node.string {
      request = FlowRequest(flow: flow)
    } else if let entries = node.entries {
      checkKeys(entries, allowed: ["flow", "variant", "trigger"], what: "start")
      guard let flowNode = entries.first(where: { $0.key == "flow" })?.value,
        let flow = string(flowNode, "flow")
      else {
        report(node.position, "start needs `flow`")
        return nil
      }
      request = FlowRequest(flow: flow)
      if let variant = entries.first(where: { $0.key == "variant" })?.value {
        request.variant = string(variant, "variant")
      }
      if let triggerNode = entries.first(where: { $0.key == "trigger" })?.value,
        let trigger = string(triggerNode, "trigger")
      {
        let triggers = Self.triggers
        if triggers.contains(trigger) {
          request.trigger = FlowTrigger(rawValue: trigger)
        } else {
          report(
            triggerNode.position,
            "unknown trigger '\(clipped(trigger))' (triggers: \(triggers.joined(separator: ", ")))")
        }
      }
    } else {
      report(node.position, "start takes a flow id or {flow, variant, trigger}, got \(node.typeName)")
      return nil
    }
    guard let variants = vocabulary.flows[request.flow] else {
      report(
        node.position,
        "unknown flow '\(clipped(request.flow))'\(suggestion(request.flow, among: Array(vocabulary.flows.keys)))"
      )
      return nil
    }
    if let variant = request.variant, !variants.contains(variant) {
      report(
        node.position,
        "flow '\(clipped(request.flow))' has no variant '\(clipped(variant))' (variants: \(variants.joined(separator: ", ")))"
      )
    }
    return request
  }

  /// The one `{element: value}` pair `select`, `enter`, `set` and `toggle` take, its element checked.
  mutating func elementPair(_ command: String, _ node: YNode) -> YNode.Entry? {
    guard let entries = node.entries, entries.count == 1, let entry = entries.first else {
      let got = node.entries.map { "\($0.count) pairs" } ?? node.typeName
      report(node.position, "\(command) takes one {element: value} pair, got \(got)")
      return nil
    }
    checkElement(entry.key, at: entry.keyPosition, allowAlertButtons: false)
    return entry
  }

  /// Problems found so far (an experiment file's loader reads follow-ups through this type).
  var reportedProblems: [ScriptProblem] { problems }

  func directory(of path: String) -> String { Self.directory(of: path) }
  static func directory(of path: String) -> String { (path as NSString).deletingLastPathComponent }

  static func isScriptName(_ name: String) -> Bool { name.hasSuffix(".yaml") || name.hasSuffix(".yml") }

  static func isRegularFile(_ path: String) -> Bool {
    (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType == .typeRegular
  }

  /// The file's absolute path with symbolic links and `..` resolved (one `realpath` call;
  /// Foundation's URL methods look at each component in turn), for telling files apart.
  func canonical(_ path: String) -> String {
    guard let resolved = realpath(path, nil) else {
      return URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}

/// Every problem found in a script and its sub-scripts.
public struct ScriptLoadFailure: Error, Sendable {
  public var problems: [ScriptProblem]
}
