import FlowKit
import Testing

@MainActor
final class Endings {
  var results: [String] = []

  func record(_ result: FlowResult<StepOutput>) {
    switch result {
    case .completed(let output): results.append("completed \(output.flow)")
    case .cancelled(let reason): results.append("cancelled \(reason.rawValue)")
    }
  }
}

@MainActor
@Suite("Coordinator lifecycle")
struct CoordinatorLifecycleTests {
  /// Starts a coordinator that nothing but itself holds.
  private func startDetached(_ endings: Endings, steps: [String] = ["t.one", "t.two"]) -> StepCoordinator? {
    weak var weakCoordinator: StepCoordinator?
    do {
      let coordinator = StepCoordinator(id: "t", steps: steps)
      weakCoordinator = coordinator
      coordinator.start { endings.record($0) }
    }
    return weakCoordinator
  }

  @Test func aStartedCoordinatorRetainsItselfAndIsReleasedAfterCompleting() throws {
    let endings = Endings()
    weak let coordinator = startDetached(endings)
    #expect(coordinator != nil, "nothing outside holds it, so it must retain itself while running")
    #expect(coordinator?.isRunning == true)
    try coordinator?.send(.tap("next"))
    try coordinator?.send(.tap("next"))
    #expect(coordinator == nil)
    #expect(endings.results == ["completed t"])
  }

  @Test func aCoordinatorIsReleasedAfterCancel() {
    let endings = Endings()
    weak let coordinator = startDetached(endings)
    #expect(coordinator != nil)
    coordinator?.cancel()
    #expect(coordinator == nil)
    #expect(endings.results == ["cancelled user"])
  }

  @Test func aCoordinatorIsReleasedAfterACancelMidFlow() throws {
    let endings = Endings()
    weak let coordinator = startDetached(endings, steps: ["t.one", "t.two", "t.three"])
    try coordinator?.send(.tap("next"))
    #expect(coordinator?.screen.id == "t.two")
    try coordinator?.send(.close)
    #expect(coordinator == nil)
    #expect(endings.results == ["cancelled user"])
  }

  @Test func anUnstartedCoordinatorIsNotRetained() {
    weak var coordinator: StepCoordinator?
    do {
      let strong = StepCoordinator(id: "t", steps: ["t.one"])
      coordinator = strong
    }
    #expect(coordinator == nil)
  }

  @Test func theCompletionRunsExactlyOnce() {
    let endings = Endings()
    let coordinator = StepCoordinator(id: "t", steps: ["t.one"])
    coordinator.start { endings.record($0) }
    coordinator.complete(StepOutput(flow: "first"))
    coordinator.complete(StepOutput(flow: "second"))
    coordinator.cancel()
    #expect(endings.results == ["completed first"])
    #expect(coordinator.state == .finished)
  }

  @Test func aCancelThenACompleteReportsOnlyTheCancel() {
    let endings = Endings()
    let coordinator = StepCoordinator(id: "t", steps: ["t.one"])
    coordinator.start { endings.record($0) }
    coordinator.cancel(.terminated)
    coordinator.complete(StepOutput(flow: "late"))
    #expect(endings.results == ["cancelled terminated"])
  }

  @Test func startingTwiceIsIgnored() {
    let first = Endings()
    let second = Endings()
    let coordinator = StepCoordinator(id: "t", steps: ["t.one"])
    coordinator.start { first.record($0) }
    coordinator.start { second.record($0) }
    #expect(coordinator.startCount == 1)
    coordinator.complete(StepOutput(flow: "t"))
    #expect(first.results == ["completed t"])
    #expect(second.results.isEmpty)
  }

  @Test func startingAfterTheEndIsIgnored() {
    let endings = Endings()
    let coordinator = StepCoordinator(id: "t", steps: ["t.one"])
    coordinator.start { endings.record($0) }
    coordinator.cancel()
    coordinator.start { endings.record($0) }
    #expect(coordinator.state == .finished)
    #expect(coordinator.startCount == 1)
    #expect(endings.results == ["cancelled user"])
  }

  @Test func anActionAfterTheFlowEndedIsATypedError() {
    let coordinator = StepCoordinator(id: "t", steps: ["t.one"])
    coordinator.start(completion: { _ in })
    coordinator.cancel()
    #expect(throws: ActionError(screen: "t.one", element: "next", problem: .flowEnded)) {
      try coordinator.send(.tap("next"))
    }
    let error = ActionError(screen: "t.one", element: "next", problem: .flowEnded)
    #expect(error.description == "t.one: the flow has already ended")
  }

  @Test func anActionBeforeStartIsRefused() {
    let coordinator = StepCoordinator(id: "t", steps: ["t.one", "t.two"])
    #expect(throws: ActionError.self) { try coordinator.send(.tap("next")) }
    #expect(coordinator.index == 0)
  }

  @Test func aRefusedActionDoesNotReachTheCoordinator() throws {
    let coordinator = StepCoordinator(id: "t", steps: ["t.one", "t.two"])
    coordinator.start(completion: { _ in })
    #expect(throws: ActionError.self) { try coordinator.send(.back) }
    #expect(throws: ActionError.self) {
      try coordinator.send(.enter("note", String(repeating: "x", count: 41)))
    }
    #expect(coordinator.index == 0)
    try coordinator.send(.tap("next"))
    try coordinator.send(.back)
    #expect(coordinator.index == 0)
    coordinator.cancel()
  }
}
