import Experiments
import FlowKit
import Foundation
import StrictJSON
import YAMLTree

/// A flow variant an experiment file declares without code: an ordered subset of the
/// flow's steps.
public struct DeclaredVariant: Sendable, Equatable {
  public var flow: String
  public var name: String
  public var steps: [String]
  public var position: SourcePosition
}

/// An experiment file, checked against the registered flows: `experiments:`
/// (GrowthBook definitions whose variations name flow variants) and `variants:`
/// (new variants made of a flow's steps) and `followUps:` (context check-ins).
public struct ExperimentFile: Sendable {
  public var path: String
  /// In file order: when several experiments share a flow, the first that includes a user
  /// decides their variant.
  public var experiments: [FlowExperiment]
  public var variants: [DeclaredVariant]
  /// Each experiment's `metrics:` (rates `wellflow report` adds to completion), by key.
  public var metrics: [String: [MetricDefinition]] = [:]
  /// Where each metric's `value:` is written, by key then metric name: a report that finds
  /// no event holding the field points there.
  public var valuePositions: [String: [String: SourcePosition]] = [:]
  /// Each experiment's `covariate:` (CUPED), by key.
  public var covariates: [String: CovariateDefinition] = [:]
  /// Keys of the experiments with `sequential: true`.
  public var sequential: Set<String> = []
  /// The registry given, with the file's variants registered.
  public var registry: FlowRegistry

  /// Each experiment's variation names, by key (what scripts may force).
  public var variationsByExperiment: [String: [String]] {
    Dictionary(experiments.map { ($0.key, $0.variations) }, uniquingKeysWith: { first, _ in first })
  }

  public static let topLevelKeys = ["experiments", "variants", "followUps"]
  public static let experimentKeys = [
    "key", "flow", "variations", "weights", "coverage", "hashVersion", "condition", "hashAttribute", "seed",
    "namespace", "metrics", "sequential", "covariate",
  ]
  public static let metricKeys = ["name", "event", "screen", "flow", "value", "guardrail", "lowerIsBetter"]

  /// Reads and checks the file; every problem is reported, one `file:line:column: message`
  /// each, and nothing is returned unless there are none.
  public static func load(path: String, registry: FlowRegistry) -> Result<ExperimentFile, ScriptLoadFailure> {
    var loader = ExperimentFileLoader(path: path, registry: registry)
    let file = loader.load()
    if let file, loader.problems.isEmpty { return .success(file) }
    let problems = loader.problems.enumerated().sorted { a, b in
      (a.element.position.line, a.element.position.column, a.offset)
        < (b.element.position.line, b.element.position.column, b.offset)
    }.map(\.element)
    return .failure(ScriptLoadFailure(problems: problems))
  }
}

private struct ExperimentFileLoader {
  let path: String
  var registry: FlowRegistry
  var problems: [ScriptProblem] = []
  var metrics: [String: [MetricDefinition]] = [:]
  var valuePositions: [String: [String: SourcePosition]] = [:]
  var covariates: [String: CovariateDefinition] = [:]
  var sequential: Set<String> = []

  init(path: String, registry: FlowRegistry) {
    self.path = path
    self.registry = registry
  }

  mutating func report(_ position: SourcePosition, _ message: String) {
    problems.append(ScriptProblem(position, message))
  }

