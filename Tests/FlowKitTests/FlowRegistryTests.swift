import FlowKit
import Foundation
import Testing

@Suite("FlowRegistry")
struct FlowRegistryTests {
  private func query(_ id: String) -> QueryDefinition {
    QueryDefinition(id, type: .bool, summary: "test") { _ in .bool(true) }
  }

  @Test func duplicateFlowIsRejected() throws {
    var registry = FlowRegistry()
    try registry.register(flowDefinition("a"))
    #expect(throws: RegistryError.duplicateFlow("a")) { try registry.register(flowDefinition("a")) }
    #expect(registry.flows.map(\.id) == ["a"])
    #expect(RegistryError.duplicateFlow("a").description == "a flow with id 'a' is already registered")
  }

  @Test func duplicateQueryIsRejected() throws {
    var registry = FlowRegistry()
    try registry.register(query("a.done"))
    #expect(throws: RegistryError.duplicateQuery("a.done")) { try registry.register(query("a.done")) }
    #expect(registry.queries.count == 1)
    #expect(
      RegistryError.duplicateQuery("a.done").description == "a query with id 'a.done' is already registered")
  }

  @Test func duplicateRuleIsRejected() throws {
    var registry = FlowRegistry()
    try registry.register(untilDoneRule("a", priority: 1))
    #expect(throws: RegistryError.duplicateRule("a")) {
      try registry.register(untilDoneRule("a", priority: 2))
    }
    #expect(registry.launchRules.map(\.priority) == [1])
    #expect(
      RegistryError.duplicateRule("a").description == "a launch rule with id 'a' is already registered")
  }

  @Test func defaultVariantMustBeAmongTheVariants() {
    var registry = FlowRegistry()
    let flow = FlowDefinition(
      id: "a", summary: "", variants: ["full", "quick"], defaultVariant: "mini", screens: [],
      make: { _ in StepCoordinator(id: "a", steps: ["a.one"]) })
    #expect(throws: RegistryError.unknownDefaultVariant(flow: "a", variant: "mini")) {
      try registry.register(flow)
    }
    #expect(registry.flows.isEmpty)
    #expect(
      RegistryError.unknownDefaultVariant(flow: "a", variant: "mini").description
        == "flow 'a' names default variant 'mini', which is not among its variants")
  }

  @Test func theFirstVariantIsTheDefaultWhenNoneIsNamed() {
    #expect(flowDefinition("a", variants: ["full", "quick"]).defaultVariant == "full")
  }

  @Test func duplicateVariantIsRejected() {
    var registry = FlowRegistry()
    #expect(throws: RegistryError.duplicateVariant(flow: "a", variant: "full")) {
      try registry.register(flowDefinition("a", variants: ["full", "quick", "full"]))
    }
    #expect(
      RegistryError.duplicateVariant(flow: "a", variant: "full").description
        == "flow 'a' already has a variant 'full'")
  }

  @Test func aRuleNamingAnUnregisteredFlowFailsValidation() throws {
    var registry = FlowRegistry()
    try registry.register(flowDefinition("a"))
    try registry.register(untilDoneRule("a", priority: 2))
    try registry.validate()
    try registry.register(untilDoneRule("ghost", priority: 1))
    #expect(throws: RegistryError.ruleNamesUnknownFlow(rule: "ghost", flow: "ghost")) {
      try registry.validate()
    }
    #expect(
      RegistryError.ruleNamesUnknownFlow(rule: "ghost", flow: "ghost").description
        == "launch rule 'ghost' presents 'ghost', which is not registered")
  }

  @Test @MainActor func aHostRefusesARegistryThatDoesNotValidate() throws {
    var registry = FlowRegistry()
    try registry.register(untilDoneRule("ghost", priority: 1))
    let environment = HostEnvironment(
      userID: nil, clock: SystemClock(), keyValueStore: InMemoryKeyValueStore())
    #expect(throws: RegistryError.ruleNamesUnknownFlow(rule: "ghost", flow: "ghost")) {
      _ = try FlowHost(registry: registry, environment: environment)
    }
  }

  @Test func rulesAreKeptInPriorityOrder() throws {
    var registry = FlowRegistry()
    try registry.register(untilDoneRule("low", priority: 1))
    try registry.register(untilDoneRule("high", priority: 300))
    try registry.register(untilDoneRule("middle", priority: 50))
    #expect(registry.launchRules.map(\.id) == ["high", "middle", "low"])
  }

  @Test @MainActor func registerVariantAddsAThirdVariantFromOutsideTheFeature() throws {
    var registry = FlowRegistry()
    try registry.register(flowDefinition("a", variants: ["full", "quick"], steps: ["a.one", "a.two"]))
    try registry.registerVariant("mini", of: "a", screens: [ScreenDeclaration("a.mini", elements: ["next"])])
    {
      _ in StepCoordinator(id: "a", steps: ["a.mini"])
    }
    let flow = try #require(registry.flow("a"))
    #expect(flow.variants == ["full", "quick", "mini"])
    #expect(flow.defaultVariant == "full")
    #expect(registry.declaredScreens.keys.sorted() == ["a.mini", "a.one", "a.two"])

    let host = try FlowHost(
      registry: registry,
      environment: HostEnvironment(userID: "u", clock: SystemClock(), keyValueStore: InMemoryKeyValueStore()))
    try host.present(FlowRequest(flow: "a", variant: "mini"))
    #expect(host.screen?.id == "a.mini")
    #expect(host.top?.variant == "mini")
    try host.present(FlowRequest(flow: "a", variant: "quick"))
    #expect(host.screen?.id == "a.one", "the other variants keep their factory")
    try host.present(FlowRequest(flow: "a"))
    #expect(host.top?.variant == "full")
    host.terminate()
  }

  @Test func registerVariantRejectsADuplicateOrAnUnknownFlow() throws {
    var registry = FlowRegistry()
    try registry.register(flowDefinition("a", variants: ["full", "quick"]))
    #expect(throws: RegistryError.duplicateVariant(flow: "a", variant: "quick")) {
      try registry.registerVariant("quick", of: "a") { _ in StepCoordinator(id: "a", steps: ["a.one"]) }
    }
    #expect(throws: RegistryError.variantOfUnknownFlow(flow: "b", variant: "mini")) {
      try registry.registerVariant("mini", of: "b") { _ in StepCoordinator(id: "b", steps: ["b.one"]) }
    }
    #expect(registry.flow("a")?.variants == ["full", "quick"])
    #expect(
      RegistryError.variantOfUnknownFlow(flow: "b", variant: "mini").description
        == "cannot add variant 'mini' to flow 'b', which is not registered")
  }

  @Test func aFeatureRegistersThroughItsEntryPoint() throws {
    enum Feature: FlowFeature {
      static func register(in registry: inout FlowRegistry) throws(RegistryError) {
        try registry.register(flowDefinition("a"))
        try registry.register(QueryDefinition("a.done", type: .bool, summary: "") { _ in .bool(false) })
        try registry.register(untilDoneRule("a", priority: 1))
      }
    }
    var registry = FlowRegistry()
    try registry.register(Feature.self)
    #expect(registry.flow("a") != nil)
    #expect(registry.query("a.done") != nil)
    #expect(registry.launchRules.map(\.id) == ["a"])
    #expect(throws: RegistryError.duplicateFlow("a")) { try registry.register(Feature.self) }
  }
}
