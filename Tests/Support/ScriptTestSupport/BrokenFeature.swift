import FlowKit
import Foundation

/// Flows that break the contract on purpose, each in one way.
package enum BrokenFeature: FlowFeature {
  package static func registry() throws -> FlowRegistry {
    var registry = FlowRegistry()
    try registry.register(BrokenFeature.self)
    return registry
  }

  package static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    try registry.register(
      FlowDefinition(
        id: "broken.twice", summary: "reports its ending twice", variants: ["standard"],
        screens: [
          ScreenDeclaration("twice.start", elements: ["next"]),
          ScreenDeclaration("twice.end", elements: ["finish"]),
        ],
        make: { _ in TwiceFlow() }))
    try registry.register(
      FlowDefinition(
        id: "broken.leaky", summary: "keeps itself alive after it ended", variants: ["standard"],
        screens: [ScreenDeclaration("leaky.main", elements: ["finish"])],
        make: { _ in LeakyCoordinator() }))
    try registry.register(
      FlowDefinition(
        id: "broken.sloppy", summary: "changes its state on refused actions", variants: ["standard"],
        screens: [
          ScreenDeclaration(
            "sloppy.main", elements: ["counter", "count", "ask", "done"],
            alerts: [AlertDeclaration("sloppy.alert", buttons: ["ok"])])
        ],
        make: { _ in SloppyCoordinator() }))
  }
}

/// Implements the host's protocol by hand and calls the completion twice.
@MainActor
final class TwiceFlow: PresentableFlow {
  private var report: (@MainActor (FlowEnding) -> Void)?
  private var page = 0
  private(set) var isRunning = false

  var screen: Screen {
    page == 0
      ? Screen(id: "twice.start", title: "Start", elements: [.button("next", "Next")])
      : Screen(id: "twice.end", title: "End", elements: [.button("finish", "Finish")])
  }

  func send(_ action: UserAction) throws(ActionError) {
    try screen.validate(action)
    try perform(action)
  }

  func perform(_ action: UserAction) throws(ActionError) {
    switch action {
    case .tap("next"): page = 1
    case .tap("finish"):
      report?(FlowEnding(FlowResult<Int>.completed(1)))
      report?(FlowEnding(FlowResult<Int>.completed(2)))
      report = nil
      isRunning = false
    default: break
    }
  }

  func start(reportingTo report: @escaping @MainActor (FlowEnding) -> Void) {
    self.report = report
    isRunning = true
  }

  func cancel(_ reason: CancelReason) {
    report?(FlowEnding(FlowResult<Int>.cancelled(reason)))
    report = nil
    isRunning = false
  }
}

/// Holds a closure that captures itself: a retain cycle that outlives the ending.
final class LeakyCoordinator: FlowCoordinator<Void> {
  private var onFinish: (() -> Void)?

  override var screen: Screen {
    Screen(id: "leaky.main", title: "Leaky", elements: [.button("finish", "Finish")])
  }

  override func didStart() {
    onFinish = { self.complete(()) }
  }

  override func handle(_ action: UserAction) throws(ActionError) {
    if action == .tap("finish") { onFinish?() }
  }
}

/// Counts a tap it then refuses, and refuses its own alert's button.
final class SloppyCoordinator: FlowCoordinator<Void> {
  private var count = 0
  private var asking = false

  override var screen: Screen {
    Screen(
      id: "sloppy.main", title: "Sloppy",
      elements: [
        .info("counter", "Count", value: .number(Double(count))), .button("count", "Count"),
        .button("ask", "Ask"), .button("done", "Done"),
      ],
      alert: asking
        ? Alert(
          id: "sloppy.alert", title: "Stuck", message: "", buttons: [AlertButton(id: "ok", label: "OK")])
        : nil)
  }

  override func handle(_ action: UserAction) throws(ActionError) {
    switch action {
    case .tap("count"):
      count += 1
      throw ActionError(screen: "sloppy.main", element: "count", problem: .refused("not now"))
    case .tap("ask"): asking = true
    case .tap("ok"): throw ActionError(screen: "sloppy.main", element: "ok", problem: .refused("stuck"))
    case .tap("done"): complete(())
    default: break
    }
  }
}
