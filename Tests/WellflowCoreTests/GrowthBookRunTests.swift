import Experiments
import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowCore
import WellflowScript

/// `wellflow run --growthbook FILE`: a payload's `wellflow.<flow>` feature chooses the
/// variant, and sticky buckets in the user's SQLite store keep exposed users in place.
@MainActor
@Suite("GrowthBook payloads in runs")
struct GrowthBookRunTests {
  let workspace = Workspace()

  /// Starts onboarding without a variant, so the variant resolver decides (also on a
  /// second run against the same data, where no launch rule would start it).
  static let onboarding = """
    name: start onboarding
    steps:
      - start: onboarding
    """

  static let variants = "variants:\n  onboarding:\n    brief: {steps: [skill, finale]}\n"

  /// An experiment rule as GrowthBook serves it (meta keys, bucketVersion).
  static func payload(weights: [Double], bucketVersion: Int = 0, minBucketVersion: Int = 0) -> String {
    """
    {"features": {"wellflow.onboarding": {"defaultValue": "standard", "rules": [
      {"key": "onboarding-length", "seed": "onboarding-length", "hashAttribute": "id", "hashVersion": 2,
       "variations": ["standard", "brief"], "weights": [\(weights[0]), \(weights[1])], "coverage": 1,
       "meta": [{"key": "0"}, {"key": "1"}], "bucketVersion": \(bucketVersion), "minBucketVersion": \(minBucketVersion)}
    ]}}}
    """
  }

  /// Runs the onboarding script for `users` with the payload, and returns each user's
  /// `flow_started` variant from the events file.
  func run(_ payload: String, users: Int, dataDirectory: String?, round: Int) async throws -> [String: String]
  {
    let script = workspace.write("onboarding.yaml", Self.onboarding)
    let variants = workspace.write("variants.yaml", Self.variants)
    let payloadPath = workspace.write("payload-\(round).json", payload)
    let events = workspace.path("events-\(round).ndjson")
    let outcome = await wellflowRun([script]) {
      $0.experimentsPath = variants
      $0.growthBookPath = payloadPath
      $0.users = users
      $0.eventsPath = events
      $0.dataDirectory = dataDirectory
    }
    #expect(outcome.code == 0, "\(outcome.errText)")
    var started: [String: String] = [:]
    let text = try String(contentsOfFile: events, encoding: .utf8)
    for line in text.split(separator: "\n") {
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      // Every event `wellflow run` writes says it came from a script.
      #expect(object["source"] as? String == "script")
      guard object["event"] as? String == "flow_started", object["flow"] as? String == "onboarding",
        let user = object["user"] as? String, let variant = object["variant"] as? String
      else { continue }
      if started[user] == nil { started[user] = variant }
    }
    return started
  }

  @Test func theFeatureChoosesTheVariantAsGrowthBookDoes() async throws {
    let started = try await run(Self.payload(weights: [0.5, 0.5]), users: 40, dataDirectory: nil, round: 1)
    #expect(started.count == 40)
    for (user, variant) in started {
      let n = try #require(GrowthBook.hash(seed: "onboarding-length", value: user, version: 2))
      #expect(variant == (n < 0.5 ? "standard" : "brief"), "\(user) \(n)")
    }
    #expect(Set(started.values) == ["standard", "brief"])
  }

  @Test func changingWeightsDoesNotMoveAnExposedUser() async throws {
    let data = workspace.path("data")
    let first = try await run(Self.payload(weights: [1, 0]), users: 20, dataDirectory: data, round: 1)
    #expect(Set(first.values) == ["standard"])
    // Everyone would now be hashed into brief, but the store remembers their bucket.
    let second = try await run(Self.payload(weights: [0, 1]), users: 20, dataDirectory: data, round: 2)
    #expect(second == first)
    // Without the store (a fresh data folder) the new weights apply.
    let fresh = try await run(
      Self.payload(weights: [0, 1]), users: 20, dataDirectory: workspace.path("fresh"), round: 3)
    #expect(Set(fresh.values) == ["brief"])
    // A new bucket version re-buckets everyone by the new weights.
    let rebucketed = try await run(
      Self.payload(weights: [0, 1], bucketVersion: 1), users: 20, dataDirectory: data, round: 4)
    #expect(Set(rebucketed.values) == ["brief"])
    // minBucketVersion 2 leaves out users bucketed by versions 0 and 1: the default variant.
    let blocked = try await run(
      Self.payload(weights: [0, 1], bucketVersion: 2, minBucketVersion: 2), users: 20, dataDirectory: data,
      round: 5)
    #expect(Set(blocked.values) == ["standard"])
  }

