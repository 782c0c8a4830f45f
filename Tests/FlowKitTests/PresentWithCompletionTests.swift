import FlowKit
import Foundation
import Testing

@MainActor
@Suite("FlowHost.present(_:onEnd:)")
struct PresentWithCompletionTests {
  @Test func onEndHearsTheEndingOnceAfterTheHostRecordedIt() throws {
    let fixture = try HostFixture { registry in
      try registry.register(flowDefinition("a", next: FlowRequest(flow: "b")))
      try registry.register(flowDefinition("b"))
    }
    var heard: [FlowEnding.Outcome] = []
    try fixture.host.present(FlowRequest(flow: "a")) { ending in
      heard.append(ending.outcome)
      #expect(fixture.host.latestEndings["a"]?.outcome == ending.outcome)
      #expect(fixture.host.top == nil, "told before the follow-up is presented")
    }
    try fixture.finishTopFlow()
    #expect(heard == [.completed])
    #expect(fixture.topFlow == "b")
    try fixture.finishTopFlow()
    #expect(heard == [.completed], "the follow-up's ending is not the presented flow's")
  }

  @Test func onEndHearsACancelAndAQuit() throws {
    let fixture = try HostFixture { registry in try registry.register(flowDefinition("a")) }
    var heard: [CancelReason?] = []
    try fixture.host.present(FlowRequest(flow: "a")) { heard.append($0.reason) }
    try fixture.host.send(.close)
    try fixture.host.present(FlowRequest(flow: "a")) { heard.append($0.reason) }
    fixture.host.terminate()
    #expect(heard == [.user, .terminated])
  }
}
