import Experiments
import FlowKit
import Foundation

/// `wellflow schema`: JSON Schemas (draft 2020-12) of scripts and experiment files, made
/// from the registry, so an editor (yaml-language-server) completes and flags flow,
/// screen, element, alert, query and option ids before `wellflow run` sees the file.
///
/// The schemas describe the files as written, before `${NAME}` is replaced: wherever a
/// number, a flag or an id goes, a text holding `${` is accepted too. They accept what the
/// loaders accept and refuse what they refuse by shape and name; what depends on the
/// file's own content (a forced variation's name, a variant an experiment file declares)
/// is left to the loaders.
public enum ScriptSchema {
  public static let draft = "https://json-schema.org/draft/2020-12/schema"

  /// The schema of script files (top-level scripts and sub-scripts alike).
  public static func scripts(_ registry: FlowRegistry) -> String {
    scriptDocument(registry).rendered()
  }

  /// The schema of experiment files (`--experiments FILE`).
  public static func experimentFiles(_ registry: FlowRegistry) -> String {
    experimentDocument(registry).rendered()
  }

  static func scriptDocument(_ registry: FlowRegistry) -> SchemaJSON {
    var builder = SchemaBuilder(vocabulary: ScriptVocabulary(registry: registry), registry: registry)
    let root = builder.scriptRoot()
    return builder.document(
      id: "https://wellflow.example/schemas/script.json", title: "Wellflow script", root: root)
  }

  static func experimentDocument(_ registry: FlowRegistry) -> SchemaJSON {
    var builder = SchemaBuilder(vocabulary: ScriptVocabulary(registry: registry), registry: registry)
    let root = builder.experimentRoot()
    return builder.document(
      id: "https://wellflow.example/schemas/experiments.json", title: "Wellflow experiment file", root: root)
  }
}

/// A JSON value whose objects keep their keys in order, so the printed schema reads
/// top-down and is the same on every run.
indirect enum SchemaJSON: Sendable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([SchemaJSON])
  case object([(String, SchemaJSON)])

  func rendered() -> String {
    var out = ""
    write(to: &out, indent: "")
    return out
  }

  private func write(to out: inout String, indent: String) {
    switch self {
    case .null: out += "null"
    case .bool(let value): out += value ? "true" : "false"
    case .number(let value): out += formatNumber(value)
    case .string(let text): out += Self.quoted(text)
    case .array(let items):
      // Short lists of scalars (enums) on one line; anything else one item a line.
      let scalars = items.allSatisfy {
        if case .array = $0 { false } else if case .object = $0 { false } else { true }
      }
      if items.isEmpty {
        out += "[]"
      } else if scalars {
        out += "[" + items.map { $0.rendered() }.joined(separator: ", ") + "]"
      } else {
        out += "[\n"
        for (index, item) in items.enumerated() {
          out += indent + "  "
          item.write(to: &out, indent: indent + "  ")
          out += index == items.count - 1 ? "\n" : ",\n"
        }
        out += indent + "]"
      }
    case .object(let pairs):
      if pairs.isEmpty {
        out += "{}"
        return
      }
      out += "{\n"
      for (index, (key, value)) in pairs.enumerated() {
        out += indent + "  " + Self.quoted(key) + ": "
        value.write(to: &out, indent: indent + "  ")
        out += index == pairs.count - 1 ? "\n" : ",\n"
      }
      out += indent + "}"
    }
  }

  static func quoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\t": out += "\\t"
      case "\r": out += "\\r"
      default:
        if scalar.value < 0x20 {
          out += String(format: "\\u%04x", scalar.value)
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out + "\""
  }
}

/// Makes the schemas: named parts in `$defs`, each made once.
struct SchemaBuilder {
  let vocabulary: ScriptVocabulary
  let registry: FlowRegistry
  /// Named parts, referred to as `#/$defs/NAME`, in the order first made.
  var definitions: [(String, SchemaJSON)] = []

  init(vocabulary: ScriptVocabulary, registry: FlowRegistry) {
    self.vocabulary = vocabulary
    self.registry = registry
  }

  func document(id: String, title: String, root: [(String, SchemaJSON)]) -> SchemaJSON {
    .object(
      [("$schema", .string(ScriptSchema.draft)), ("$id", .string(id)), ("title", .string(title))] + root
        + [("$defs", .object(definitions))])
  }

