import Experiments
import Foundation
import PythonSupport
import StrictJSON
import Testing

/// GrowthBook's own Python SDK (`pip install growthbook`) assigns the same 10,000 users as
/// `FlowExperiment.assign`, through `Tools/GrowthBookReference/reference.py`.
///
/// On a machine without the SDK (a fresh clone's `swift test`) it shows as skipped, with
/// what to install. CI installs it and sets WELLFLOW_REQUIRE_PYTHON_REFERENCE=1, which
/// turns a missing SDK into a failure, so the check cannot quietly stop running there.
@Suite("GrowthBook's Python SDK agrees")
struct PythonReferenceTests {
  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Tools/GrowthBookReference/reference.py")

  static let experiments: [FlowExperiment] = [
    FlowExperiment(
      key: "checkin-length-targeted", flow: "checkin", variations: ["full", "quick"], weights: [0.5, 0.5],
      condition: ["skill": ["$in": ["beginner", "intermediate"]], "daysSinceFirstLaunch": ["$gte": 1]]),
    FlowExperiment(
      key: "checkin-length", flow: "checkin", variations: ["full", "quick", "mini"],
      weights: [0.34, 0.33, 0.33]),
    FlowExperiment(
      key: "onboarding-length", flow: "onboarding", variations: ["standard", "brief"], weights: [0.2, 0.8],
      coverage: 0.7, hashVersion: 2, seed: "onboarding-seed",
      namespace: Namespace(id: "onboarding", start: 0.1, end: 0.9)),
  ]
  static let skills = ["beginner", "intermediate", "advanced"]

  static let sdkInstalled = Python.succeeds("import growthbook")

  @Test(
    .enabled(
      if: sdkInstalled || Python.required,
      "GrowthBook's Python SDK is not installed: pip install growthbook==4.0.0 (CI requires it)"))
  func pythonSDKAssignsTenThousandUsersAlike() throws {
    let users: [[String: JSONValue]] = (0..<10_000).map { index in
      [
        "id": .string("user-\(index + 1)"), "skill": .string(Self.skills[index % 3]),
        "daysSinceFirstLaunch": .number(Double(index % 30)),
      ]
    }
    let request: JSONValue = [
      "experiments": .array(Self.experiments.map(Self.json)), "users": .array(users.map(JSONValue.object)),
    ]
    let run = try Python.run([Self.script.path, "assign"], input: try JSONEncoder().encode(request))
    try #require(
      run.status == 0,
      "python3 \(Self.script.path) failed (\(run.status)): \(run.stderr) — this check needs python3 and `pip install growthbook`"
    )
    let data = run.stdout
    let answer = try JSONDecoder().decode([String: [[[JSONValue]]]].self, from: data)
    let assignments = try #require(answer["assignments"])
    try #require(assignments.count == Self.experiments.count)
    var included = 0
    for (experiment, rows) in zip(Self.experiments, assignments) {
      try #require(rows.count == users.count)
      var mismatches: [String] = []
      for (user, row) in zip(users, rows) {
        let ours = experiment.assign(attributes: user)
        if ours.inExperiment { included += 1 }
        let theirs = (row[0], row[1], row[2])
        if theirs != (.number(Double(ours.variationId)), .bool(ours.inExperiment), .bool(ours.hashUsed)) {
          mismatches.append("\(user["id"]!): ours \(ours.variationId)/\(ours.inExperiment), Python \(row)")
        }
      }
      #expect(
        mismatches.isEmpty, "\(experiment.key): \(mismatches.count) differ, e.g. \(mismatches.prefix(3))")
    }
    // Not vacuous: most users are hashed into a variation in each experiment.
    #expect(included > 15_000)
  }

  static func json(_ experiment: FlowExperiment) -> JSONValue {
    var fields: [String: JSONValue] = [
      "key": .string(experiment.key), "variations": .array(experiment.variations.map(JSONValue.string)),
    ]
    if let weights = experiment.weights { fields["weights"] = .array(weights.map(JSONValue.number)) }
    if let coverage = experiment.coverage { fields["coverage"] = .number(coverage) }
    if let condition = experiment.condition { fields["condition"] = condition }
    if let version = experiment.hashVersion { fields["hashVersion"] = .number(Double(version)) }
    if let seed = experiment.seed { fields["seed"] = .string(seed) }
    if let namespace = experiment.namespace {
      fields["namespace"] = [
        .string(namespace.id), .number(namespace.range.start), .number(namespace.range.end),
      ]
    }
    return .object(fields)
  }
}
