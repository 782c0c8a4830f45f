import FlowKit
import FlowKitTesting
import Testing

@MainActor
@Suite("FlowDriver")
struct FlowDriverTests {
  @Test func drivesACoordinatorToItsOutputAndSeesItReleased() async throws {
    let driver = FlowDriver { _ in TwoStepCoordinator(id: "two") }
    #expect(driver.screen.id == "two.one")
    #expect(throws: FlowTestError.self) { try driver.expectReleased() }
    try await driver.run("enter note done", "tap next", "tap next")
    #expect(driver.output == "done")
    #expect(driver.endings.count == 1)
    #expect(driver.screen.id == "ended")
    #expect(driver.isReleased)
    try driver.expectReleased()
  }

  @Test func aCancelIsAnEndingWithItsReason() async throws {
    let closed = FlowDriver { _ in TwoStepCoordinator(id: "two") }
    try await closed.send(.close)
    #expect(closed.wasCancelled)
    #expect(closed.output == nil)
    let quit = FlowDriver { _ in TwoStepCoordinator(id: "two") }
    quit.cancel(.terminated)
    #expect(quit.cancelReason == .terminated)
    #expect(!quit.wasCancelled, "cancelled by the app, not the person")
  }

  @Test func refusalsAreMessagesAndAnEndedFlowRunsNoMore() async throws {
    let driver = FlowDriver { _ in TwoStepCoordinator(id: "two") }
    #expect(await driver.refusal(.back) == "two.one: back is not available here")
    #expect(await driver.refusal(.tap("next")) == nil)
    try await driver.send(.close)
    #expect(throws: FlowTestError.flowNotRunning(lastScreen: "two.two")) { try driver.running }
  }

  @Test func aLeakIsNamed() async throws {
    let driver = FlowDriver { _ in TwoStepCoordinator(id: "leaky", leaks: true) }
    try await driver.send(.close)
    #expect(throws: FlowTestError.notReleased(["TwoStepCoordinator"])) { try driver.expectReleased() }
  }
}
