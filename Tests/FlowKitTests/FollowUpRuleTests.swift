import FlowKit
import Foundation
import Testing

/// A flow that completes with the number tapped, for follow-up rules to read.
private final class NumberCoordinator: FlowCoordinator<Int> {
  let screenID: String
  init(screenID: String) { self.screenID = screenID }
  override var screen: Screen {
    Screen(
      id: screenID, title: "Pick", elements: [.button("one", "One"), .button("five", "Five")], canClose: true)
  }
  override func handle(_ action: UserAction) throws(ActionError) {
    switch action {
    case .tap("one"): complete(1)
    case .tap("five"): complete(5)
    case .close: cancel()
    default: break
    }
  }
}

@MainActor
@Suite("Follow-up rules: context check-ins")
struct FollowUpRuleTests {
  private func host(_ rules: [FollowUpRule]) throws -> FlowHost {
    var registry = FlowRegistry()
    for id in ["log", "journal"] {
      try registry.register(
        FlowDefinition(
          id: id, summary: id, variants: ["standard"],
          screens: [ScreenDeclaration(id, elements: ["one", "five"])],
          make: { _ in NumberCoordinator(screenID: id) }))
    }
    for rule in rules { try registry.register(rule) }
    return try FlowHost(
      registry: registry,
      environment: HostEnvironment(
        userID: "u",
        clock: ManualClock(now: Date(timeIntervalSince1970: 0), timeZone: TimeZone(identifier: "UTC")!),
        keyValueStore: InMemoryKeyValueStore()),
      workMode: .deferred)
  }

  private let lowScore = FollowUpRule(id: "low", after: "log", present: FlowRequest(flow: "journal")) {
    _, ending in
    (ending.output as? Int).map { $0 <= 3 } ?? false
  }

  @Test func aRuleThatHoldsPresentsItsFlowWithTriggerEvent() async throws {
    let host = try host([lowScore])
    try host.present(FlowRequest(flow: "log"))
    try host.send(.tap("one"))
    await host.settle()
    #expect(host.top?.flow == "journal")
    #expect(host.top?.trigger == .event)
  }

  @Test func aRuleThatDoesNotHoldOrAnotherEndingPresentsNothing() async throws {
    let host = try host([lowScore])
    try host.present(FlowRequest(flow: "log"))
    try host.send(.tap("five"))
    await host.settle()
    #expect(host.isIdle)
    try host.present(FlowRequest(flow: "log"))
    try host.send(.close)
    await host.settle()
    #expect(host.isIdle, "the rule follows completed runs only")
  }

  @Test func noRuleIsActiveUnlessRegistered() async throws {
    let host = try host([])
    try host.present(FlowRequest(flow: "log"))
    try host.send(.tap("one"))
    await host.settle()
    #expect(host.isIdle)
  }

  @Test func rulesMustNameRegisteredFlowsAndUniqueIds() throws {
    #expect(throws: RegistryError.followUpNamesUnknownFlow(rule: "x", flow: "diary")) {
      try host([FollowUpRule(id: "x", after: "log", present: FlowRequest(flow: "diary"))])
    }
    #expect(throws: RegistryError.duplicateFollowUp("low")) { try host([lowScore, lowScore]) }
  }
}
