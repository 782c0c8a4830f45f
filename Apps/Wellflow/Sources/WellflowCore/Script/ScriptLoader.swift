import FlowKit
import Foundation
import WellflowComposition

/// What scripts may name, taken from the registry: flows and their variants, the
/// declared screens, elements and alerts, the queries with their types.
public struct ScriptVocabulary: Sendable {
  var flows: [String: [String]]
  var screens: Set<String>
  var elements: Set<String>
  var alerts: Set<String>
  var alertButtons: Set<String>
  var queries: [String: QueryType]
  /// Elements and queries whose values are text a person typed: summaries show lengths.
  var textFields: Set<String>
  var freeTextQueries: Set<String>
  var experiments: Set<String>?
  /// Variation names by experiment key, when an experiment file gave them.
  var experimentVariations: [String: [String]] = [:]
  /// The option ids a choice may take, for choices whose options every screen showing
  /// them declares (a choice whose options are data is checked only when it is shown).
  var options: [String: [String]]
  /// Notification ids `open` and `expect: {notification}` may name.
  var notifications: Set<String>
  /// Languages `locale:` may name.
  var locales: [String] = WellflowLocalization.locales

  /// `experiments` are the variation names by experiment key from `--experiments FILE`;
  /// nil when no file was given (then a script may force none).
  public init(registry: FlowRegistry, experimentVariations: [String: [String]]?) {
    self.init(registry: registry, experiments: experimentVariations.map { Set($0.keys) })
    self.experimentVariations = experimentVariations ?? [:]
  }

  public init(registry: FlowRegistry, experiments: Set<String>? = nil) {
    flows = Dictionary(uniqueKeysWithValues: registry.flows.map { ($0.id, $0.variants) })
    let declared = registry.flows.flatMap(\.screens)
    screens = Set(declared.map(\.id))
    elements = Set(declared.flatMap(\.elements))
    alerts = Set(declared.flatMap { $0.alerts.map(\.id) })
    alertButtons = Set(declared.flatMap { $0.alerts.flatMap(\.buttons) })
    queries = Dictionary(uniqueKeysWithValues: registry.queries.map { ($0.id, $0.type) })
    textFields = Set(declared.flatMap(\.textFields))
    var options: [String: [String]] = [:]
    var undeclared = Set<String>()
    for screen in declared {
      for element in screen.elements {
        guard let ids = screen.options[element] else {
          undeclared.insert(element)
          continue
        }
        let known = options[element, default: []]
        options[element] = known + ids.filter { !known.contains($0) }
      }
    }
    self.options = options.filter { !undeclared.contains($0.key) }
    freeTextQueries = Set(registry.queries.filter(\.isFreeText).map(\.id))
    notifications = Set(registry.notifications.map(\.id))
    self.experiments = experiments
  }
}

/// Reads a script and every sub-script it runs, checking every name against the
/// vocabulary. All problems are collected, one `file:line:column: message` each.
public struct ScriptLoader {
  public let vocabulary: ScriptVocabulary
  private var problems: [ScriptProblem] = []
  private var runStack: [String] = []
  /// The folder every sub-script lies in or below (its real path): the top-level
  /// script's, or `--scripts-root`. A sub-script's problems quote its lines, so a
  /// `run:` must not reach other files.
  private var scriptsRoot = "/"
  /// Each file's tree, read once per load (a sub-script run from many steps is parsed once).
  private var parsedFiles: [String: YNode?] = [:]
  /// Steps read so far, sub-scripts counted at every `run`: bounds the time and memory a
  /// load may take.
  private var stepCount = 0

  /// Sub-scripts running sub-scripts, deeper than any real suite needs.
  static let maxRunDepth = 32
  /// Steps a script and its sub-scripts may hold, each `run` counting its file again.
  static let maxSteps = 100_000
  /// Steps a run may take, repeats multiplied out: a bound that a mistyped `times` hits
  /// at load time rather than hours into the run.
  static let maxExecutedSteps = 10_000_000
  /// The most a `repeat` may say.
  static let maxRepeat = 100_000

