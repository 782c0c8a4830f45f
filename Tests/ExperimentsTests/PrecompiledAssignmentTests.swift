import Experiments
import StrictJSON
import Testing

/// `FlowExperiment.assign` runs GrowthBook's algorithm on a definition prepared once and
/// reads only the decision; these check it reports what `GrowthBook.run` (which the
/// conformance file covers) reports on the same experiment, for many users and shapes.
@Suite("Precompiled assignment agrees with GrowthBook.run")
struct PrecompiledAssignmentTests {
  static let experiments: [FlowExperiment] = [
    FlowExperiment(key: "plain", flow: "checkin", variations: ["full", "quick"]),
    FlowExperiment(
      key: "targeted", flow: "checkin", variations: ["full", "quick", "mini"], weights: [0.2, 0.3, 0.5],
      coverage: 0.8, hashVersion: 2,
      condition: ["skill": ["$in": ["beginner", "intermediate"]], "daysSinceFirstLaunch": ["$gte": 1]]),
    FlowExperiment(
      key: "namespaced", flow: "onboarding", variations: ["standard", "brief"], hashVersion: 1,
      condition: ["$or": [["skill": "advanced"], ["profile.age": ["$gt": 30]]]], seed: "other-seed",
      namespace: Namespace(id: "ns", start: 0.2, end: 0.7)),
    FlowExperiment(
      key: "by-skill", flow: "onboarding", variations: ["standard", "brief"], hashAttribute: "skill"),
    FlowExperiment(key: "one", flow: "onboarding", variations: ["standard"]),
    FlowExperiment(key: "bad-version", flow: "onboarding", variations: ["a", "b"], hashVersion: 7),
    FlowExperiment(key: "version-zero", flow: "onboarding", variations: ["a", "b"], hashVersion: 0),
  ]
  static let skills: [JSONValue] = ["beginner", "intermediate", "advanced", .null, ""]

  static func attributes(_ index: Int) -> [String: JSONValue] {
    var attributes: [String: JSONValue] = [
      "skill": skills[index % skills.count], "daysSinceFirstLaunch": .number(Double(index % 5)),
      "profile": ["age": .number(Double(index % 60))],
    ]
    if index % 97 != 0 { attributes["id"] = .string("user-\(index)") }
    return attributes
  }

  @Test(arguments: experiments.indices)
  func agreesOnTenThousandUsers(_ which: Int) {
    let experiment = Self.experiments[which]
    var mismatches: [String] = []
    for index in 0..<10_000 {
      let attributes = Self.attributes(index)
      for forced in [nil, experiment.variations.last] where forced == nil || index % 10 == 0 {
        let fast = experiment.assign(attributes: attributes, forced: forced)
        var context = ExperimentContext(attributes: attributes)
        if let forced, let id = experiment.variations.firstIndex(of: forced) {
          context.forcedVariations[experiment.key] = id
        }
        let slow = GrowthBook.run(experiment.growthBook, in: context)
        if fast.variationId != slow.variationId || fast.inExperiment != slow.inExperiment
          || fast.hashUsed != slow.hashUsed || fast.variation != slow.value.stringValue
        {
          mismatches.append("user-\(index) forced \(forced ?? "-"): \(fast) vs \(slow)")
        }
      }
    }
    #expect(mismatches.isEmpty, "\(mismatches.prefix(3))")
  }

  @Test func changingAFieldRecompiles() {
    var experiment = FlowExperiment(key: "k", flow: "checkin", variations: ["full", "quick"])
    let user: [String: JSONValue] = ["id": "user-1", "skill": "advanced"]
    #expect(experiment.assign(attributes: user).inExperiment)
    experiment.condition = ["skill": "beginner"]
    #expect(!experiment.assign(attributes: user).inExperiment)
    experiment.condition = nil
    experiment.weights = [1, 0]
    #expect(experiment.assign(attributes: user).variation == "full")
    experiment.weights = [0, 1]
    #expect(experiment.assign(attributes: user).variation == "quick")
    experiment.coverage = 0
    #expect(!experiment.assign(attributes: user).inExperiment)
  }
}