  @Test func aScriptForcesThePayloadsExperimentWithoutAnExposure() async throws {
    let script = workspace.write(
      "forced.yaml", "name: forced\nexperiments: {onboarding-length: brief}\nsteps:\n  - start: onboarding\n")
    let variants = workspace.write("variants.yaml", Self.variants)
    let payload = workspace.write("payload.json", Self.payload(weights: [1, 0]))
    let events = workspace.path("forced.ndjson")
    let outcome = await wellflowRun([script]) {
      $0.experimentsPath = variants
      $0.growthBookPath = payload
      $0.eventsPath = events
    }
    #expect(outcome.code == 0, "\(outcome.errText)")
    let text = try String(contentsOfFile: events, encoding: .utf8)
    // Weights [1, 0] would give standard: the force chose brief, and a force is no exposure.
    #expect(text.contains(#""variant":"brief""#))
    #expect(!text.contains(#""variant":"standard""#))
    #expect(!text.contains("experiment_viewed"))
  }

  @Test func stickyDocumentsLiveInTheUsersStoreAndAnUnreadableRecordIsReplaced() throws {
    let store = InMemoryKeyValueStore()
    let sticky = KeyValueStickyBucketStore(store: store)
    #expect(try sticky.documents().isEmpty)
    let document = StickyBucketDocument(
      attributeName: "id", attributeValue: "user-1", assignments: ["onboarding-length__0": "1"])
    try sticky.save([document])
    #expect(try sticky.documents() == ["id||user-1": document])
    store.set("{not json", forKey: KeyValueStickyBucketStore.key)
    #expect(throws: (any Error).self) { try sticky.documents() }
    try sticky.save([document])
    #expect(try sticky.documents() == ["id||user-1": document])
  }