  mutating func load() -> ExperimentFile? {
    var reader = YAMLReader(file: path)
    let root = reader.readFile(what: "experiment file")
    problems += reader.problems
    guard let root else { return nil }
    guard let entries = root.entries else {
      report(
        root.position, "an experiment file is a mapping with experiments: and variants:, got \(root.typeName)"
      )
      return nil
    }
    for entry in entries where !ExperimentFile.topLevelKeys.contains(entry.key) {
      report(
        entry.keyPosition,
        "unknown key '\(clipped(entry.key))' in experiment file"
          + suggestion(entry.key, among: ExperimentFile.topLevelKeys)
          + " (keys: \(ExperimentFile.topLevelKeys.joined(separator: ", ")))")
    }
    // Variants first: experiments may name them.
    var variants: [DeclaredVariant] = []
    if let node = entries.first(where: { $0.key == "variants" })?.value {
      variants = declaredVariants(node)
    }
    var hasFollowUps = false
    if let node = entries.first(where: { $0.key == "followUps" })?.value {
      // After the variants: a follow-up may present one.
      var reader = ScriptLoader(vocabulary: ScriptVocabulary(registry: registry))
      let declarations = reader.followUpDeclarations(node)
      problems += reader.reportedProblems
      switch registry.registering(declarations) {
      case .success(let withRules): registry = withRules
      case .failure(let problem): problems.append(problem)
      }
      hasFollowUps = true
    }
    var experiments: [FlowExperiment] = []
    if let node = entries.first(where: { $0.key == "experiments" })?.value {
      experiments = experimentList(node)
    } else if !hasFollowUps && entries.first(where: { $0.key == "variants" }) == nil {
      report(
        root.position,
        "the file declares nothing (add `experiments:` with a list of experiments, `variants:` or `followUps:`)"
      )
    }
    var file = ExperimentFile(path: path, experiments: experiments, variants: variants, registry: registry)
    file.metrics = metrics
    file.valuePositions = valuePositions
    file.covariates = covariates
    file.sequential = sequential
    return file
  }

  // MARK: variants

  mutating func declaredVariants(_ node: YNode) -> [DeclaredVariant] {
    guard let flows = node.entries else {
      report(node.position, "variants must map a flow to its new variants, got \(node.typeName)")
      return []
    }
    var declared: [DeclaredVariant] = []
    for (flowID, flowPosition, variantsNode) in flows {
      guard let flow = registry.flow(flowID) else {
        report(flowPosition, "variants: unknown flow '\(clipped(flowID))'\(flowList(flowID))")
        continue
      }
      guard let stepVariants = flow.stepVariants else {
        report(
          flowPosition,
          "variants: flow '\(clipped(flowID))' cannot make variants from steps (it registers no step list)")
        continue
      }
      guard let variants = variantsNode.entries else {
        report(
          variantsNode.position,
          "variants of \(flowID) must map a variant name to {steps: […]}, got \(variantsNode.typeName)")
        continue
      }
      for (name, namePosition, body) in variants {
        guard let variant = variant(name, at: namePosition, body, of: flow, stepVariants) else { continue }
        declared.append(variant)
      }
    }
    return declared
  }

  mutating func variant(
    _ name: String, at namePosition: SourcePosition, _ body: YNode, of flow: FlowDefinition,
    _ stepVariants: StepVariants
  ) -> DeclaredVariant? {
    if flow.variants.contains(name) {
      report(
        namePosition,
        "flow '\(clipped(flow.id))' already has a variant '\(clipped(name))' (variants: \(flow.variants.joined(separator: ", ")))"
      )
      return nil
    }
    guard let fields = body.entries else {
      report(body.position, "variant \(name) of \(flow.id) takes {steps: […]}, got \(body.typeName)")
      return nil
    }
    for field in fields where field.key != "steps" {
      report(
        field.keyPosition, "unknown key '\(clipped(field.key))' in variant \(name) (a variant takes steps)")
    }
    guard let stepsNode = fields.first(where: { $0.key == "steps" })?.value else {
      report(
        body.position,
        "variant \(name) of \(flow.id) needs steps: [\(stepVariants.steps.joined(separator: ", "))]")
      return nil
    }
    guard let items = stepsNode.items else {
      report(stepsNode.position, "steps must be a list of \(flow.id)'s steps, got \(stepsNode.typeName)")
      return nil
    }
    var steps: [String] = []
    var valid = true
    let order = stepVariants.steps.joined(separator: ", ")
    for item in items {
      var problem: String?
      if let step = item.string {
        if !stepVariants.steps.contains(step) {
          problem =
            "unknown step '\(clipped(step))' of \(flow.id)\(suggestion(step, among: stepVariants.steps)) (steps: \(order))"
        } else if steps.contains(step) {
          problem = "step '\(clipped(step))' is listed twice"
        } else if let last = steps.last,
          stepVariants.steps.firstIndex(of: step)! < stepVariants.steps.firstIndex(of: last)!
        {
          problem =
            "step '\(clipped(step))' comes after '\(clipped(last))' in \(flow.id) (its order: \(order))"
        } else {
          steps.append(step)
        }
      } else {
        problem = "a step is a name, got \(item.described)"
      }
      if let problem {
        report(item.position, "steps: \(problem)")
        valid = false
      }
    }
    guard valid else { return nil }
    do {
      try registry.registerVariant(name, of: flow.id, steps: steps)
    } catch {
      report(stepsNode.position, "steps: \(error.description)")
      return nil
    }
    return DeclaredVariant(flow: flow.id, name: name, steps: steps, position: namePosition)
  }

