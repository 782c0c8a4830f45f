import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowScript

@MainActor
struct CheckInCompositionTests {
  @Test func theAppRegistersTheCheckInAfterOnboarding() throws {
    let registry = try WellflowApp.makeRegistry()
    // The check-in's own variants first; a feature listed after it may add more.
    #expect(registry.flow("checkin")?.variants.prefix(2) == ["full", "quick"])
    // Onboarding is asked before the daily check-in, whatever other rules features add.
    let rules = registry.launchRules.map(\.id)
    let onboarding = try #require(rules.firstIndex(of: "onboarding"))
    let checkIn = try #require(rules.firstIndex(of: "checkin.daily"))
    #expect(onboarding < checkIn)
  }

  @Test func thePetFlagSurvivesARelaunchOnSQLite() async throws {
    let workspace = Workspace()
    workspace.write(
      "pet.yaml",
      """
      name: Pet flag across a relaunch
      steps:
        - start: checkin
        - expect: {screen: checkin.pet}
        - tap: begin
        - close
        - tap: exit
        - relaunch
        - expect: {screen: onboarding.welcome, data: {checkin.petSeen: true, checkin.count: 0}}
        - start: checkin
        - expect: {screen: checkin.sensing}
      """)
    let result = try await runScript("pet.yaml", in: workspace, registry: WellflowApp.makeRegistry())
    #expect(result.failure == nil, "\(result.failure?.headline ?? "")")
  }

  @Test func aFirstLaunchRunsOnboardingThenTheCheckInThenTheJournal() async throws {
    let workspace = Workspace()
    workspace.write(
      "journey.yaml",
      """
      name: Journey
      steps:
        - launch
        - expect: {screen: onboarding.welcome}
        - tap: continue
        - tap: continue
        - select: {skill: beginner}
        - tap: continue
        - tap: continue
        - expect: {screen: checkin.pet, flow: checkin}
        - tap: begin
        - tap: continue
        - select: {emotion: calm}
        - tap: continue
        - tap: continue
        - tap: continue
        - select: {evaluation: accept}
        - tap: continue
        - tap: journal
        - expect: {screen: journal.catalog, flow: journal}
        - close
        - expect: {idle: true, data: {checkin.count: 1}}
      """)
    let result = try await runScript("journey.yaml", in: workspace, registry: WellflowApp.makeRegistry())
    #expect(result.failure == nil, "\(result.failure?.headline ?? "")")
  }
}