  static let topLevelKeys = [
    "name", "tags", "user", "start", "timezone", "locale", "experiments", "followUps", "env", "steps",
  ]
  static let subScriptKeys = ["name", "tags", "env", "steps"]
  static let commands = [
    "launch", "relaunch", "start", "tap", "select", "enter", "set", "toggle", "back", "close", "expect",
    "advance", "network", "sync", "run", "repeat", "if", "open", "maybe",
  ]
  /// What `expect` and `if` may check.
  static let conditionKeys = [
    "screen", "alert", "idle", "flow", "outcome", "enabled", "disabled", "value", "text", "data",
    "notification",
  ]
  /// What `start: {trigger}` may name.
  static let triggers = [FlowTrigger.launch, .manual, .notification, .event].map(\.rawValue)
  static let argumentless: Set<String> = ["launch", "back", "close", "sync"]
  /// Commands whose value may be left out.
  static let optionalArgument: Set<String> = ["relaunch"]

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

  private mutating func report(_ position: SourcePosition, _ message: String) {
    problems.append(ScriptProblem(position, message))
  }

  /// The file's tree before substitution, read once however often it is run.
  private mutating func parsed(_ path: String, at position: SourcePosition?) -> YNode? {
    if let cached = parsedFiles[path] { return cached }
    var reader = YAMLReader(file: path)
    let root = reader.readFile(what: "script file", namedAt: position)
    problems += reader.problems
    parsedFiles[path] = .some(root)
    return root
  }

  /// The file's own `env:` (defaults), read without substitution.
  private mutating func ownEnvironment(of root: YNode) -> [String: String] {
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

  private mutating func substituted(_ root: YNode, _ variables: [String: String]) -> YNode {
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

  private mutating func forcedVariations(_ node: YNode) -> [String: String] {
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

  private mutating func steps(
    in entries: [(key: String, keyPosition: SourcePosition, value: YNode)], of root: YNode, directory: String,
    variables: [String: String]
  ) -> [Step] {
    guard let stepsNode = entries.first(where: { $0.key == "steps" })?.value else {
      report(root.position, "the script has no steps (add `steps:` with a list of steps)")
      return []
    }
    return stepList(stepsNode, directory: directory, variables: variables)
  }

  private mutating func stepList(_ node: YNode, directory: String, variables: [String: String]) -> [Step] {
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
      var count = 1
      switch step.kind {
      case .run(_, let body): count = 1 &+ executedCount(body)
      case .repeat(let times, let body):
        let product = executedCount(body).multipliedReportingOverflow(by: times)
        count = product.overflow ? .max : 1 &+ product.partialValue
      case .if(_, let thenSteps, let elseSteps):
        count = 1 &+ max(executedCount(thenSteps), executedCount(elseSteps))
      case .maybe(_, let body): count = 1 &+ executedCount(body)
      default: break
      }
      let sum = total.addingReportingOverflow(count)
      total = sum.overflow || count < 0 ? .max : sum.partialValue
    }
    return total
  }

  private mutating func step(_ node: YNode, directory: String, variables: [String: String]) -> Step? {
    var label: String?
    var isOptional = false
    let command: String
    let argument: YNode?
    let commandPosition: SourcePosition
    var extra: [(key: String, keyPosition: SourcePosition, value: YNode)] = []

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
        case "then", "else": extra.append(entry)
        default:
          if found == nil {
            found = entry
          } else {
            report(
              entry.keyPosition,
              "a step has one command; '\(clipped(entry.key))' follows '\(clipped(found!.key))' (start a new `- ` item)"
            )
          }
        }
      }
      guard let found else {
        report(
          node.position, "the step names no command (commands: \(Self.commands.joined(separator: ", ")))")
        return nil
      }
      command = found.key
      argument = found.value.value.isNull ? nil : found.value
      commandPosition = found.keyPosition
      if command != "if" {
        for entry in extra { report(entry.keyPosition, "'\(clipped(entry.key))' belongs to an `if` step") }
      }
    default:
      report(node.position, "a step is a command name or a mapping, got \(node.described)")
      return nil
    }

    guard Self.commands.contains(command) else {
      report(
        commandPosition, "unknown command '\(clipped(command))'\(suggestion(command, among: Self.commands))")
      return nil
    }
    if Self.argumentless.contains(command) {
      if let argument {
        report(argument.position, "'\(clipped(command))' takes no value, got \(argument.quoted)")
      }
    } else if argument == nil, !Self.optionalArgument.contains(command) {
      report(commandPosition, "'\(clipped(command))' needs a value")
      return nil
    }
    let position = node.position
    func make(_ kind: StepKind, _ summary: String) -> Step {
      Step(kind: kind, position: position, label: label, isOptional: isOptional, summary: summary)
    }