  // MARK: small parts

  static func ref(_ name: String) -> SchemaJSON { .object([("$ref", .string("#/$defs/\(name)"))]) }
  static func type(_ name: String) -> SchemaJSON { .object([("type", .string(name))]) }
  static func strings(_ values: [String]) -> SchemaJSON { .array(values.map(SchemaJSON.string)) }
  static func anyOf(_ schemas: [SchemaJSON]) -> SchemaJSON { .object([("anyOf", .array(schemas))]) }
  static func described(_ text: String, _ schema: SchemaJSON) -> SchemaJSON {
    guard case .object(let pairs) = schema else { return schema }
    return .object([("description", .string(text))] + pairs)
  }

  /// A mapping with exactly these keys allowed.
  static func mapping(
    _ properties: [(String, SchemaJSON)], required: [String] = [], extra: [(String, SchemaJSON)] = []
  ) -> SchemaJSON {
    var pairs: [(String, SchemaJSON)] = [("type", .string("object"))]
    pairs.append(("properties", .object(properties)))
    if !required.isEmpty { pairs.append(("required", strings(required))) }
    pairs.append(("additionalProperties", .bool(false)))
    return .object(pairs + extra)
  }

  static func list(_ items: SchemaJSON) -> SchemaJSON {
    .object([("type", .string("array")), ("items", items)])
  }

  mutating func define(_ name: String, _ schema: SchemaJSON) -> SchemaJSON {
    if !definitions.contains(where: { $0.0 == name }) { definitions.append((name, schema)) }
    return Self.ref(name)
  }

  /// Text holding `${NAME}`: replaced before its type is read, so it may stand for anything.
  mutating func variable() -> SchemaJSON {
    define(
      "variable",
      Self.described(
        "A value holding ${NAME}, replaced from env: or -e before it is read.",
        .object([("type", .string("string")), ("pattern", .string("\\$\\{"))])))
  }

  /// One of `ids` (sorted), or a variable.
  mutating func ids(_ name: String, _ ids: some Collection<String>, _ description: String) -> SchemaJSON {
    let variable = variable()
    return define(
      name,
      Self.described(description, Self.anyOf([.object([("enum", Self.strings(ids.sorted()))]), variable])))
  }

  /// Text, a number or a flag: a single value, as `enter` and `env` take it.
  mutating func scalar() -> SchemaJSON {
    define(
      "scalar",
      .object([("type", Self.strings(["string", "number", "boolean"]))]))
  }

  mutating func typed(_ type: String) -> SchemaJSON {
    Self.anyOf([Self.type(type), variable()])
  }

  // MARK: scripts

  mutating func scriptRoot() -> [(String, SchemaJSON)] {
    let scalar = scalar()
    let text = Self.type("string")
    let properties: [(String, SchemaJSON)] = ScriptLoader.topLevelKeys.map { key in
      switch key {
      case "name": (key, Self.described("What the script checks; names it in reports.", text))
      case "tags": (key, Self.anyOf([text, Self.list(text)]))
      case "user": (key, Self.described("The signed-in user (default user-1).", text))
      case "start":
        (
          key,
          Self.described(
            "The local start time, YYYY-MM-DDTHH:MM[:SS] without a zone.",
            Self.anyOf([
              .object([
                ("type", .string("string")),
                ("pattern", .string("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2})?$")),
              ]),
              variable(),
            ]))
        )
      case "timezone": (key, Self.described("An IANA time zone such as Europe/Berlin (default UTC).", text))
      case "locale": (key, ids("locale", vocabulary.locales, "The language screens show."))
      case "experiments":
        (
          key,
          Self.described(
            "Forced variations: experiment key → variation name (needs --experiments FILE).",
            .object([("type", .string("object")), ("additionalProperties", scalar)]))
        )
      case "followUps": (key, Self.list(followUp()))
      case "env": (key, environment())
      case "steps": (key, steps())
      default: (key, .object([]))
      }
    }
    return [
      ("description", .string("A script that `wellflow run` drives the app's flows with.")),
      ("type", .string("object")), ("properties", .object(properties)),
      ("required", Self.strings(["name", "steps"])),
      ("additionalProperties", .bool(false)),
    ]
  }

