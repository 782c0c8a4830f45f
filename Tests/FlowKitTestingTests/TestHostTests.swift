import FlowKit
import FlowKitTesting
import Foundation
import Testing

@MainActor
@Suite("TestHost")
struct TestHostTests {
  @Test func stepsDriveTheHostAndSettle() async throws {
    let app = try TestHost([TwoStepFeature.self])
    try await app.launch()
    #expect(app.flow == "two")
    #expect(app.screenID == "two.one")
    try await app.run("tap next", "enter note hi", "back", "tap next", "tap next")
    #expect(app.isIdle)
    #expect(app.ending(of: "two")?.output as? String == "hi")
    #expect(app.environment.eventNames.first == "flow_started")
  }

  @Test func aRefusedStepNamesItselfAndTheScreen() async throws {
    let app = try TestHost([TwoStepFeature.self])
    try await app.present("two")
    await #expect(
      throws: FlowTestError.stepFailed(
        step: "tap save", screen: "two.one", message: "two.one has no element 'save' (elements: next, note)")
    ) {
      try await app.run("tap next", "back", "tap save")
    }
  }

  @Test func aMissingPortFailsTheCompositionNamingFeatureAndPort() throws {
    #expect(throws: CompositionError.self) { try TestHost([NotebookFeature.self]) }
    do {
      _ = try TestHost([NotebookFeature.self])
    } catch let error as CompositionError {
      #expect(error.missingServices.map(\.feature) == ["NotebookFeature"])
      #expect(error.missingServices.map(\.port) == ["NotebookKey"])
    }
    let provided = TestEnvironment().providing(NotebookKey.self, PaperNotebook())
    _ = try TestHost([NotebookFeature.self], environment: provided)
  }

  @Test func aCoordinatorThatOutlivesItsEndingFailsTheStep() async throws {
    let app = try TestHost([TwoStepFeature.self])
    try await app.present("leaky")
    await #expect(throws: FlowTestError.notReleased(["leaky (standard): TwoStepCoordinator"])) {
      try await app.send(.close)
    }
    #expect(app.unreleased == ["leaky (standard): TwoStepCoordinator"])

    let lenient = try TestHost([TwoStepFeature.self], checksRelease: false)
    try await lenient.present("leaky")
    try await lenient.send(.close)
    #expect(throws: FlowTestError.notReleased(["leaky (standard): TwoStepCoordinator"])) {
      try lenient.expectReleased()
    }
  }

  @Test func aReleasedCoordinatorPassesTheCheck() async throws {
    let app = try TestHost([TwoStepFeature.self])
    try await app.present("two")
    weak let coordinator = app.top?.coordinator as? TwoStepCoordinator
    try await app.send(.close)
    try app.expectReleased()
    #expect(coordinator == nil)
  }

  @Test func beginHandsBackAnAwaitedEntryPointOnceItPresented() async throws {
    let app = try TestHost([TwoStepFeature.self])
    let pending = try await app.begin { host in try await host.presentAndWait(FlowRequest(flow: "two")) }
    #expect(app.screenID == "two.one")
    try await app.run("tap next", "tap next")
    #expect(try await pending.value.outcome == .completed)

    let unknown = try await app.begin { host in try await host.presentAndWait(FlowRequest(flow: "nope")) }
    await #expect(throws: HostError.self) { try await unknown.value }
    #expect(app.isIdle)

    await #expect(throws: FlowTestError.nothingPresented("the entry point")) {
      _ = try await app.begin { _ in try await Task.sleep(for: .seconds(3_600)) }
    }
  }

  @Test func theEnvironmentStartsWhereItIsTold() {
    let world = TestEnvironment(at: "2026-03-02T23:59", timeZone: "Europe/Berlin", userID: nil)
    #expect(world.clock.now == Date(timeIntervalSince1970: 1_772_492_340))
    #expect(world.clock.timeZone.identifier == "Europe/Berlin")
    #expect(world.hostEnvironment.userID == nil)
    #expect(TestEnvironment().clock.now == TestEnvironment.defaultStart)
  }
}
