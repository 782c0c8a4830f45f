import FlowKit
import Foundation
import Testing

/// Ports that test features declare.
private protocol Greeter: Sendable {
  func greet() -> String
}

private struct PlainGreeter: Greeter {
  func greet() -> String { "hello" }
}

private enum GreeterKey: ServiceKey {
  typealias Value = any Greeter
}

private enum CounterKey: ServiceKey {
  typealias Value = Int
}

/// Needs both ports; its flow reads the greeter.
private enum GreetingFeature: FlowFeature {
  static var requiredServices: [any ServiceKey.Type] { [GreeterKey.self, CounterKey.self] }

  static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    try registry.register(flowDefinition("greeting"))
    try registry.register(
      QueryDefinition("greeting.text", type: .text, summary: "") { env in
        .text(env.services[GreeterKey.self].greet())
      })
  }
}

/// Needs only the greeter.
private enum EchoFeature: FlowFeature {
  static var requiredServices: [any ServiceKey.Type] { [GreeterKey.self] }
  static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    try registry.register(flowDefinition("echo"))
  }
}

/// A rule per feature, with the same priority, so only the tie-break orders them.
private enum ZuluFeature: FlowFeature {
  static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    try registry.register(flowDefinition("zulu"))
    try registry.register(untilDoneRule("zulu", priority: 5))
  }
}

private enum AlphaFeature: FlowFeature {
  static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    try registry.register(flowDefinition("alpha"))
    try registry.register(untilDoneRule("alpha", priority: 5))
  }
}

@MainActor
@Suite("Composition: declared ports, registration order, awaited endings")
struct CompositionTests {
  private func environment(_ services: Services = Services()) -> HostEnvironment {
    HostEnvironment(
      userID: "alice",
      clock: ManualClock(
        now: Date(timeIntervalSince1970: 1_767_603_600), timeZone: TimeZone(identifier: "UTC")!),
      keyValueStore: InMemoryKeyValueStore(), services: services)
  }

  private func registry(_ features: [any FlowFeature.Type]) throws -> FlowRegistry {
    var registry = FlowRegistry()
    for feature in features { try registry.register(feature) }
    return registry
  }

  @Test func registeringAFeatureRecordsTheServicesItDeclares() throws {
    let registry = try registry([GreetingFeature.self, EchoFeature.self, ZuluFeature.self])
    #expect(
      registry.requirements.map(\.description) == [
        "GreetingFeature needs GreeterKey (Greeter)", "GreetingFeature needs CounterKey (Int)",
        "EchoFeature needs GreeterKey (Greeter)",
      ])
  }

  @Test func composingWithoutAPortThrowsNamingTheFeatureAndThePort() throws {
    let registry = try registry([GreetingFeature.self, EchoFeature.self])
    var services = Services()
    services[CounterKey.self] = 1
    do {
      _ = try FlowHost.compose(registry: registry, environment: environment(services))
      Issue.record("composed without the greeter")
    } catch {
      #expect(error.missingServices.map(\.feature) == ["GreetingFeature", "EchoFeature"])
      #expect(error.missingServices.map(\.port) == ["GreeterKey", "GreeterKey"])
      #expect(
        error.description
          == "the app was composed without ports its features need: GreetingFeature needs GreeterKey "
          + "(Greeter); EchoFeature needs GreeterKey (Greeter)")
    }
  }

  @Test func composingWithEveryPortBuildsAHostWhoseFlowsReachThem() async throws {
    let registry = try registry([GreetingFeature.self, EchoFeature.self])
    var services = Services()
    services[GreeterKey.self] = PlainGreeter()
    services[CounterKey.self] = 1
    #expect(registry.missingServices(in: services).isEmpty)
    let host = try FlowHost.compose(registry: registry, environment: environment(services))
    #expect(try await host.query("greeting.text") == .text("hello"))
  }

  @Test func composingStillChecksTheRegistry() throws {
    var registry = FlowRegistry()
    try registry.register(untilDoneRule("ghost", priority: 1))
    #expect(throws: CompositionError.registry(.ruleNamesUnknownFlow(rule: "ghost", flow: "ghost"))) {
      _ = try FlowHost.compose(registry: registry, environment: environment())
    }
  }

  @Test func aFeatureRegisteredTwiceIsRequiredOnce() throws {
    var registry = FlowRegistry()
    registry.require([GreeterKey.self], by: "EchoFeature")
    try registry.register(EchoFeature.self)
    #expect(registry.requirements.count == 1)
  }

  @Test func rulesOfEqualPriorityAreOrderedByIdWhateverTheRegistrationOrder() async throws {
    let forward = try registry([ZuluFeature.self, AlphaFeature.self])
    let reversed = try registry([AlphaFeature.self, ZuluFeature.self])
    #expect(forward.launchRules.map(\.id) == ["alpha", "zulu"])
    #expect(reversed.launchRules.map(\.id) == ["alpha", "zulu"])
    for registry in [forward, reversed] {
      let host = try FlowHost.compose(registry: registry, environment: environment())
      await host.launch()
      #expect(host.top?.flow == "alpha")
      host.terminate()
    }
  }

  @Test func mapFlowsKeepsQueriesRulesAndRequirements() throws {
    let registry = try registry([GreetingFeature.self, ZuluFeature.self])
    let mapped = registry.mapFlows { definition in
      definition.replacingMake { context in definition.make(context) }
    }
    #expect(mapped.flows.map(\.id) == registry.flows.map(\.id))
    #expect(mapped.queries.map(\.id) == registry.queries.map(\.id))
    #expect(mapped.launchRules.map(\.id) == registry.launchRules.map(\.id))
    #expect(mapped.requirements == registry.requirements)
  }

  @Test func presentAndWaitReturnsTheEnding() async throws {
    let fixture = try HostFixture { registry in try registry.register(flowDefinition("a")) }
    let host = fixture.host
    let task = Task { try await host.presentAndWait(FlowRequest(flow: "a", trigger: .notification)) }
    while host.top == nil { await Task.yield() }
    #expect(host.top?.trigger == .notification)
    try fixture.finishTopFlow()
    let ending = try await task.value
    #expect(ending.outcome == .completed)
    #expect((ending.output as? StepOutput)?.flow == "a")
  }

  @Test func presentAndWaitReturnsACancelAndAQuit() async throws {
    let fixture = try HostFixture { registry in try registry.register(flowDefinition("a")) }
    let host = fixture.host
    let closed = Task { try await host.presentAndWait(FlowRequest(flow: "a")) }
    while host.top == nil { await Task.yield() }
    try host.send(.close)
    #expect(try await closed.value.reason == .user)
    let quit = Task { try await host.presentAndWait(FlowRequest(flow: "a")) }
    while host.top == nil { await Task.yield() }
    host.terminate()
    #expect(try await quit.value.reason == .terminated)
  }

  @Test func presentAndWaitThrowsAtOnceWhenTheFlowIsUnknown() async throws {
    let fixture = try HostFixture { registry in try registry.register(flowDefinition("a")) }
    await #expect(throws: HostError.unknownFlow("nope", registered: ["a"])) {
      try await fixture.host.presentAndWait(FlowRequest(flow: "nope"))
    }
    #expect(fixture.host.isIdle)
  }
}