  mutating func environment() -> SchemaJSON {
    let scalar = scalar()
    return define(
      "env",
      Self.described(
        "Variables: ${NAME} in any value below is replaced by its text.",
        .object([("type", .string("object")), ("additionalProperties", scalar)])))
  }

  mutating func steps() -> SchemaJSON {
    if definitions.contains(where: { $0.0 == "steps" }) { return Self.ref("steps") }
    // Defined before the steps themselves, which refer to it.
    definitions.append(("steps", Self.list(Self.ref("step"))))
    var branches: [SchemaJSON] = []
    let bare = ScriptCommands.all.filter { $0.takes != .required }.map { $0.name }
    branches.append(
      Self.described(
        "A command that takes no value.", .object([("enum", Self.strings(bare))])))
    for type in ScriptCommands.all {
      let command = type.name
      var properties: [(String, SchemaJSON)] = [(command, type.schema(in: &self))]
      var required = [command]
      for branch in type.branchKeys {
        properties.append((branch.key, Self.ref("steps")))
        if branch.required { required.append(branch.key) }
      }
      properties += [
        ("label", Self.described("Names the step in reports.", Self.type("string"))),
        ("optional", Self.described("A failure is a warning and the script goes on.", Self.type("boolean"))),
      ]
      branches.append(define("command.\(command)", Self.mapping(properties, required: required)))
    }
    _ = define("step", Self.anyOf(branches))
    return Self.ref("steps")
  }

  static func object(type: String, _ more: (String, SchemaJSON)...) -> SchemaJSON {
    .object([("type", .string(type))] + more)
  }

  mutating func integer(_ range: ClosedRange<Int>) -> SchemaJSON {
    Self.anyOf([
      Self.object(
        type: "integer", ("minimum", .number(Double(range.lowerBound))),
        ("maximum", .number(Double(range.upperBound)))),
      variable(),
    ])
  }

  mutating func flowRequest() -> SchemaJSON {
    if definitions.contains(where: { $0.0 == "flowRequest" }) { return Self.ref("flowRequest") }
    let flows = ids("flow", vocabulary.flows.keys, "A registered flow.")
    let triggers = ids("trigger", ScriptLoader.triggers, "Why the flow is presented.")
    var branches: [SchemaJSON] = [flows]
    for id in vocabulary.flows.keys.sorted() {
      branches.append(
        Self.mapping(
          [
            ("flow", .object([("const", .string(id))])),
            ("variant", .object([("enum", Self.strings(vocabulary.flows[id] ?? []))])),
            ("trigger", triggers),
          ], required: ["flow"]))
    }
    return define(
      "flowRequest", Self.described("A flow id, or {flow, variant, trigger}.", Self.anyOf(branches)))
  }

  /// `{element: value}`, one pair.
  mutating func elementPair(_ command: String, value: (inout SchemaBuilder, String) -> SchemaJSON)
    -> SchemaJSON
  {
    let elements = ids("element", vocabulary.elements, "An element of a registered screen.")
    var properties: [(String, SchemaJSON)] = []
    for element in vocabulary.elements.sorted() { properties.append((element, value(&self, element))) }
    return Self.described(
      "One {element: value} pair.",
      .object([
        ("type", .string("object")), ("properties", .object(properties)), ("propertyNames", elements),
        ("minProperties", .number(1)), ("maxProperties", .number(1)),
      ]))
  }

  /// An option of a choice whose options are declared (or a list of them); any value for
  /// a choice whose options are data.
  mutating func optionValue(_ element: String) -> SchemaJSON {
    guard let options = vocabulary.options[element] else {
      let scalar = scalar()
      return Self.anyOf([scalar, Self.list(scalar)])
    }
    let one = option(element, options)
    return Self.anyOf([one, Self.list(one)])
  }

  /// Option ids compare as text, so `1` names option `1` whether YAML reads it as a number.
  mutating func option(_ element: String, _ options: [String]) -> SchemaJSON {
    var values = options.map(SchemaJSON.string)
    for id in options {
      if let number = Double(id), formatNumber(number) == id { values.append(.number(number)) }
    }
    let variable = variable()
    return define(
      "option.\(element)",
      Self.described("An option of \(element).", Self.anyOf([.object([("enum", .array(values))]), variable])))
  }

