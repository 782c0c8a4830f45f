import CheckInFlow
import FlowKit
import FlowKitTesting
import Foundation
import Testing
import WellflowComposition

@MainActor
@Suite("Registration order")
struct RegistrationOrderTests {
  /// What a first day looks like: each launch's flow and screen, and the rules' order.
  private func firstDay(_ features: [any FlowFeature.Type]) async throws -> [String] {
    let registry = try WellflowFeatures.makeRegistry(features)
    var seen = ["rules: " + registry.launchRules.map(\.id).joined(separator: ", ")]
    let app = container(registry)
    let host = try app.open()
    await host.launch()
    seen.append("\(host.top?.flow ?? "idle") \(host.screenID ?? "-")")
    try await send(
      host, "tap continue", "tap continue", "select skill beginner", "tap continue", "tap continue")
    seen.append("\(host.top?.flow ?? "idle") \(host.screenID ?? "-")")
    try await send(host, "close")
    seen.append("\(host.top?.flow ?? "idle") \(host.screenID ?? "-")")
    await host.launch()
    seen.append("\(host.top?.flow ?? "idle") \(host.screenID ?? "-")")
    app.close()
    return seen
  }

  @Test func theFeaturesInReverseOrderLaunchTheSameWay() async throws {
    let forward = try await firstDay(WellflowFeatures.all)
    let reversed = try await firstDay(WellflowFeatures.all.reversed())
    #expect(
      forward == [
        "rules: onboarding, checkin.daily", "onboarding onboarding.welcome", "checkin checkin.pet", "idle -",
        "checkin checkin.pet",
      ])
    #expect(reversed == forward)
  }

  @Test func everyOrderOfTheFeaturesRegistersTheSameFlowsQueriesAndRules() throws {
    let forward = try WellflowFeatures.makeRegistry()
    let reversed = try WellflowFeatures.makeRegistry(WellflowFeatures.all.reversed())
    #expect(Set(reversed.flows.map(\.id)) == Set(forward.flows.map(\.id)))
    #expect(Set(reversed.queries.map(\.id)) == Set(forward.queries.map(\.id)))
    #expect(reversed.launchRules.map(\.id) == forward.launchRules.map(\.id))
    #expect(Set(reversed.requirements) == Set(forward.requirements))
  }

  @Test func aVariantOfAnotherFeaturesFlowRegisteredBeforeItFailsClearly() throws {
    enum MiniCheckInFeature: FlowFeature {
      static func register(in registry: inout FlowRegistry) throws(RegistryError) {
        try registry.registerVariant("mini", of: CheckInFeature.flowID, steps: ["sensing", "acting"])
      }
    }
    #expect(throws: RegistryError.variantOfUnknownFlow(flow: "checkin", variant: "mini")) {
      try WellflowFeatures.makeRegistry([MiniCheckInFeature.self] + WellflowFeatures.all)
    }
    let after = try WellflowFeatures.makeRegistry(WellflowFeatures.all + [MiniCheckInFeature.self])
    #expect(after.flow("checkin")?.variants == ["full", "quick", "mini"])
  }
}
