import FlowKit
import Foundation
import PythonSupport
import ScriptTestSupport
import Testing
import YAMLTree

@testable import WellflowScript

/// `wellflow schema [--experiments]`: every example script and experiment file is valid
/// against the schema made from the registry, and typos of every kind of id are not.
@MainActor
@Suite("JSON Schema of scripts and experiment files")
struct ScriptSchemaTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  let workspace = Workspace()

  static func schema(experiments: Bool = false) throws -> JSONSchemaSubset {
    let registry = try WellflowApp.makeRegistry()
    let text = experiments ? ScriptSchema.experimentFiles(registry) : ScriptSchema.scripts(registry)
    return JSONSchemaSubset(root: try SchemaInstance.parse(text))
  }

  /// The file as the loaders read it, before `${NAME}` is replaced, as JSON.
  static func instance(_ path: String) throws -> SchemaInstance {
    var reader = YAMLReader(file: path)
    guard let node = reader.readFile(what: "file") else {
      throw ScriptDidNotLoad(description: reader.problems.map(\.description).joined(separator: "\n"))
    }
    return json(node)
  }

  static func json(_ node: YNode) -> SchemaInstance {
    switch node.value {
    case .null: .null
    case .bool(let value): .bool(value)
    case .number(let value): .number(value)
    case .string(let text): .string(text)
    case .list(let items): .array(items.map(json))
    case .map(let entries):
      .object(Dictionary(entries.map { ($0.key, json($0.value)) }, uniquingKeysWith: { first, _ in first }))
    }
  }

  static func files(in folder: String) throws -> [String] {
    let url = root.appendingPathComponent(folder)
    return try FileManager.default.contentsOfDirectory(atPath: url.path).filter(ScriptLoader.isScriptName)
      .sorted()
      .map { url.appendingPathComponent($0).path }
  }

  @Test func everyExampleScriptIsValid() throws {
    let schema = try Self.schema()
    let files = try Self.files(in: "Apps/Wellflow/Scripts") + Self.files(in: "Apps/Wellflow/Scripts/common")
    #expect(files.count >= 30)
    for file in files {
      #expect(schema.errors(try Self.instance(file)) == [], "\(file)")
    }
  }

  @Test func everyExampleExperimentFileIsValid() throws {
    let schema = try Self.schema(experiments: true)
    let files = try Self.files(in: "Apps/Wellflow/Experiments")
    #expect(files.count >= 2)
    for file in files {
      #expect(schema.errors(try Self.instance(file)) == [], "\(file)")
    }
  }

  /// Each typo the loader refuses, the schema refuses too, at the same place.
  @Test(
    arguments: [
      ("  - tapp: continue", "$.steps[1]"),
      ("  - start: onbording", "$.steps[1]"),
      ("  - start: {flow: onboarding, variant: shrt}", "$.steps[1]"),
      ("  - expect: {screen: onboarding.welcom}", "$.steps[1]"),
      ("  - tap: continu", "$.steps[1]"),
      ("  - expect: {alert: checkin.confirmExt}", "$.steps[1]"),
      ("  - expect: {data: {mood.cont: 1}}", "$.steps[1]"),
      ("  - expect: {data: {onboarding.completed: 3}}", "$.steps[1]"),
      ("  - select: {emotion: anxous}", "$.steps[1]"),
      ("  - select: {labels: [calm, prowd]}", "$.steps[1]"),
      ("  - expect: {value: {emotion: hapy}}", "$.steps[1]"),
      ("  - select: {emotoin: happy}", "$.steps[1]"),
      ("  - set: {score: high}", "$.steps[1]"),
      ("  - advance: 1w", "$.steps[1]"),
      ("  - network: offlin", "$.steps[1]"),
      ("  - expect: {screan: onboarding.welcome}", "$.steps[1]"),
      ("  - open: checkin.remindr", "$.steps[1]"),
      ("  - repeat: {times: -1, steps: [back]}", "$.steps[1]"),
      ("  - launch: now", "$.steps[1]"),
    ])
  func aTypoFailsBothTheSchemaAndTheLoader(step: String, path: String) throws {
    let text = "name: typo\nsteps:\n  - launch\n\(step)\n"
    let file = workspace.write("typo.yaml", text)
    let errors = try Self.schema().errors(try Self.instance(file))
    #expect(!errors.isEmpty, "the schema passed \(step)")
    #expect(errors.allSatisfy { $0.hasPrefix(path) }, "\(errors)")
    #expect(try ScriptTestSupport.problems("typo.yaml", in: workspace) != [], "the loader passed \(step)")
  }

  @Test func aMistypedTopLevelKeyAndAMissingNameFail() throws {
    let file = workspace.write("s.yaml", "nam: typo\nsteps: [launch]\n")
    #expect(
      try Self.schema().errors(try Self.instance(file)) == ["$: unknown key 'nam'", "$: missing 'name'"])
  }

  @Test func variablesStandForValuesOfAnyType() throws {
    let file = workspace.write(
      "s.yaml",
      """
      name: variables
      env: {SCORE: 7, EMOTION: happy, DAYS: 2}
      steps:
        - start: mood.log
        - set:
            score: ${SCORE}
        - select: {emotion: "${EMOTION}"}
        - advance: ${DAYS}d
        - expect:
            data:
              mood.latest.score: ${SCORE}

      """)
    #expect(try Self.schema().errors(try Self.instance(file)) == [])
  }

  @Test(
    arguments: [
      ("experiments:\n  - {key: k, flow: chekin, variations: [full, quick]}\n", "$.experiments[0]"),
      ("experiments:\n  - {key: k, flow: checkin, variatons: [full, quick]}\n", "$.experiments[0]"),
      ("variants:\n  checkin:\n    mini: {steps: [sensing, actng]}\n", "$.variants.checkin.mini.steps[1]"),
      ("variants:\n  checkin:\n    quick: {steps: [sensing]}\n", "$.variants.checkin key 'quick'"),
      ("variants:\n  chekin:\n    mini: {steps: [sensing]}\n", "$.variants"),
      ("experimnts: []\n", "$"),
      (
        "experiments:\n  - {key: k, flow: checkin, variations: [full, quick],"
          + " metrics: [{name: m, event: e, lowerIsBetter: maybe}]}\n", "$.experiments[0].metrics[0]"
      ),
    ])
  func aTypoInAnExperimentFileFails(text: String, path: String) throws {
    let file = workspace.write("e.yaml", text)
    let errors = try Self.schema(experiments: true).errors(try Self.instance(file))
    #expect(!errors.isEmpty, "the schema passed \(text)")
    #expect(errors.allSatisfy { $0.hasPrefix(path) }, "\(errors)")
    let registry = try WellflowApp.makeRegistry()
    guard case .failure = ExperimentFile.load(path: file, registry: registry) else {
      Issue.record("the loader passed \(text)")
      return
    }
  }

  /// The enums are the registry's: every flow, screen, element, alert, query, option and
  /// command, so a feature's new id is in the schema with no edit here.
  @Test func theEnumsAreTheRegistrys() throws {
    let registry = try WellflowApp.makeRegistry()
    let schema = try Self.schema().root
    let definitions = schema["$defs"]
    func enumeration(_ name: String) -> [String] {
      guard case .array(let branches)? = definitions?[name]?["anyOf"],
        case .array(let values)? = branches.first?["enum"]
      else { return [] }
      return values.compactMap { if case .string(let text) = $0 { text } else { nil } }
    }
    #expect(enumeration("flow") == registry.flows.map(\.id).sorted())
    #expect(enumeration("screen") == Array(Set(registry.flows.flatMap(\.screens).map(\.id))).sorted())
    #expect(
      Set(enumeration("alert")) == Set(registry.flows.flatMap(\.screens).flatMap { $0.alerts.map(\.id) }))
    #expect(Set(enumeration("element")) == Set(registry.flows.flatMap(\.screens).flatMap(\.elements)))
    #expect(enumeration("option.emotion").contains("anxious"))
    guard case .object(let queries)? = definitions?["data"]?["properties"] else {
      Issue.record("no data properties")
      return
    }
    #expect(Set(queries.keys) == Set(registry.queries.map(\.id)))
    for command in ScriptCommands.names {
      #expect(definitions?["command.\(command)"] != nil, "no schema for \(command)")
    }
    #expect(schema["$schema"] == .string("https://json-schema.org/draft/2020-12/schema"))
  }

  nonisolated static let validatorInstalled = Python.succeeds("from jsonschema import Draft202012Validator")

  /// A real validator (Python's `jsonschema`) agrees: the schemas are valid 2020-12
  /// schemas and the examples pass them. CI installs it and requires this check.
  @Test(
    .enabled(
      if: Self.validatorInstalled || Python.required,
      "Python's jsonschema is not installed: pip install jsonschema (CI requires it)"))
  func pythonsJSONSchemaAgrees() throws {
    let registry = try WellflowApp.makeRegistry()
    var cases: [(schema: String, file: String)] = []
    for file in try Self.files(in: "Apps/Wellflow/Scripts") + Self.files(in: "Apps/Wellflow/Scripts/common") {
      cases.append(("script.json", file))
    }
    for file in try Self.files(in: "Apps/Wellflow/Experiments") { cases.append(("experiments.json", file)) }
    let typo = workspace.write("typo.yaml", "name: typo\nsteps:\n  - select: {emotion: anxous}\n")
    cases.append(("script.json", typo))
    _ = workspace.write("script.json", ScriptSchema.scripts(registry))
    _ = workspace.write("experiments.json", ScriptSchema.experimentFiles(registry))
    var lines: [String] = []
    for (index, item) in cases.enumerated() {
      let instance = try Self.instance(item.file)
      let data = try JSONSerialization.data(
        withJSONObject: Self.foundation(instance), options: [.fragmentsAllowed])
      let name = "instance-\(index).json"
      _ = workspace.write(name, String(decoding: data, as: UTF8.self))
      lines.append("\(item.schema) \(name)")
    }
    _ = workspace.write("cases.txt", lines.joined(separator: "\n") + "\n")
    let script = """
      import json, sys
      from jsonschema import Draft202012Validator
      for line in open("cases.txt"):
          schema_name, instance_name = line.split()
          schema = json.load(open(schema_name))
          Draft202012Validator.check_schema(schema)
          errors = list(Draft202012Validator(schema).iter_errors(json.load(open(instance_name))))
          print(instance_name, "invalid" if errors else "valid")
      """
    let run = try Python.run(["-c", script], in: workspace.path(""))
    #expect(run.status == 0, "\(run.stderr)")
    let printed = String(decoding: run.stdout, as: UTF8.self)
    let verdicts = printed.split(separator: "\n").map { String($0.split(separator: " ").last ?? "") }
    #expect(verdicts == Array(repeating: "valid", count: cases.count - 1) + ["invalid"], "\(printed)")
  }

  static func foundation(_ instance: SchemaInstance) -> Any {
    switch instance {
    case .null: NSNull()
    case .bool(let value): value
    case .number(let value): value
    case .string(let text): text
    case .array(let items): items.map(foundation)
    case .object(let pairs): pairs.mapValues(foundation)
    }
  }
}
