import Experiments
import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowCore
import WellflowScript

@MainActor
@Suite("Experiment files")
struct ExperimentFileTests {
  let workspace = Workspace()

  private func problems(_ text: String) throws -> [String] {
    let path = workspace.write("experiments.yaml", text)
    switch ExperimentFile.load(path: path, registry: try WellflowApp.makeRegistry()) {
    case .success: return []
    case .failure(let failure): return workspace.relative(failure.problems.map(\.description))
    }
  }

  @Test func aValidFileLoadsWithItsVariantsRegistered() throws {
    let path = workspace.write(
      "experiments.yaml",
      """
      variants:
        onboarding:
          brief: {steps: [skill, finale]}
      experiments:
        - key: onboarding-length
          flow: onboarding
          variations: [standard, brief]
          weights: [0.4, 0.6]
          coverage: 0.9
          hashVersion: 2
          condition: {skill: {$exists: false}}
          hashAttribute: id
          seed: s1
          namespace: [onboarding, 0, 0.5]
      """)
    let file = try ExperimentFile.load(path: path, registry: try WellflowApp.makeRegistry()).get()
    #expect(
      file.experiments == [
        FlowExperiment(
          key: "onboarding-length", flow: "onboarding", variations: ["standard", "brief"],
          weights: [0.4, 0.6],
          coverage: 0.9, hashVersion: 2, condition: ["skill": ["$exists": false]], hashAttribute: "id",
          seed: "s1", namespace: Namespace(id: "onboarding", start: 0, end: 0.5))
      ])
    #expect(
      file.variants.map { "\($0.flow).\($0.name) \($0.steps)" } == [
        "onboarding.brief [\"skill\", \"finale\"]"
      ])
    #expect(file.registry.flow("onboarding")?.variants == ["standard", "short", "brief"])
    #expect(file.variationsByExperiment == ["onboarding-length": ["standard", "brief"]])
  }

  @Test func everyProblemIsNamedWithItsPosition() throws {
    let found = try problems(
      """
      variants:
        onboarding:
          tiny: {steps: [welcome, finale]}
          odd: {steps: [skill, welcome, finale]}
          short: {steps: [skill, finale]}
          typo: {steps: [skil, finale]}
        checkout:
          mini: {steps: [sensing, acting]}
      experiments:
        - key: a
          flow: onboarding
          variations: [standard, tiny2]
          weights: [0.5, 0.4]
          coverage: 1.5
          hashVersion: 3
          condition: {skill: {$foo: 1}, $bar: 2}
        - key: a
          flow: journal
          variations: [default, other]
        - key: b
          flow: onbording
          variations: [standard, short]
          weights: [0.5, 0.5, 0]
        - key: c
          flow: onboarding
          variations: [standard, short]
          weights: [1.5, -0.5]
          colour: red
        - flow: onboarding
      """)
    let operators = GrowthBook.valueOperators.joined(separator: ", ")
    let flows = try WellflowApp.makeRegistry().flows.map(\.id).joined(separator: ", ")
    #expect(
      found == [
        "experiments.yaml:3:19: steps: variant 'tiny' of flow 'onboarding': onboarding needs the skill and finale steps; skill is missing",
        "experiments.yaml:4:26: steps: step 'welcome' comes after 'skill' in onboarding (its order: welcome, features, skill, finale)",
        "experiments.yaml:5:5: flow 'onboarding' already has a variant 'short' (variants: standard, short)",
        "experiments.yaml:6:20: steps: unknown step 'skil' of onboarding (did you mean 'skill'?) (steps: welcome, features, skill, finale)",
        "experiments.yaml:7:3: variants: unknown flow 'checkout' (flows: \(flows))",
        "experiments.yaml:12:28: variations: 'tiny2' is not a variant of flow 'onboarding' (variants: standard, short)",
        "experiments.yaml:13:14: weights must sum to 1 (±0.001), got 0.9",
        "experiments.yaml:14:15: coverage must be between 0 and 1, got 1.5",
        "experiments.yaml:15:18: unknown hashVersion 3 (GrowthBook has 1, the default, and 2)",
        "experiments.yaml:16:25: condition at skill.$foo: unknown operator '$foo' (operators: \(operators))",
        "experiments.yaml:16:35: condition at $bar: unknown operator '$bar' (conditions start with an attribute or one of $and, $or, $nor, $not)",
        "experiments.yaml:17:10: key: duplicate experiment key 'a' (first on line 10)",
        "experiments.yaml:19:18: variations: 'default' is not a variant of flow 'journal' (variants: standard)",
        "experiments.yaml:19:27: variations: 'other' is not a variant of flow 'journal' (variants: standard)",
        "experiments.yaml:21:11: flow: unknown flow 'onbording' (did you mean 'onboarding'?) (flows: \(flows))",
        "experiments.yaml:23:14: weights has 3 values for 2 variations",
        "experiments.yaml:27:14: weights must not be negative, got -0.5",
        "experiments.yaml:28:5: unknown key 'colour' in experiment (keys: key, flow, variations, weights, coverage, hashVersion, condition, hashAttribute, seed, namespace, metrics, sequential, covariate)",
        "experiments.yaml:29:5: the experiment has no key, variations (an experiment needs key, flow and variations)",
      ])
  }

  @Test func aFileWithOnlyVariantsLoads() throws {
    let path = workspace.write(
      "variants.yaml", "variants:\n  checkin:\n    mini: {steps: [sensing, acting]}\n")
    let file = try ExperimentFile.load(path: path, registry: try WellflowApp.makeRegistry()).get()
    #expect(file.experiments.isEmpty)
    #expect(file.variants.map(\.name) == ["mini"])
    #expect(file.registry.flow("checkin")?.variants.contains("mini") == true)
  }

  @Test func wrongTypesAndShapesAreNamed() throws {
    #expect(
      try problems("experiments: {key: a}") == [
        "experiments.yaml:1:14: experiments must be a list of experiments, got a mapping"
      ])
    #expect(
      try problems("variants: {onboarding: {brief: [skill]}}\nexperiments: []") == [
        "experiments.yaml:1:32: variant brief of onboarding takes {steps: […]}, got a list"
      ])
    #expect(
      try problems("variants: {journal: {x: {steps: [a]}}}\nexperiments: []") == [
        "experiments.yaml:1:12: variants: flow 'journal' cannot make variants from steps (it registers no step list)"
      ])
    #expect(
      try problems("experiment: []") == [
        "experiments.yaml:1:1: unknown key 'experiment' in experiment file (did you mean 'experiments'?) (keys: experiments, variants, followUps)",
        "experiments.yaml:1:1: the file declares nothing (add `experiments:` with a list of experiments, `variants:` or `followUps:`)",
      ])
    #expect(
      try problems(
        """
        experiments:
          - key: a
            flow: onboarding
            variations: [standard, short]
            weights: half
            coverage: all
            hashVersion: 1.5
            namespace: [n, 0]
        """) == [
          "experiments.yaml:5:14: weights must be a list of numbers, one per variation, got text 'half'",
          "experiments.yaml:6:15: coverage must be a number, got text 'all'",
          "experiments.yaml:7:18: unknown hashVersion 1.5 (GrowthBook has 1, the default, and 2)",
          "experiments.yaml:8:16: namespace is [id, start, end] (e.g. [onboarding, 0, 0.5]), got [n, 0]",
        ])
  }

  @Test func wellflowRunStopsOnAnExperimentFileProblem() async throws {
    let experiments = workspace.write(
      "e.yaml", "experiments:\n  - {key: a, flow: onboarding, variations: [standard, short], coverage: 2}\n")
    let script = workspace.write("s.yaml", "name: s\nsteps:\n  - start: onboarding\n")
    let outcome = await wellflowRun([script]) { $0.experimentsPath = experiments }
    #expect(outcome.code == 2)
    #expect(
      workspace.relative(outcome.err) == [
        "e.yaml:2:73: coverage must be between 0 and 1, got 2",
        "1 problem found in the experiment file; no script ran",
      ])
    #expect(outcome.out.isEmpty)
  }

  @Test func forcedVariationsAreCheckedAgainstTheFile() async throws {
    let experiments = workspace.write(
      "e.yaml",
      "experiments:\n  - {key: onboarding-length, flow: onboarding, variations: [standard, short]}\n")
    let script = workspace.write(
      "s.yaml",
      """
      name: s
      experiments: {onboarding-length: tiny, other: standard}
      steps:
        - start: onboarding
      """)
    let outcome = await wellflowRun([script]) { $0.experimentsPath = experiments }
    #expect(outcome.code == 2)
    #expect(
      workspace.relative(outcome.err) == [
        "s.yaml:2:34: experiment 'onboarding-length' has no variation 'tiny' (variations: standard, short)",
        "s.yaml:2:40: unknown experiment 'other' (experiments: onboarding-length)",
        "2 problems found; no script ran",
      ])
    let without = await wellflowRun([script])
    #expect(
      workspace.relative(without.err).first
        == "s.yaml:2:15: experiment 'onboarding-length' is forced, but no experiment file was given (--experiments FILE)"
    )
  }
}