  // MARK: experiments

  mutating func experimentList(_ node: YNode) -> [FlowExperiment] {
    guard let items = node.items else {
      report(node.position, "experiments must be a list of experiments, got \(node.typeName)")
      return []
    }
    var experiments: [FlowExperiment] = []
    var firstLine: [String: Int] = [:]
    for item in items {
      let (experiment, keyNode) = experiment(item)
      if let keyNode, let key = keyNode.string {
        if let line = firstLine[key] {
          report(keyNode.position, "key: duplicate experiment key '\(clipped(key))' (first on line \(line))")
          continue
        }
        firstLine[key] = keyNode.position.line
      }
      if let experiment { experiments.append(experiment) }
    }
    return experiments
  }

  /// The experiment when it has no problem, and its key's node when it has one.
  mutating func experiment(_ node: YNode) -> (FlowExperiment?, YNode?) {
    guard let entries = node.entries else {
      report(node.position, "an experiment is a mapping with key, flow and variations, got \(node.typeName)")
      return (nil, nil)
    }
    for entry in entries where !ExperimentFile.experimentKeys.contains(entry.key) {
      report(
        entry.keyPosition,
        "unknown key '\(clipped(entry.key))' in experiment"
          + suggestion(entry.key, among: ExperimentFile.experimentKeys)
          + " (keys: \(ExperimentFile.experimentKeys.joined(separator: ", ")))")
    }
    func field(_ name: String) -> YNode? { entries.first { $0.key == name }?.value }
    let problemsBefore = problems.count
    var missing: [String] = []
    let keyNode = field("key")
    let key = keyNode.flatMap { text($0, "key") }
    if keyNode == nil { missing.append("key") }
    // A key names events, sticky buckets and the report: whole, as written.
    if let key, let keyNode, let control = ControlCharacter.first(in: key) {
      report(keyNode.position, "key '\(clipped(key))' holds \(control)")
    }
    let flowNode = field("flow")
    let flowID = flowNode.flatMap { text($0, "flow") }
    if flowNode == nil { missing.append("flow") }
    let variationsNode = field("variations")
    if variationsNode == nil { missing.append("variations") }
    if !missing.isEmpty {
      report(
        node.position,
        "the experiment\(key.map { " '\($0)'" } ?? "") has no \(missing.joined(separator: ", "))"
          + " (an experiment needs key, flow and variations)")
    }
    var variationNodes: [YNode] = []
    if let variationsNode {
      if let items = variationsNode.items {
        variationNodes = items
        for item in items where item.string == nil {
          report(item.position, "variations: a variation is a variant name, got \(item.described)")
        }
      } else {
        report(
          variationsNode.position,
          "variations must be a list of variant names, got \(variationsNode.typeName)")
      }
    }
    let variations = variationNodes.compactMap(\.string)

    var flow: FlowDefinition?
    if let flowID, let flowNode {
      flow = registry.flow(flowID)
      if flow == nil {
        report(flowNode.position, "flow: unknown flow '\(clipped(flowID))'\(flowList(flowID))")
      }
    }
    if let flow {
      for item in variationNodes {
        guard let name = item.string, !flow.variants.contains(name) else { continue }
        report(
          item.position,
          "variations: '\(clipped(name))' is not a variant of flow '\(clipped(flow.id))'"
            + suggestion(name, among: flow.variants)
            + " (variants: \(flow.variants.joined(separator: ", ")))")
      }
    }

    var experiment = FlowExperiment(key: key ?? "", flow: flowID ?? "", variations: variations)
    if let node = field("weights") {
      if let items = node.items {
        let numbers = items.compactMap { number($0, "weights") }
        if numbers.count == items.count { experiment.weights = numbers }
      } else {
        report(node.position, "weights must be a list of numbers, one per variation, got \(node.described)")
      }
    }
    if let node = field("coverage") { experiment.coverage = number(node, "coverage") }
    if let node = field("hashVersion"), let version = number(node, "hashVersion") {
      if version == version.rounded(), let integer = Int(exactly: version) {
        experiment.hashVersion = integer
      } else {
        report(node.position, "unknown hashVersion \(node.text) (GrowthBook has 1, the default, and 2)")
      }
    }
    if let node = field("hashAttribute") { experiment.hashAttribute = text(node, "hashAttribute") }
    if let node = field("seed") { experiment.seed = node.scalarText }
    if let node = field("namespace") { experiment.namespace = namespace(node) }
    if let node = field("metrics"), let key {
      metrics[key] = metricList(node, key: key)
    }
    if let node = field("sequential") {
      if case .bool(let flag) = node.value {
        if flag, let key { sequential.insert(key) }
      } else {
        report(node.position, "sequential must be true or false, got \(node.described)")
      }
    }
    if let node = field("covariate"), let covariate = covariate(node), let key {
      covariates[key] = covariate
    }
    var conditionNode: YNode?
    if let node = field("condition") {
      conditionNode = node
      experiment.condition = Self.json(node)
    }
    for problem in experiment.problems() {
      // Variation problems other than duplicates were reported above, with positions.
      if problem.field == "variations", variationsNode == nil || variations.count != variationNodes.count {
        continue
      }
      var position = field(problem.field)?.position ?? node.position
      var message = problem.message
      if problem.field == "condition", let conditionNode {
        position = Self.node(at: problem.conditionPath, in: conditionNode)?.position ?? conditionNode.position
        let path = problem.conditionPath.map(\.description).joined(separator: ".")
        message = "condition\(path.isEmpty ? "" : " at \(path)"): \(problem.message)"
      }
      report(position, message)
    }
    guard problems.count == problemsBefore, keyNode != nil else { return (nil, keyNode) }
    return (experiment, keyNode)
  }

