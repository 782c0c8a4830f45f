import FlowKit
import Foundation

/// What a test flow hands back: its id and, optionally, a flow to present next.
struct StepOutput: Sendable, FlowFollowUp {
  var flow: String
  var nextFlow: FlowRequest?
}

/// A small coordinator: `next` moves through `steps`, the last `next` completes, and
/// `close` cancels where allowed. Completing marks `<id>.done` in the store, so launch
/// rules can tell the flow ran.
final class StepCoordinator: FlowCoordinator<StepOutput> {
  let id: String
  let steps: [String]
  let store: (any KeyValueStore)?
  let next: FlowRequest?
  private(set) var index = 0
  private(set) var startCount = 0
  private var note = ""

  init(id: String, steps: [String], store: (any KeyValueStore)? = nil, next: FlowRequest? = nil) {
    self.id = id
    self.steps = steps
    self.store = store
    self.next = next
  }

  override func didStart() { startCount += 1 }

  override var screen: Screen {
    Screen(
      id: steps[index], title: "Step \(index + 1)",
      progress: StepProgress(index: index + 1, count: steps.count),
      elements: [.button("next", "Next"), .text("note", "Note", limit: 40, text: note)],
      canGoBack: index > 0, canClose: true)
  }

  override func handle(_ action: UserAction) throws(ActionError) {
    switch action {
    case .tap("next"):
      if index + 1 < steps.count {
        index += 1
      } else {
        try? store?.set(true, forKey: "\(id).done")
        complete(StepOutput(flow: id, nextFlow: next))
      }
    case .enter("note", let text): note = text
    case .back: index -= 1
    case .close: cancel()
    default: break
    }
  }
}

func flowDefinition(
  _ id: String, variants: [String] = ["default"], steps: [String]? = nil, next: FlowRequest? = nil
) -> FlowDefinition {
  let steps = steps ?? ["\(id).one", "\(id).two"]
  return FlowDefinition(
    id: id, summary: "test flow \(id)", variants: variants,
    screens: steps.map { ScreenDeclaration($0, elements: ["next", "note"]) },
    make: { context in
      StepCoordinator(id: id, steps: steps, store: context.environment.keyValueStore, next: next)
    })
}

/// A launch rule that presents `flow` until the flow completed once.
func untilDoneRule(_ flow: String, priority: Int) -> LaunchRule {
  LaunchRule(id: flow, priority: priority, request: FlowRequest(flow: flow, trigger: .launch)) { env in
    !(try env.keyValueStore.bool(forKey: "\(flow).done"))
  }
}

@MainActor
struct HostFixture {
  let host: FlowHost
  let store = InMemoryKeyValueStore()
  let analytics = InMemoryAnalyticsSink()
  let clock = ManualClock(
    now: Date(timeIntervalSince1970: 1_767_603_600), timeZone: TimeZone(identifier: "UTC")!)

  init(_ build: (inout FlowRegistry) throws -> Void) throws {
    var registry = FlowRegistry()
    try build(&registry)
    host = try FlowHost(
      registry: registry,
      environment: HostEnvironment(userID: "alice", clock: clock, keyValueStore: store, analytics: analytics))
  }

  var topFlow: String? { host.top?.flow }

  /// Taps `next` until the top flow (the one on top now) has ended.
  func finishTopFlow() throws {
    let serial = host.top?.serial
    while host.top?.serial == serial, host.top != nil { try host.send(.tap("next")) }
  }
}
