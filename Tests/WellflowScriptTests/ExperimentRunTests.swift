import Experiments
import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowComposition
import WellflowScript

/// Runs scripts with an experiment file, as `wellflow run --experiments` does, and keeps
/// every analytics event.
@MainActor
private struct ExperimentRun {
  let workspace = Workspace()
  let analytics = InMemoryAnalyticsSink()
  var file: ExperimentFile

  init(_ experiments: String) throws {
    let path = workspace.write("experiments.yaml", experiments)
    file = try ExperimentFile.load(path: path, registry: try WellflowApp.makeRegistry()).get()
  }

  func run(_ script: String, users: [String?] = [nil]) async throws -> [ScriptResult] {
    let path = workspace.write("script.yaml", script)
    let vocabulary = ScriptVocabulary(
      registry: file.registry, experimentVariations: file.variationsByExperiment)
    let loaded = try ScriptLoader.load(path: path, vocabulary: vocabulary).get()
    let runner = ScriptRunner(
      registry: file.registry,
      options: ScriptRunner.Options(
        analytics: analytics, storage: .sqliteScratch, experiments: file.experiments))
    var results: [ScriptResult] = []
    for user in users {
      let result = await runner.run(loaded, as: user)
      #expect(result.failure == nil, "\(result.failure?.headline ?? "")")
      results.append(result)
    }
    return results
  }

  func events(_ name: String) -> [AnalyticsEvent] { analytics.events.filter { $0.event == name } }

  /// The variant each user's flow starts showed, in order.
  func startedVariants(_ flow: String = "onboarding") -> [String] {
    events("flow_started").filter { $0.flow == flow }.map { "\($0.user) \($0.variant ?? "-")" }
  }
}

/// A field's value as text (numbers as written in NDJSON: `1`, `0.5`).
private func text(_ value: EventValue?) -> String {
  switch value {
  case .string(let text): text
  case .number(let number): formatNumber(number)
  case .bool(let flag): "\(flag)"
  case nil: "-"
  }
}

extension ScriptLoadFailure: CustomStringConvertible {
  public var description: String { problems.map(\.description).joined(separator: "\n") }
}

private let completeAnyOnboarding = """
  name: any onboarding
  steps:
    - launch
    - if: {screen: onboarding.welcome}
      then: [{tap: continue}]
    - if: {screen: onboarding.features}
      then: [{tap: continue}]
    - select: {skill: beginner}
    - tap: continue
    - tap: continue
    - expect: {flow: onboarding, outcome: completed}
  """