  /// `metrics: [returned_next_day, {event: mood_saved}, {name: …, event: screen_viewed, screen: …, flow: …}]`
  /// `covariate: {event: NAME, value: FIELD}`: CUPED's pre-exposure figure.
  mutating func covariate(_ node: YNode) -> CovariateDefinition? {
    let shape = "covariate must be {event: NAME, value: FIELD} (a numeric field of events before exposure)"
    guard let fields = node.entries else {
      report(node.position, "\(shape), got \(node.described)")
      return nil
    }
    let keys = ["event", "value"]
    for field in fields where !keys.contains(field.key) {
      report(
        field.keyPosition,
        "unknown key '\(clipped(field.key))' in covariate" + suggestion(field.key, among: keys)
          + " (keys: event, value)")
    }
    var found: [String: String] = [:]
    for name in keys {
      guard let value = fields.first(where: { $0.key == name })?.value else {
        report(node.position, "covariate: \(name) is required; \(shape)")
        continue
      }
      guard let text = value.string, !text.isEmpty else {
        report(value.position, "covariate: \(name) must be text, got \(value.described)")
        continue
      }
      found[name] = text
    }
    guard let event = found["event"], let value = found["value"] else { return nil }
    return CovariateDefinition(event: event, value: value)
  }

  mutating func metricList(_ node: YNode, key: String) -> [MetricDefinition] {
    guard let items = node.items else {
      report(
        node.position,
        "metrics must be a list (returned_next_day, or {event, screen, flow, value, guardrail, lowerIsBetter, name}), got \(node.typeName)"
      )
      return []
    }
    var metrics: [MetricDefinition] = []
    var names: [String: Int] = [:]
    for item in items {
      var metric: MetricDefinition?
      if let text = item.string {
        if text == MetricDefinition.returnedNextDay.name {
          metric = .returnedNextDay
        } else {
          report(
            item.position,
            "metrics: '\(clipped(text))' is not a metric; write returned_next_day or {event: NAME, screen: ID, flow: ID}"
          )
        }
      } else if let fields = item.entries {
        for field in fields where !ExperimentFile.metricKeys.contains(field.key) {
          report(
            field.keyPosition,
            "unknown key '\(clipped(field.key))' in metric"
              + suggestion(field.key, among: ExperimentFile.metricKeys)
              + " (keys: \(ExperimentFile.metricKeys.joined(separator: ", ")))")
        }
        func value(_ name: String) -> String? {
          guard let node = fields.first(where: { $0.key == name })?.value else { return nil }
          guard let text = node.string, !text.isEmpty else {
            report(node.position, "metrics: \(name) must be text, got \(node.described)")
            return nil
          }
          return text
        }
        let event = value("event")
        let screen = value("screen")
        let flow = value("flow")
        if let flow, let flowNode = fields.first(where: { $0.key == "flow" })?.value,
          registry.flow(flow) == nil
        {
          report(flowNode.position, "metrics: unknown flow '\(clipped(flow))'\(flowList(flow))")
        }
        let field = value("value")
        func flag(_ name: String) -> Bool {
          guard let node = fields.first(where: { $0.key == name })?.value else { return false }
          guard case .bool(let flag) = node.value else {
            report(node.position, "metrics: \(name) must be true or false, got \(node.described)")
            return false
          }
          return flag
        }
        let guardrail = flag("guardrail")
        let lowerIsBetter = flag("lowerIsBetter")
        if let event {
          let name =
            value("name")
            ?? ([event] + [screen, flow].compactMap { $0 } + [field].compactMap { $0 }).joined(separator: " ")
          metric = MetricDefinition(
            name: name, event: event, screen: screen, flow: flow, value: field, guardrail: guardrail,
            lowerIsBetter: lowerIsBetter)
          if field != nil, let valueNode = fields.first(where: { $0.key == "value" })?.value {
            valuePositions[key, default: [:]][name] = valueNode.position
          }
        } else if !fields.contains(where: { $0.key == "event" }) {
          report(item.position, "a metric needs event: (the event name, e.g. screen_viewed)")
        }
      } else {
        report(item.position, "metrics: a metric is returned_next_day or {event: …}, got \(item.described)")
      }
      guard let metric else { continue }
      if let line = names[metric.name] {
        report(item.position, "metrics: '\(clipped(metric.name))' is listed twice (first on line \(line))")
        continue
      }
      names[metric.name] = item.position.line
      metrics.append(metric)
    }
    return metrics
  }