  mutating func conditions() -> SchemaJSON {
    if definitions.contains(where: { $0.0 == "conditions" }) { return Self.ref("conditions") }
    let none = Self.type("null")
    let properties: [(String, SchemaJSON)] = ScriptLoader.conditionKeys.map { key in
      switch key {
      case "screen": (key, ids("screen", vocabulary.screens, "A registered screen."))
      case "alert":
        (key, Self.anyOf([none, ids("alert", vocabulary.alerts, "A registered alert (null: none is up).")]))
      case "idle": (key, typed("boolean"))
      case "flow": (key, ids("flow", vocabulary.flows.keys, "A registered flow."))
      case "outcome":
        (
          key,
          ids("outcome", [FlowEnding.Outcome.completed, .cancelled].map(\.rawValue), "How the flow ended.")
        )
      case "enabled", "disabled":
        (key, ids("element", vocabulary.elements, "An element of a registered screen."))
      case "value": (key, elementValues())
      case "text": (key, scalar())
      case "data": (key, data())
      case "notification":
        (key, Self.anyOf([none, ids("notification", vocabulary.notifications, "A delivered notification.")]))
      default: (key, .object([]))
      }
    }
    return define(
      "conditions",
      Self.described(
        "Every key must hold.",
        Self.mapping(
          properties, extra: [("dependentRequired", .object([("outcome", Self.strings(["flow"]))]))])))
  }

  /// Any expected value: null (no value), a flag, a number or {min, max}, text, a list.
  mutating func matcher() -> SchemaJSON {
    if definitions.contains(where: { $0.0 == "matcher" }) { return Self.ref("matcher") }
    let scalar = scalar()
    return define(
      "matcher",
      Self.anyOf([Self.type("null"), scalar, Self.list(scalar), range()]))
  }

  mutating func range() -> SchemaJSON {
    define(
      "range",
      Self.described(
        "A number from min to max (either may be left out).",
        Self.mapping([("min", Self.type("number")), ("max", Self.type("number"))])))
  }

  mutating func elementValues() -> SchemaJSON {
    let elements = ids("element", vocabulary.elements, "An element of a registered screen.")
    var properties: [(String, SchemaJSON)] = []
    for element in vocabulary.elements.sorted() {
      if let options = vocabulary.options[element] {
        let one = option(element, options)
        properties.append((element, Self.anyOf([Self.type("null"), one, Self.list(one)])))
      } else {
        properties.append((element, matcher()))
      }
    }
    return .object([
      ("type", .string("object")), ("properties", .object(properties)), ("propertyNames", elements),
    ])
  }

  /// `{query: value}`, each value of its query's type.
  mutating func data() -> SchemaJSON {
    if definitions.contains(where: { $0.0 == "data" }) { return Self.ref("data") }
    var properties: [(String, SchemaJSON)] = []
    for query in registry.queries.sorted(by: { $0.id < $1.id }) {
      let schema: SchemaJSON =
        switch query.type {
        case .bool: typed("boolean")
        case .number: Self.anyOf([Self.type("null"), Self.type("number"), range(), variable()])
        case .text: Self.anyOf([Self.type("null"), Self.type("string"), Self.type("number")])
        case .list: Self.anyOf([Self.type("null"), Self.list(scalar())])
        }
      properties.append((query.id, query.summary.isEmpty ? schema : Self.described(query.summary, schema)))
    }
    return define(
      "data", Self.described("Registered queries and the values they must answer.", Self.mapping(properties)))
  }

  mutating func followUp() -> SchemaJSON {
    if definitions.contains(where: { $0.0 == "followUp" }) { return Self.ref("followUp") }
    let properties: [(String, SchemaJSON)] = [
      ("id", Self.type("string")),
      ("after", ids("flow", vocabulary.flows.keys, "A registered flow.")),
      (
        "outcome",
        ids("outcome", [FlowEnding.Outcome.completed, .cancelled].map(\.rawValue), "How the flow ended.")
      ),
      ("when", data()),
      ("present", flowRequest()),
    ]
    return define(
      "followUp",
      Self.described(
        "Presents a flow after another one ends (when its queries answer so).",
        Self.mapping(properties, required: ["after", "present"])))
  }