  @Test func payloadProblemsArePositioned() async throws {
    let script = workspace.write("onboarding.yaml", Self.onboarding)
    let payload = workspace.write(
      "payload.json",
      """
      {"features": {
        "wellflow.onbording": {"defaultValue": "standard"},
        "wellflow.checkin": {"defaultValue": "full", "rules": [{"force": "quik"}, {"variations": ["full", 3]}]},
        "other": {"rules": [{"hashVersion": "two"}]}
      }}
      """)
    let outcome = await wellflowRun([script]) { $0.growthBookPath = payload }
    #expect(outcome.code == 2)
    // The app's flows, from its registry.
    let flows = try WellflowApp.makeRegistry().flows.map(\.id).joined(separator: ", ")
    #expect(
      workspace.relative(outcome.err) == [
        "payload.json:2:3: feature 'wellflow.onbording' names unknown flow 'onbording' (did you mean 'onboarding'?) (flows: \(flows))",
        "payload.json:3:68: feature 'wellflow.checkin': 'quik' is not a variant of flow 'checkin' (did you mean 'quick'?) (variants: full, quick)",
        "payload.json:3:101: feature 'wellflow.checkin': a value must be a variant name of flow 'checkin', got 3",
        "payload.json:4:12: feature 'other': at rules[0].hashVersion: expected an integer",
        "4 problems found in the GrowthBook payload; no script ran",
      ])
  }

  /// `wellflow.onboarding` gives brief behind a chain of `links` prerequisites, each
  /// feature on its own line (gate-1 on line 3): every gate is on when the next one is.
  static func chainPayload(links: Int) -> String {
    var lines = [#"{"features": {"#]
    func gated(_ id: String, by next: Int, on: String, off: String) -> String {
      #""\#(id)": {"defaultValue": \#(off), "rules": [{"parentConditions": "#
        + #"[{"id": "gate-\#(next)", "condition": {"value": true}}], "force": \#(on)}]},"#
    }
    lines.append(gated("wellflow.onboarding", by: 1, on: #""brief""#, off: #""standard""#))
    for index in 1..<links { lines.append(gated("gate-\(index)", by: index + 1, on: "true", off: "false")) }
    lines.append(#""gate-\#(links)": {"defaultValue": true}"#)
    lines.append("}}")
    return lines.joined(separator: "\n")
  }

  /// A chain of 2,000 features (evaluated by nested calls, it overflowed the stack) is a
  /// positioned problem when the payload is read; one of 64 is evaluated through.
  @Test func aPrerequisiteChainDeeperThan64IsRefusedAndOneOf64Works() async throws {
    let script = workspace.write("onboarding.yaml", Self.onboarding)
    let variants = workspace.write("variants.yaml", Self.variants)
    let deep = workspace.write("deep.json", Self.chainPayload(links: 2_000))
    let refused = await wellflowRun([script]) {
      $0.experimentsPath = variants
      $0.growthBookPath = deep
    }
    #expect(refused.code == 2)
    #expect(
      workspace.relative(refused.err) == [
        "deep.json:2:1: feature 'wellflow.onboarding': its prerequisites nest 2000 deep, more than 64 (wellflow.onboarding → gate-1 → gate-2 → … → gate-2000)",
        "1 problem found in the GrowthBook payload; no script ran",
      ])
    let justOver = workspace.write("over.json", Self.chainPayload(links: 65))
    let over = await wellflowRun([script]) {
      $0.experimentsPath = variants
      $0.growthBookPath = justOver
    }
    #expect(over.code == 2)
    #expect(
      workspace.relative(over.err).first?.hasPrefix(
        "over.json:2:1: feature 'wellflow.onboarding': its prerequisites nest 65 deep, more than 64 (")
        == true)

    let started = try await run(Self.chainPayload(links: 64), users: 3, dataDirectory: nil, round: 1)
    #expect(started == ["user-1": "brief", "user-2": "brief", "user-3": "brief"])
  }

  /// `wellflow.onboarding` gives brief behind `levels` levels of prerequisites, each
  /// level's two features both naming the next level's two: 2^(levels+1) - 2 evaluations.
  static func diamondPayload(levels: Int) -> String {
    var lines = [#"{"features": {"#]
    func gated(_ id: String, by next: Int, on: String, off: String) -> String {
      #""\#(id)": {"defaultValue": \#(off), "rules": [{"parentConditions": ["#
        + #"{"id": "a-\#(next)", "condition": {"value": true}}, {"id": "b-\#(next)", "condition": {"value": true}}"#
        + #"], "force": \#(on)}]},"#
    }
    lines.append(gated("wellflow.onboarding", by: 1, on: #""brief""#, off: #""standard""#))
    for index in 1..<levels {
      lines.append(gated("a-\(index)", by: index + 1, on: "true", off: "false"))
      lines.append(gated("b-\(index)", by: index + 1, on: "true", off: "false"))
    }
    lines.append(#""a-\#(levels)": {"defaultValue": true}, "b-\#(levels)": {"defaultValue": true}"#)
    lines.append("}}")
    return lines.joined(separator: "\n")
  }

  /// Fan-out within the depth limit: 40 levels of two would be 2^41 evaluations for each
  /// user. It is refused where the payload is read; 12 levels (8,190) are evaluated.
  @Test func prerequisitesThatFanOutPastTheBudgetAreRefusedAndASmallerDiamondWorks() async throws {
    let script = workspace.write("onboarding.yaml", Self.onboarding)
    let variants = workspace.write("variants.yaml", Self.variants)
    let wide = workspace.write("wide.json", Self.diamondPayload(levels: 40))
    let refused = await wellflowRun([script]) {
      $0.experimentsPath = variants
      $0.growthBookPath = wide
    }
    #expect(refused.code == 2)
    #expect(
      workspace.relative(refused.err) == [
        "wide.json:2:1: feature 'wellflow.onboarding': evaluating its prerequisites takes more than 10000 steps (a prerequisite named on many paths is evaluated on each)",
        "1 problem found in the GrowthBook payload; no script ran",
      ])
    let started = try await run(Self.diamondPayload(levels: 12), users: 2, dataDirectory: nil, round: 1)
    #expect(started == ["user-1": "brief", "user-2": "brief"])
  }

  @Test func anEncryptedPayloadIsRefused() async throws {
    let script = workspace.write("onboarding.yaml", Self.onboarding)
    let payload = workspace.write("payload.json", #"{"features": {}, "encryptedFeatures": "abc"}"#)
    let outcome = await wellflowRun([script]) { $0.growthBookPath = payload }
    #expect(outcome.code == 2)
    #expect(
      workspace.relative(outcome.err) == [
        "payload.json:1:18: the payload is encrypted; serve it unencrypted (turn off encryption for this SDK connection)",
        "1 problem found in the GrowthBook payload; no script ran",
      ])
  }

  @Test func playExploreAndGraphTakeVariantsOnlyFilesAndPayloads() throws {
    let variants = workspace.write("variants.yaml", Self.variants)
    let payload = workspace.write("payload.json", Self.payload(weights: [0, 1]))
    let sources = try #require(
      VariantSources.load(
        experimentsPath: variants, growthBookPath: payload, console: Console(out: { _ in }, err: { _ in })))
    #expect(sources.registry.flow("onboarding")?.variants.contains("brief") == true)
    #expect(sources.variant(for: "onboarding", user: "user-7") == "brief")
    #expect(sources.variant(for: "checkin", user: "user-7") == nil)
    #expect(sources.featureLines.last == "  wellflow.onboarding → variant of onboarding (1 rule)")
  }
}