  mutating func namespace(_ node: YNode) -> Namespace? {
    guard let items = node.items, items.count == 3, let id = items[0].scalarText,
      case .number(let start) = items[1].value, case .number(let end) = items[2].value
    else {
      report(
        node.position, "namespace is [id, start, end] (e.g. [onboarding, 0, 0.5]), got \(node.summaryText)")
      return nil
    }
    return Namespace(id: id, start: start, end: end)
  }

  mutating func text(_ node: YNode, _ what: String) -> String? {
    if let text = node.string { return text }
    report(node.position, "\(what) must be text, got \(node.described)")
    return nil
  }

  mutating func number(_ node: YNode, _ what: String) -> Double? {
    if case .number(let number) = node.value { return number }
    report(node.position, "\(what) must be a number, got \(node.described)")
    return nil
  }

  func flowList(_ id: String) -> String {
    let ids = registry.flows.map(\.id)
    return suggestion(id, among: ids) + " (flows: \(ids.joined(separator: ", ")))"
  }

  /// A condition as GrowthBook JSON. Scalars keep their YAML type, so `{skill: beginner}`
  /// compares text and `{daysSinceFirstLaunch: {$gte: 7}}` numbers.
  static func json(_ node: YNode) -> JSONValue {
    switch node.value {
    case .null: .null
    case .bool(let bool): .bool(bool)
    case .number(let number): .number(number)
    case .string(let text): .string(text)
    case .list(let items): .array(items.map(json))
    case .map(let entries):
      .object(Dictionary(entries.map { ($0.key, json($0.value)) }, uniquingKeysWith: { first, _ in first }))
    }
  }

  /// The node a condition problem points at; a member's key when the member is named.
  static func node(at path: [ConditionPathElement], in root: YNode) -> YNode? {
    var current = root
    var keyPosition: SourcePosition?
    for element in path {
      keyPosition = nil
      switch element {
      case .key(let key):
        guard let entry = current.entries?.first(where: { $0.key == key }) else { return nil }
        keyPosition = entry.keyPosition
        current = entry.value
      case .index(let index):
        guard let items = current.items, items.indices.contains(index) else { return nil }
        current = items[index]
      }
    }
    if let keyPosition { return YNode(value: .null, position: keyPosition, text: "") }
    return current
  }
}