  // MARK: experiment files

  mutating func experimentRoot() -> [(String, SchemaJSON)] {
    let properties: [(String, SchemaJSON)] = ExperimentFile.topLevelKeys.map { key in
      switch key {
      case "experiments": (key, Self.list(experiment()))
      case "variants": (key, declaredVariants())
      case "followUps": (key, Self.list(followUp()))
      default: (key, .object([]))
      }
    }
    return [
      ("description", .string("Experiments, variants made of a flow's steps, and follow-up rules.")),
      ("type", .string("object")), ("properties", .object(properties)), ("minProperties", .number(1)),
      ("additionalProperties", .bool(false)),
    ]
  }

  mutating func experiment() -> SchemaJSON {
    let number = Self.type("number")
    let text = Self.type("string")
    let properties: [(String, SchemaJSON)] = ExperimentFile.experimentKeys.map { key in
      switch key {
      case "key": (key, Self.described("Names the experiment in events and reports.", text))
      case "flow": (key, ids("flow", vocabulary.flows.keys, "A registered flow."))
      case "variations":
        (key, Self.described("Variant names of the flow; the first is the control.", Self.list(text)))
      case "weights": (key, Self.list(number))
      case "coverage": (key, number)
      case "hashVersion": (key, .object([("enum", .array([.number(1), .number(2)]))]))
      case "condition": (key, Self.described("GrowthBook condition syntax.", Self.type("object")))
      case "hashAttribute": (key, text)
      case "seed": (key, scalar())
      case "namespace":
        (
          key,
          Self.described(
            "[id, start, end], e.g. [onboarding, 0, 0.5].",
            .object([
              ("type", .string("array")), ("items", scalar()), ("minItems", .number(3)),
              ("maxItems", .number(3)),
            ]))
        )
      case "metrics": (key, Self.list(metric()))
      case "sequential":
        (key, Self.described("Always-valid intervals and p-values (wellflow report).", Self.type("boolean")))
      case "covariate":
        (
          key,
          Self.described(
            "CUPED: per user, the sum of the numeric field `value` over their `event` events before exposure.",
            Self.mapping([("event", text), ("value", text)], required: ["event", "value"]))
        )
      default: (key, .object([]))
      }
    }
    return define("experiment", Self.mapping(properties, required: ["key", "flow", "variations"]))
  }

  mutating func metric() -> SchemaJSON {
    let text = Self.type("string")
    let properties: [(String, SchemaJSON)] = ExperimentFile.metricKeys.map { key in
      switch key {
      case "flow": (key, ids("flow", vocabulary.flows.keys, "A registered flow."))
      case "screen": (key, ids("screen", vocabulary.screens, "A registered screen."))
      case "value":
        (
          key,
          Self.described("A numeric field of the event: the metric is the mean per user of its sum.", text)
        )
      case "guardrail":
        (key, Self.described("Named first in the report when it got worse.", Self.type("boolean")))
      case "lowerIsBetter":
        (key, Self.described("A rise is worse: verdicts and guardrails read it so.", Self.type("boolean")))
      default: (key, text)
      }
    }
    return define(
      "metric",
      Self.anyOf([
        .object([("const", .string(MetricDefinition.returnedNextDay.name))]),
        Self.mapping(properties, required: ["event"]),
      ]))
  }

  mutating func declaredVariants() -> SchemaJSON {
    var properties: [(String, SchemaJSON)] = []
    for flow in registry.flows.sorted(by: { $0.id < $1.id }) {
      guard let stepVariants = flow.stepVariants else { continue }
      let step = Self.described(
        "A step of \(flow.id), in the flow's order.", .object([("enum", Self.strings(stepVariants.steps))]))
      let variant = Self.mapping(
        [("steps", .object([("type", .string("array")), ("items", step), ("uniqueItems", .bool(true))]))],
        required: ["steps"])
      properties.append(
        (
          flow.id,
          .object([
            ("type", .string("object")),
            ("propertyNames", .object([("not", .object([("enum", Self.strings(flow.variants))]))])),
            ("additionalProperties", variant),
          ])
        ))
    }
    return Self.described(
      "New variants made of a flow's steps: flow → variant name → {steps}.", Self.mapping(properties))
  }
}