@MainActor
@Suite("Experiments in runs")
struct ExperimentRunTests {
  @Test func assignmentIsGrowthBooksAndStableAcrossRuns() async throws {
    let experiments = """
      experiments:
        - key: onboarding-length
          flow: onboarding
          variations: [standard, short]
          weights: [0.3, 0.7]
          coverage: 0.8
      """
    let users = (1...120).map { "user-\($0)" }
    let first = try ExperimentRun(experiments)
    _ = try await first.run(completeAnyOnboarding, users: users)
    let second = try ExperimentRun(experiments)
    _ = try await second.run(completeAnyOnboarding, users: users)
    #expect(first.startedVariants() == second.startedVariants())

    let experiment = try #require(first.file.experiments.first)
    var expectedStarts: [String] = []
    var expectedExposures: [String] = []
    for user in users {
      // At its first launch the user has no skill yet and 0 days since that launch.
      let result = GrowthBook.run(
        experiment.growthBook,
        in: ExperimentContext(attributes: ["id": .string(user), "daysSinceFirstLaunch": 0]))
      let variant = result.inExperiment ? experiment.variations[result.variationId] : "standard"
      expectedStarts.append("\(user) \(variant)")
      if result.inExperiment { expectedExposures.append("\(user) \(variant) \(result.variationId)") }
    }
    #expect(first.startedVariants() == expectedStarts)
    let exposures = first.events("experiment_viewed").map { event in
      "\(event.user) \(text(event.fields["variation"])) \(text(event.fields["variation_id"]))"
    }
    #expect(exposures == expectedExposures)
    // Both variations and the excluded users occur, so the comparison means something.
    #expect(Set(expectedStarts.map { $0.split(separator: " ")[1] }) == ["standard", "short"])
    #expect(expectedExposures.count < users.count)
    #expect(
      first.events("experiment_viewed").allSatisfy {
        $0.flow == "onboarding" && $0.variant == text($0.fields["variation"])
          && text($0.fields["experiment"]) == "onboarding-length"
      })
  }

  @Test func exposureIsRecordedOncePerFlowStartJustBeforeIt() async throws {
    let run = try ExperimentRun(
      """
      experiments:
        - {key: onboarding-length, flow: onboarding, variations: [standard, short], weights: [0, 1]}
      """)
    _ = try await run.run(
      """
      name: twice
      steps:
        - start: onboarding
        - expect: {screen: onboarding.welcome}
        - tap: continue
        - expect: {screen: onboarding.skill}
        - relaunch
        - start: onboarding
        - start: {flow: onboarding, variant: standard}
      """)
    #expect(
      run.analytics.events.filter { ["experiment_viewed", "flow_started"].contains($0.event) }.map {
        "\($0.event) \($0.variant ?? "-")"
      } == [
        "experiment_viewed short", "flow_started short",
        // relaunch: the onboarding launch rule starts it again, then `start` once more
        "experiment_viewed short", "flow_started short",
        "experiment_viewed short", "flow_started short",
        // an explicit variant asks no experiment
        "flow_started standard",
      ])
  }

  @Test func usersOutsideCoverageGetTheDefaultAndNoEvent() async throws {
    let run = try ExperimentRun(
      """
      experiments:
        - {key: onboarding-length, flow: onboarding, variations: [short, standard], coverage: 0}
      """)
    _ = try await run.run(completeAnyOnboarding, users: ["u1", "u2", "u3"])
    #expect(run.startedVariants() == ["u1 standard", "u2 standard", "u3 standard"])
    #expect(run.events("experiment_viewed").isEmpty)
  }

  @Test func aForcedVariationWinsOverCoverageAndRecordsNoExposure() async throws {
    let run = try ExperimentRun(
      """
      experiments:
        - {key: onboarding-length, flow: onboarding, variations: [standard, short], coverage: 0}
      """)
    _ = try await run.run(
      """
      name: forced
      experiments: {onboarding-length: short}
      steps:
        - launch
        - tap: continue
        - expect: {screen: onboarding.skill}
      """, users: ["u1", "u2"])
    #expect(run.startedVariants() == ["u1 short", "u2 short"])
    #expect(run.events("experiment_viewed").isEmpty)
  }

  @Test func aConditionOnTheSkillTargetsUsersWhoChoseIt() async throws {
    let run = try ExperimentRun(
      """
      experiments:
        - key: again
          flow: onboarding
          variations: [standard, short]
          weights: [0, 1]
          condition: {skill: {$in: [beginner]}}
      """)
    let script = """
      name: by skill
      env: {SKILL: beginner}
      steps:
        - start: onboarding
        - tap: continue
        - tap: continue
        - select: {skill: "${SKILL}"}
        - tap: continue
        - tap: continue
        - start: onboarding
      """
    let path = run.workspace.write("skill.yaml", script)
    let vocabulary = ScriptVocabulary(
      registry: run.file.registry, experimentVariations: run.file.variationsByExperiment)
    let runner = ScriptRunner(
      registry: run.file.registry,
      options: ScriptRunner.Options(
        analytics: run.analytics, storage: .sqliteScratch, experiments: run.file.experiments))
    for skill in ["beginner", "experienced"] {
      let script = try ScriptLoader.load(path: path, vocabulary: vocabulary, overrides: ["SKILL": skill])
        .get()
      let result = await runner.run(script, as: skill)
      #expect(result.failure == nil)
    }
    // No skill before the first onboarding: nobody is in; afterwards only the beginner.
    #expect(
      run.startedVariants() == [
        "beginner standard", "beginner short", "experienced standard", "experienced standard",
      ])
    #expect(run.events("experiment_viewed").map(\.user) == ["beginner"])
  }

  @Test func daysSinceFirstLaunchCountsCalendarDaysInTheUsersZone() async throws {
    let run = try ExperimentRun(
      """
      experiments:
        - key: later
          flow: onboarding
          variations: [standard, short]
          weights: [0, 1]
          condition: {daysSinceFirstLaunch: {$gte: 1}}
      """)
    _ = try await run.run(
      """
      name: days
      start: 2026-03-02T23:30
      timezone: Europe/Berlin
      steps:
        - launch
        - expect: {screen: onboarding.welcome}
        - advance: 20m
        - relaunch
        - advance: 20m
        - relaunch
      """)
    // 23:30 and 23:50 are day 0; 00:10 the next local day is day 1 (still 2 March in UTC).
    #expect(run.startedVariants() == ["user-1 standard", "user-1 standard", "user-1 short"])

    let store = InMemoryKeyValueStore()
    let clock = ManualClock(
      now: Date(timeIntervalSince1970: 0), timeZone: TimeZone(identifier: "America/New_York")!)
    try AppKeys.recordFirstLaunch(in: store, at: clock.now)
    clock.advance(days: 3)
    try AppKeys.recordFirstLaunch(in: store, at: clock.now)
    store.set("experienced", forKey: "onboarding.skill")
    let attributes = ExperimentAssigner.attributes(
      of: HostEnvironment(userID: "ann", clock: clock, keyValueStore: store),
      targeting: try WellflowFeatures.makeRegistry().targetingAttributes)
    #expect(attributes == ["id": "ann", "skill": "experienced", "daysSinceFirstLaunch": 3])
  }

  @Test func aFileDeclaredVariantShowsItsStepsInOrder() async throws {
    let run = try ExperimentRun(
      """
      variants:
        onboarding:
          brief: {steps: [skill, finale]}
          tour: {steps: [features, skill, finale]}
      experiments:
        - {key: onboarding-length, flow: onboarding, variations: [standard, brief]}
      """)
    let results = try await run.run(
      """
      name: declared
      steps:
        - start: {flow: onboarding, variant: brief}
        - expect: {screen: onboarding.skill}
        - select: {skill: intermediate}
        - tap: continue
        - expect: {screen: onboarding.finale}
        - back
        - tap: continue
        - tap: continue
        - expect: {flow: onboarding, outcome: completed, data: {onboarding.skill: intermediate}}
        - start: {flow: onboarding, variant: tour}
        - tap: continue
      """)
    #expect(results.first?.passed == true)
    #expect(
      run.events("screen_viewed").map { "\($0.variant ?? "-") \(text($0.fields["screen"]))" } == [
        "brief onboarding.skill", "brief onboarding.finale", "brief onboarding.skill",
        "brief onboarding.finale",
        "tour onboarding.features", "tour onboarding.skill",
      ])
  }

  @Test func aForcedFileDeclaredCheckInVariantSavesFromItsTwoSteps() async throws {
    let run = try ExperimentRun(
      """
      variants:
        checkin:
          mini: {steps: [sensing, acting]}
      experiments:
        - {key: checkin-length, flow: checkin, variations: [full, quick, mini]}
      """)
    let results = try await run.run(
      """
      name: mini check-in
      experiments: {checkin-length: mini}
      steps:
        - start: checkin
        - expect: {screen: checkin.sensing}
        - set: {score: 9}
        - tap: continue
        - expect: {screen: checkin.acting}
        - tap: complete
        - expect: {flow: checkin, outcome: completed, data: {mood.count: 1, mood.latest.labels: [excited, grateful]}}
      """)
    #expect(results.first?.passed == true)
    #expect(run.startedVariants("checkin") == ["user-1 mini"])
  }

  @Test func aCheckInVariantWithoutTheScoreIsRefused() throws {
    let workspace = Workspace()
    let path = workspace.write(
      "experiments.yaml",
      """
      variants:
        checkin:
          chat: {steps: [naming, acting]}
      """)
    guard
      case .failure(let failure) = ExperimentFile.load(path: path, registry: try WellflowApp.makeRegistry())
    else {
      Issue.record("a check-in variant without sensing was accepted")
      return
    }
    #expect(failure.problems.map(\.message).joined().contains("a check-in needs the sensing step"))
  }
}
