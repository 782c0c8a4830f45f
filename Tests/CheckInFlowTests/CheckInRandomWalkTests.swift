import CheckInFlow
import FlowKit
import FlowKitTesting
import Foundation
import MoodTracking
import Testing

@MainActor
struct CheckInRandomWalkTests {
  /// Every action the screen would accept: its buttons, alert buttons, choices, the
  /// slider, text, back and close.
  private func actions(on screen: Screen, using random: inout SplitMix64) -> [UserAction] {
    if let alert = screen.alert { return alert.buttons.map { .tap($0.id) } }
    var actions: [UserAction] = []
    if screen.canGoBack { actions.append(.back) }
    if screen.canClose { actions.append(.close) }
    for element in screen.elements where element.isEnabled {
      switch element.kind {
      case .button: actions.append(.tap(element.id))
      case .choice(let options, let multiple):
        let ids = options.map(\.id)
        if multiple {
          actions.append(
            .select(
              element.id, Array(ids.shuffled(using: &random).prefix(Int.random(in: 0...3, using: &random)))))
        } else if let id = ids.randomElement(using: &random) {
          actions.append(.select(element.id, [id]))
        }
      case .slider: actions.append(.set(element.id, Double(Int.random(in: 1...10, using: &random))))
      case .text: actions.append(.enter(element.id, " note \(Int.random(in: 0...99, using: &random)) "))
      case .toggle, .info: break
      }
    }
    return actions
  }

  @Test(arguments: ["full", "quick"])
  func randomWalksEndOnceAndReleaseTheCoordinator(variant: String) async throws {
    var random = SplitMix64(seed: variant == "full" ? 1 : 2)
    var outcomes: [String: Int] = [:]
    for walk in 0..<300 {
      let world = World()
      if walk % 2 == 1 { try world.store.set(true, forKey: CheckInKeys.petSeen) }
      let harness = Harness(world, variant: variant == "full" ? .full : .quick, trigger: .launch)
      var moves = 0
      while harness.flow?.isRunning == true, moves < 60 {
        moves += 1
        let choices = actions(on: harness.screen, using: &random)
        // Leaning forward now and then lets walks reach Acting, not only wander and close.
        let forward = choices.filter { [.tap("continue"), .tap("begin")].contains($0) }
        let pool = !forward.isEmpty && Bool.random(using: &random) ? forward : choices
        let action = try #require(pool.randomElement(using: &random), "walk \(walk): no action")
        try await harness.send(action)
        #expect(
          harness.screen.alert.map { ["checkin.confirmExit", "checkin.error"].contains($0.id) } ?? true)
      }
      #expect(harness.endings.count <= 1, "walk \(walk)")
      if harness.endings.isEmpty {
        #expect(harness.flow != nil)
        #expect(world.entries().isEmpty, "walk \(walk): saved without completing")
        harness.flow?.cancel(.terminated)
      }
      #expect(harness.flow == nil, "walk \(walk): the coordinator outlived its ending")
      let completed = harness.data != nil
      #expect(world.entries().count == (completed ? 1 : 0), "walk \(walk)")
      outcomes[completed ? "completed" : "cancelled", default: 0] += 1
    }
    #expect(outcomes["completed", default: 0] > 0)
    #expect(outcomes["cancelled", default: 0] > 0)
  }
}