    switch command {
    case "launch": return make(.launch, "launch")
    case "relaunch":
      // `{clearState: true}` (Maestro's word) relaunches as a fresh install signed in
      // to the same account: local data gone, the backend's rows kept.
      guard let argument else { return make(.relaunch(clearState: false), "relaunch") }
      guard let entries = argument.entries else {
        report(argument.position, "relaunch takes nothing or {clearState: true}, got \(argument.typeName)")
        return nil
      }
      checkKeys(entries, allowed: ["clearState"], what: "relaunch")
      let clear = entries.first { $0.key == "clearState" }.flatMap { bool($0.value, "clearState") } ?? false
      return make(.relaunch(clearState: clear), clear ? "relaunch {clearState: true}" : "relaunch")
    case "sync": return make(.sync, "sync")
    case "network":
      guard let text = argument!.scalarText, let state = NetworkState(rawValue: text) else {
        report(argument!.position, "network takes offline or online, got \(argument!.quoted)")
        return nil
      }
      return make(.network(state), "network \(state.rawValue)")
    case "back": return make(.action(.back), "back")
    case "close": return make(.action(.close), "close")
    case "start":
      guard let request = flowRequest(argument!) else { return nil }
      return make(.start(request), "start \(request)")
    case "tap":
      guard let id = argument!.scalarText else {
        report(argument!.position, "tap takes an element id, got \(argument!.typeName)")
        return nil
      }
      checkElement(id, at: argument!.position, allowAlertButtons: true)
      return make(.action(.tap(id)), "tap \(id)")
    case "select", "enter", "set", "toggle":
      guard let action = elementAction(command, argument!) else { return nil }
      return make(.action(action), action.description)
    case "expect":
      let conditions = conditions(argument!)
      return make(.expect(conditions), "expect \(conditionSummary(argument!))")
    case "advance":
      guard let advance = clockAdvance(argument!) else { return nil }
      return make(.advance(advance), "advance \(argument!.text)")
    case "run":
      return runStep(argument!, directory: directory, variables: variables).map { make($0.kind, $0.summary) }
    case "repeat":
      guard let entries = argument!.entries else {
        report(argument!.position, "repeat takes {times: N, steps: […]}, got \(argument!.typeName)")
        return nil
      }
      checkKeys(entries, allowed: ["times", "steps"], what: "repeat")
      var times = 0
      if let timesNode = entries.first(where: { $0.key == "times" })?.value {
        if case .number(let number) = timesNode.value, let count = Int(exactly: number),
          (0...Self.maxRepeat).contains(count)
        {
          times = count
        } else {
          report(
            timesNode.position,
            "times must be a whole number from 0 to \(Self.maxRepeat), got \(timesNode.quoted)")
        }
      } else {
        report(argument!.position, "repeat needs `times`")
      }
      guard let body = entries.first(where: { $0.key == "steps" })?.value else {
        report(argument!.position, "repeat needs `steps`")
        return nil
      }
      let bodySteps = stepList(body, directory: directory, variables: variables)
      let executed = Self.executedCount(bodySteps).multipliedReportingOverflow(by: times)
      if executed.overflow || executed.partialValue > Self.maxExecutedSteps {
        report(
          argument!.position,
          "this repeat would take more than \(Self.maxExecutedSteps) steps (\(times) times a body of \(Self.executedCount(bodySteps)))"
        )
        return nil
      }
      return make(.repeat(times: times, steps: bodySteps), "repeat \(times) times")
    case "open":
      guard let id = string(argument!, "open") else { return nil }
      guard vocabulary.notifications.contains(id) else {
        report(argument!.position, "unknown notification '\(clipped(id))'\(notificationList(id))")
        return nil
      }
      return make(.open(notification: id), "open \(id)")
    case "maybe":
      guard let entries = argument!.entries else {
        report(argument!.position, "maybe takes {p: 0.3, steps: […]}, got \(argument!.typeName)")
        return nil
      }
      checkKeys(entries, allowed: ["p", "steps"], what: "maybe")
      var probability: Double?
      if let pNode = entries.first(where: { $0.key == "p" })?.value {
        if case .number(let number) = pNode.value, number.isFinite, (0...1).contains(number) {
          probability = number
        } else {
          let shown = if case .number = pNode.value { pNode.text } else { pNode.quoted }
          report(pNode.position, "p must be a probability from 0 to 1, got \(shown)")
        }
      } else {
        report(argument!.position, "maybe needs `p` (the probability its steps run, 0 to 1)")
      }
      guard let body = entries.first(where: { $0.key == "steps" })?.value else {
        report(argument!.position, "maybe needs `steps`")
        return nil
      }
      let bodySteps = stepList(body, directory: directory, variables: variables)
      guard let probability else { return nil }
      return make(.maybe(p: probability, steps: bodySteps), "maybe (p \(formatNumber(probability)))")
    case "if":
      let conditions = conditions(argument!)
      guard let thenNode = extra.first(where: { $0.key == "then" })?.value else {
        report(commandPosition, "if needs `then:` with a list of steps")
        return nil
      }
      let thenSteps = stepList(thenNode, directory: directory, variables: variables)
      let elseSteps =
        extra.first(where: { $0.key == "else" }).map {
          stepList($0.value, directory: directory, variables: variables)
        } ?? []
      return make(.if(conditions, then: thenSteps, else: elseSteps), "if \(conditionSummary(argument!))")
    default:
      return nil
    }
  }

  private mutating func runStep(_ node: YNode, directory: String, variables: [String: String]) -> (
    kind: StepKind, summary: String
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
    return (.run(file: normalized, steps: steps), "run \(file)")
  }

  private mutating func flowRequest(_ node: YNode) -> FlowRequest? {
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

  private mutating func elementAction(_ command: String, _ node: YNode) -> UserAction? {
    guard let entries = node.entries, entries.count == 1, let entry = entries.first else {
      report(
        node.position,
        "\(command) takes one {element: value} pair, got \(node.typeName == "a mapping" ? "\(node.entries!.count) pairs" : node.typeName)"
      )
      return nil
    }
    checkElement(entry.key, at: entry.keyPosition, allowAlertButtons: false)
    let value = entry.value
    switch command {
    case "select":
      if let items = value.items {
        let ids = items.compactMap { item -> String? in
          guard let text = item.scalarText else {
            report(item.position, "select \(entry.key) takes option ids, got \(item.typeName)")
            return nil
          }
          checkOption(text, of: entry.key, at: item.position)
          return text
        }
        return .select(entry.key, ids)
      }
      guard let id = value.scalarText else {
        report(
          value.position, "select \(entry.key) takes an option id or a list of them, got \(value.typeName)")
        return nil
      }
      checkOption(id, of: entry.key, at: value.position)
      return .select(entry.key, [id])
    case "enter":
      guard let text = value.scalarText else {
        report(value.position, "enter \(entry.key) takes text, got \(value.typeName)")
        return nil
      }
      return .enter(entry.key, text)
    case "set":
      guard case .number(let number) = value.value else {
        report(value.position, "set \(entry.key) takes a number, got \(value.described)")
        return nil
      }
      return .set(entry.key, number)
    default:
      guard case .bool(let isOn) = value.value else {
        report(
          value.position, "toggle \(entry.key) takes true or false, got \(value.described)")
        return nil
      }
      return .toggle(entry.key, isOn)
    }
  }

  private mutating func conditions(_ node: YNode) -> [Condition] {
    guard let entries = node.entries else {
      report(node.position, "expect takes a mapping of conditions, got \(node.described)")
      return []
    }
    checkKeys(entries, allowed: Self.conditionKeys, what: "expect")
    var conditions: [Condition] = []
    let flow = entries.first(where: { $0.key == "flow" })
    for entry in entries {
      let value = entry.value
      switch entry.key {
      case "screen":
        guard let id = string(value, "screen") else { continue }
        if !vocabulary.screens.contains(id) {
          report(
            value.position,
            "unknown screen '\(clipped(id))'\(suggestion(id, among: Array(vocabulary.screens)))")
        }
        conditions.append(.screen(id))
      case "alert":
        if value.value.isNull {
          conditions.append(.alert(nil))
        } else if let id = string(value, "alert") {
          if !vocabulary.alerts.contains(id) {
            report(
              value.position,
              "unknown alert '\(clipped(id))'\(suggestion(id, among: Array(vocabulary.alerts)))")
          }
          conditions.append(.alert(id))
        }
      case "idle":
        if let idle = bool(value, "idle") { conditions.append(.idle(idle)) }
      case "notification":
        if value.value.isNull {
          conditions.append(.notification(nil))
        } else if let id = string(value, "notification") {
          if !vocabulary.notifications.contains(id) {
            report(value.position, "unknown notification '\(clipped(id))'\(notificationList(id))")
          }
          conditions.append(.notification(id))
        }
      case "flow":
        guard let id = string(value, "flow") else { continue }
        if vocabulary.flows[id] == nil {
          report(
            value.position,
            "unknown flow '\(clipped(id))'\(suggestion(id, among: Array(vocabulary.flows.keys)))")
        }
        if entries.contains(where: { $0.key == "outcome" }) == false { conditions.append(.topFlow(id)) }
      case "outcome":
        guard let text = string(value, "outcome") else { continue }
        guard let outcome = FlowEnding.Outcome(rawValue: text) else {
          report(value.position, "outcome is completed or cancelled, got '\(clipped(text))'")
          continue
        }
        guard let flowID = flow?.value.string else {
          report(entry.keyPosition, "outcome needs `flow` (whose latest run it describes)")
          continue
        }
        conditions.append(.outcome(flow: flowID, outcome))
      case "enabled", "disabled":
        guard let id = string(value, entry.key) else { continue }
        checkElement(id, at: value.position, allowAlertButtons: false)
        conditions.append(entry.key == "enabled" ? .enabled(id) : .disabled(id))
      case "text":
        guard let text = value.scalarText else {
          report(value.position, "text takes the text to find on the screen, got \(value.typeName)")
          continue
        }
        conditions.append(.text(text))
      case "value":
        guard let pairs = value.entries else {
          report(value.position, "value takes {element: value}, got \(value.typeName)")
          continue
        }
        for pair in pairs {
          checkElement(pair.key, at: pair.keyPosition, allowAlertButtons: false)
          if let matcher = matcher(pair.value, type: nil, what: "value of \(pair.key)") {
            switch (matcher, pair.value.value) {
            case (.text(let id), _): checkOption(id, of: pair.key, at: pair.value.position)
            case (.list(let ids), .list(let items)):
              for (id, item) in zip(ids, items) { checkOption(id, of: pair.key, at: item.position) }
            default: break
            }
            conditions.append(.value(element: pair.key, matcher))
          }
        }
      case "data":
        guard let pairs = value.entries else {
          report(value.position, "data takes {query: value}, got \(value.typeName)")
          continue
        }
        for pair in pairs {
          guard let type = vocabulary.queries[pair.key] else {
            report(
              pair.keyPosition,
              "unknown query '\(clipped(pair.key))'\(suggestion(pair.key, among: Array(vocabulary.queries.keys)))"
            )
            continue
          }
          if let matcher = matcher(pair.value, type: type, what: pair.key) {
            conditions.append(.data(query: pair.key, matcher))
          }
        }
      default:
        break
      }
    }
    return conditions
  }

  private func notificationList(_ id: String) -> String {
    let known = vocabulary.notifications.sorted()
    guard !known.isEmpty else { return " (no registered feature sends notifications)" }
    return suggestion(id, among: known) + " (notifications: \(known.joined(separator: ", ")))"
  }

  /// Context check-ins under `followUps:`: a list of `{id?, after, outcome?, when?, present}`.
  mutating func followUpDeclarations(_ node: YNode) -> [FollowUpDeclaration] {
    guard let items = node.items else {
      report(node.position, "followUps takes a list of {after, when, present}, got \(node.typeName)")
      return []
    }
    var declarations: [FollowUpDeclaration] = []
    var ids = Set<String>()
    for (index, item) in items.enumerated() {
      guard let entries = item.entries else {
        report(item.position, "a follow-up is a mapping {after, when, present}, got \(item.typeName)")
        continue
      }
      checkKeys(entries, allowed: ["id", "after", "outcome", "when", "present"], what: "follow-up")
      func field(_ name: String) -> YNode? { entries.first { $0.key == name }?.value }
      guard let afterNode = field("after") else {
        report(item.position, "a follow-up needs `after` (the flow whose ending it follows)")
        continue
      }
      guard let after = string(afterNode, "after") else { continue }
      if vocabulary.flows[after] == nil {
        report(
          afterNode.position,
          "unknown flow '\(clipped(after))'\(suggestion(after, among: Array(vocabulary.flows.keys)))")
      }
      var outcome = FlowEnding.Outcome.completed
      if let node = field("outcome"), let text = string(node, "outcome") {
        if let parsed = FlowEnding.Outcome(rawValue: text) {
          outcome = parsed
        } else {
          report(node.position, "outcome is completed or cancelled, got '\(clipped(text))'")
        }
      }
      var checks: [(query: String, matcher: Matcher)] = []
      if let node = field("when") {
        if let pairs = node.entries {
          for pair in pairs {
            guard let type = vocabulary.queries[pair.key] else {
              report(
                pair.keyPosition,
                "unknown query '\(clipped(pair.key))'\(suggestion(pair.key, among: Array(vocabulary.queries.keys)))"
              )
              continue
            }
            if let matcher = matcher(pair.value, type: type, what: pair.key) {
              checks.append((pair.key, matcher))
            }
          }
        } else {
          report(node.position, "when takes {query: value}, got \(node.typeName)")
        }
      }
      guard let presentNode = field("present") else {
        report(item.position, "a follow-up needs `present` (the flow to offer)")
        continue
      }
      guard var request = flowRequest(presentNode) else { continue }
      request.trigger = .event
      var id = "\(after)->\(request.flow)"
      if let node = field("id") { id = string(node, "id") ?? id }
      if !ids.insert(id).inserted {
        id += "#\(index + 1)"
        if !ids.insert(id).inserted { report(item.position, "follow-up id '\(clipped(id))' is given twice") }
      }
      declarations.append(
        FollowUpDeclaration(
          id: id, after: after, outcome: outcome, when: checks, present: request, position: item.position))
    }
    return declarations
  }

  /// Problems found so far (an experiment file's loader reads follow-ups through this type).
  var reportedProblems: [ScriptProblem] { problems }

  /// An expected value, checked against the query's type where it is known.
  /// `{value: {notes: text field, 5 characters}}`: conditions as transcripts show them,
  /// with the text a person types given as its length.
  private func conditionSummary(_ node: YNode) -> String {
    guard let entries = node.entries else { return node.summaryText }
    func redacted(_ pairs: YNode, keeping secret: Set<String>) -> String {
      guard let entries = pairs.entries else { return pairs.summaryText }
      return "{"
        + entries.map { entry in
          let value =
            secret.contains(entry.key) && entry.value.scalarText != nil
            ? describeFreeText(entry.value.text) : entry.value.summaryText
          return "\(entry.key): \(value)"
        }.joined(separator: ", ") + "}"
    }
    return "{"
      + entries.map { entry in
        switch entry.key {
        case "value": "value: \(redacted(entry.value, keeping: vocabulary.textFields))"
        case "data": "data: \(redacted(entry.value, keeping: vocabulary.freeTextQueries))"
        default: "\(entry.key): \(entry.value.summaryText)"
        }
      }.joined(separator: ", ") + "}"
  }

  private mutating func matcher(_ node: YNode, type: QueryType?, what: String) -> Matcher? {
    func wrongType(_ expected: String) -> Matcher? {
      report(node.position, "\(what) is \(expected), got \(node.described)")
      return nil
    }
    switch node.value {
    case .null:
      return type == .bool ? wrongType("a flag (true or false)") : Matcher.none
    case .bool(let bool):
      if let type, type != .bool { return wrongType(type.phrase) }
      return .bool(bool)
    case .number(let number):
      if let type, type != .number, type != .text { return wrongType(type.phrase) }
      return type == .text ? .text(node.text) : .number(number)
    case .string(let text):
      if let type, type != .text { return wrongType(type.phrase) }
      return .text(text)
    case .list(let items):
      if let type, type != .list { return wrongType(type.phrase) }
      var ids: [String] = []
      for item in items {
        guard let text = item.scalarText else {
          report(item.position, "\(what) lists single values, got \(item.typeName)")
          return nil
        }
        ids.append(text)
      }
      return .list(ids)
    case .map(let entries):
      if let type, type != .number { return wrongType(type.phrase) }
      checkKeys(entries, allowed: ["min", "max"], what: "range")
      var bounds: [String: Double] = [:]
      for entry in entries {
        guard case .number(let number) = entry.value.value else {
          report(
            entry.value.position,
            "\(entry.key) must be a number, got \(entry.value.described)")
          continue
        }
        bounds[entry.key] = number
      }
      return .range(min: bounds["min"], max: bounds["max"])
    }
  }

  /// The longest single `advance`: a hundred years in any unit.
  static let maxAdvanceSeconds = 100 * 366 * 86_400.0

  private mutating func clockAdvance(_ node: YNode) -> ClockAdvance? {
    let text = node.text
    // Digits, an optional fraction, one unit: no signs, exponents, `inf` or `nan`.
    let number = text.dropLast()
    let isDecimal =
      !number.isEmpty && number.first != "." && number.last != "."
      && number.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
      && number.filter { $0 == "." }.count <= 1
    guard let unit = text.last, "smhd".contains(unit), isDecimal, number.count <= 20,
      let amount = Double(number)
    else {
      report(
        node.position, "advance takes an amount and a unit (s, m, h, d), e.g. 1d or 90m; got \(node.quoted)")
      return nil
    }
    let scale: Double = ["s": 1, "m": 60, "h": 3600, "d": 86_400][unit]!
    guard amount * scale <= Self.maxAdvanceSeconds else {
      report(
        node.position,
        "advance moves the clock at most 100 years at a time (36600d), got \(node.quoted)")
      return nil
    }
    if unit == "d" {
      guard let days = Int(exactly: amount) else {
        report(node.position, "days advance in whole calendar days, got \(node.quoted)")
        return nil
      }
      return .days(days)
    }
    return .seconds(amount * scale)
  }

  /// The years a script's clock may start in: after the Unix epoch (entry ids hold
  /// milliseconds since it) and within four-digit years.
  static let startYears = 1970...9999

  private mutating func localDateTime(_ node: YNode) -> DateComponents? {
    guard let text = string(node, "start") else { return nil }
    func fail(_ why: String) -> DateComponents? {
      report(
        node.position,
        "start is a local date-time YYYY-MM-DDTHH:MM[:SS] without a zone, got \(node.quoted)\(why)")
      return nil
    }
    // Read as text, exactly: 4-2-2 digits, `T`, 2:2[:2] digits.
    let characters = Array(text.utf8)
    let shape = characters.count == 16 ? "dddd-dd-ddTdd:dd" : "dddd-dd-ddTdd:dd:dd"
    guard characters.count == shape.utf8.count,
      zip(characters, shape.utf8).allSatisfy({ c, s in s == UInt8(ascii: "d") ? (48...57).contains(c) : c == s
      })
    else { return fail("") }
    func field(_ offset: Int, _ length: Int) -> Int {
      characters[offset..<offset + length].reduce(0) { $0 * 10 + Int($1 - 48) }
    }
    let (year, month, day) = (field(0, 4), field(5, 2), field(8, 2))
    let (hour, minute) = (field(11, 2), field(14, 2))
    let second = characters.count == 19 ? field(17, 2) : 0
    guard Self.startYears.contains(year) else {
      return fail(" (years \(Self.startYears.lowerBound)…\(Self.startYears.upperBound))")
    }
    guard (1...12).contains(month) else { return fail(" (no month \(month))") }
    let gregorian = ManualClock.gregorian(in: TimeZone(identifier: "UTC")!)
    let daysInMonth =
      gregorian.range(
        of: .day, in: .month, for: gregorian.date(from: DateComponents(year: year, month: month))!)?
      .count ?? 31
    guard (1...daysInMonth).contains(day) else {
      return fail(
        " (\(String(year).leftPadded(to: 4))-\(String(month).leftPadded(to: 2)) has \(daysInMonth) days)")
    }
    guard hour <= 23, minute <= 59, second <= 59 else { return fail(" (no such time of day)") }
    return DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
  }

  private mutating func checkElement(_ id: String, at position: SourcePosition, allowAlertButtons: Bool) {
    if vocabulary.elements.contains(id) || (allowAlertButtons && vocabulary.alertButtons.contains(id)) {
      return
    }
    let known = Array(vocabulary.elements) + (allowAlertButtons ? Array(vocabulary.alertButtons) : [])
    report(
      position, "unknown element '\(clipped(id))': no registered screen has it\(suggestion(id, among: known))"
    )
  }

  /// Options shown in a problem before the rest are counted.
  static let shownOptions = 12

  /// An option id of a choice whose options are declared; others are checked when shown.
  private mutating func checkOption(_ id: String, of element: String, at position: SourcePosition) {
    guard let known = vocabulary.options[element], !known.contains(id) else { return }
    // A value already reported there (an undefined variable) is not reported again.
    guard !problems.contains(where: { $0.position == position }) else { return }
    var hint = suggestion(id, among: known)
    if hint.isEmpty {
      let more = known.count > Self.shownOptions ? ", … (\(known.count) in all)" : ""
      hint = " (options: \(known.prefix(Self.shownOptions).joined(separator: ", "))\(more))"
    }
    report(position, "unknown option '\(clipped(id))' of \(element)\(hint)")
  }

  private mutating func checkKeys(
    _ entries: [(key: String, keyPosition: SourcePosition, value: YNode)], allowed: [String], what: String
  ) {
    for entry in entries where !allowed.contains(entry.key) {
      report(
        entry.keyPosition,
        "unknown key '\(clipped(entry.key))' in \(what)\(suggestion(entry.key, among: allowed))")
    }
  }

  private mutating func string(_ node: YNode, _ what: String) -> String? {
    if let text = node.string { return text }
    report(node.position, "\(what) must be text, got \(node.described)")
    return nil
  }

  private mutating func bool(_ node: YNode, _ what: String) -> Bool? {
    if case .bool(let value) = node.value { return value }
    report(node.position, "\(what) must be true or false, got \(node.described)")
    return nil
  }

  private mutating func stringList(_ node: YNode, _ what: String) -> [String] {
    if let text = node.string { return [text] }
    guard let items = node.items else {
      report(node.position, "\(what) must be a list of text, got \(node.typeName)")
      return []
    }
    return items.compactMap { string($0, what) }
  }

  private func directory(of path: String) -> String { Self.directory(of: path) }
  private static func directory(of path: String) -> String { (path as NSString).deletingLastPathComponent }

  static func isScriptName(_ name: String) -> Bool { name.hasSuffix(".yaml") || name.hasSuffix(".yml") }

  static func isRegularFile(_ path: String) -> Bool {
    (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType == .typeRegular
  }

  /// The file's absolute path with symbolic links and `..` resolved (one `realpath` call;
  /// Foundation's URL methods look at each component in turn), for telling files apart.
  private func canonical(_ path: String) -> String {
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

extension QueryType {
  var phrase: String {
    switch self {
    case .bool: "a flag (true or false)"
    case .number: "a number (or {min, max})"
    case .text: "text"
    case .list: "a list"
    }
  }
}

extension YNode.Value {
  var isNull: Bool {
    if case .null = self { return true }
    return false
  }
}

extension YNode {
  /// A compact one-line rendering of a node for transcripts: `{screen: onboarding.welcome}`.
  var summaryText: String {
    switch value {
    case .null: "null"
    case .bool, .number: text
    case .string: text.isEmpty ? "\"\"" : clipped(text)
    case .list(let items): "[" + items.map(\.summaryText).joined(separator: ", ") + "]"
    case .map(let entries):
      "{" + entries.map { "\($0.key): \($0.value.summaryText)" }.joined(separator: ", ") + "}"
    }
  }
}

/// " (did you mean 'continue'?)" when a known name is one or two edits away.
func suggestion(_ name: String, among candidates: [String]) -> String {
  // Ids are short; a long name is no typo of one, and comparing it would cost its length
  // times every candidate's.
  guard name.count <= 64 else { return "" }
  let limit = max(2, name.count / 4)
  let scored = candidates.filter { abs($0.count - name.count) <= limit }.map { ($0, editDistance(name, $0)) }
    .filter { $0.1 <= limit }
  guard let best = scored.min(by: { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }) else { return "" }
  return " (did you mean '\(clipped(best.0))'?)"
}

func editDistance(_ a: String, _ b: String) -> Int {
  let a = Array(a)
  let b = Array(b)
  if a.isEmpty { return b.count }
  if b.isEmpty { return a.count }
  var previous = Array(0...b.count)
  for i in 1...a.count {
    var current = [i] + Array(repeating: 0, count: b.count)
    for j in 1...b.count {
      current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.count]
}
