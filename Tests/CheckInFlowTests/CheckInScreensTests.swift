import CheckInFlow
import FlowKit
import Foundation
import MoodTracking
import Testing

@MainActor
struct CheckInScreensTests {
  @Test func theFullVariantShowsSevenScreensWithProgressOfSix() async throws {
    let harness = Harness()
    var seen: [String] = []
    var progress: [String] = []
    while true {
      seen.append(harness.screen.id)
      progress.append(harness.screen.progress?.description ?? "-")
      if harness.screen.id == "checkin.acting" { break }
      try await harness.walk(to: harness.screen.id == "checkin.pet" ? "checkin.sensing" : nextOf(harness))
    }
    #expect(
      seen == [
        "checkin.pet", "checkin.sensing", "checkin.naming", "checkin.shaping", "checkin.attributing",
        "checkin.evaluating", "checkin.acting",
      ])
    #expect(progress == ["-", "1 of 6", "2 of 6", "3 of 6", "4 of 6", "5 of 6", "6 of 6"])
  }

  private func nextOf(_ harness: Harness) -> String {
    let order = [
      "checkin.sensing", "checkin.naming", "checkin.shaping", "checkin.attributing", "checkin.evaluating",
      "checkin.acting",
    ]
    return order[order.firstIndex(of: harness.screen.id)! + 1]
  }

  @Test func theQuickVariantShowsThreeScreensAndNoPet() async throws {
    let harness = Harness(variant: .quick)
    #expect(harness.world.petSeen == false)
    #expect(harness.screen.id == "checkin.sensing")
    #expect(harness.screen.progress == StepProgress(index: 1, count: 3))
    #expect(harness.screen.canGoBack == false)
    try await harness.send(.tap("continue"))
    #expect(harness.screen.id == "checkin.naming")
    #expect(harness.screen.progress == StepProgress(index: 2, count: 3))
    try await harness.send(.select("emotion", ["calm"]))
    try await harness.send(.tap("continue"))
    #expect(harness.screen.id == "checkin.acting")
    #expect(harness.screen.progress == StepProgress(index: 3, count: 3))
  }

  @Test func everyScreenHasTheElementIdsOfTheSpec() async throws {
    let harness = Harness()
    func ids() -> [String] { harness.screen.elements.map(\.id) }
    #expect(ids() == ["begin", "close"])
    try await harness.walk(to: "checkin.sensing")
    #expect(ids() == ["score", "continue"])
    try await harness.walk(to: "checkin.naming")
    #expect(ids() == ["emotion", "labels", "continue"])
    try await harness.walk(to: "checkin.shaping")
    #expect(ids() == ["prompt", "response", "continue"])
    try await harness.walk(to: "checkin.attributing")
    #expect(ids() == ["associations", "continue"])
    if case .choice(let options, true) = harness.screen.element("associations")?.kind {
      #expect(options.map(\.id) == MoodAssociation.allCases.map(\.rawValue))
    } else {
      Issue.record("associations is not a multiple choice")
    }
    try await harness.walk(to: "checkin.evaluating")
    #expect(ids() == ["evaluation", "continue"])
    if case .choice(let options, false) = harness.screen.element("evaluation")?.kind {
      #expect(options.map(\.id) == ["accept", "letBe", "pushAway", "resist", "unsure"])
    } else {
      Issue.record("evaluation is not a single choice")
    }
    try await harness.walk(to: "checkin.acting")
    #expect(ids().suffix(2) == ["complete", "journal"])
    #expect(harness.screen.elements.dropLast(2).allSatisfy { $0.kind == .info })
  }

  @Test func theSliderGoesFromOneToTenInStepsOfOneFromFiveAndNamesTheValenceClass() async throws {
    let harness = Harness(variant: .quick)
    let score = try #require(harness.screen.element("score"))
    #expect(score.kind == .slider(range: 1...10, step: 1, caption: "Neutral"))
    #expect(score.value == .number(5))
    try await harness.send(.set("score", 8))
    #expect(harness.screen.element("score")?.kind == .slider(range: 1...10, step: 1, caption: "Pleasant"))
    try await harness.send(.set("score", 1))
    #expect(
      harness.screen.element("score")?.kind == .slider(range: 1...10, step: 1, caption: "Very Unpleasant"))
    #expect(throws: ActionError.self) { try harness.running.send(.set("score", 11)) }
    #expect(throws: ActionError.self) { try harness.running.send(.set("score", 2.5)) }
  }

  @Test(arguments: 1...10)
  func labelsThatFitTheScoreComeFirst(score: Int) async throws {
    let harness = Harness(variant: .quick)
    try await harness.send(.set("score", Double(score)))
    try await harness.send(.tap("continue"))
    let fitting = try #require(ValenceClass(valence: MoodTranslation.valence(forScore: score))).fittingLabels
    for id in ["emotion", "labels"] {
      guard case .choice(let options, _) = harness.screen.element(id)?.kind else {
        Issue.record("\(id) is not a choice")
        continue
      }
      let offered = options.map(\.id)
      #expect(Array(offered.prefix(fitting.count)) == fitting.map(\.rawValue))
      #expect(Set(offered) == Set(MoodLabel.allCases.map(\.rawValue)))
      #expect(offered.count == MoodLabel.allCases.count)
    }
  }

  @Test func requiredInputsKeepContinueDisabled() async throws {
    let harness = Harness()
    try await harness.walk(to: "checkin.naming")
    #expect(harness.screen.element("continue")?.isEnabled == false)
    #expect(throws: ActionError(screen: "checkin.naming", element: "continue", problem: .disabled)) {
      try harness.running.send(.tap("continue"))
    }
    try await harness.send(.select("labels", ["calm", "proud"]))
    #expect(harness.screen.element("continue")?.isEnabled == false)
    try await harness.send(.select("emotion", ["proud"]))
    #expect(harness.screen.element("continue")?.isEnabled == true)
    try await harness.send(.tap("continue"))
    #expect(harness.screen.element("continue")?.isEnabled == true, "shaping is optional")
    try await harness.send(.tap("continue"))
    #expect(harness.screen.element("continue")?.isEnabled == true, "attributing is optional")
    try await harness.send(.tap("continue"))
    #expect(harness.screen.id == "checkin.evaluating")
    #expect(harness.screen.element("continue")?.isEnabled == false)
    #expect(throws: ActionError.self) { try harness.running.send(.tap("continue")) }
    try await harness.send(.select("evaluation", ["pushAway"]))
    #expect(harness.screen.element("continue")?.isEnabled == true)
  }

  @Test func theResponseIsLimitedTo500Characters() async throws {
    let harness = Harness()
    try await harness.walk(to: "checkin.shaping")
    #expect(harness.screen.element("response")?.kind == .text(limit: 500))
    let long = String(repeating: "a", count: 501)
    #expect(
      throws: ActionError(
        screen: "checkin.shaping", element: "response", problem: .textTooLong(limit: 500, length: 501))
    ) { try harness.running.send(.enter("response", long)) }
    try await harness.send(.enter("response", String(repeating: "a", count: 500)))
  }

  @Test func backKeepsEveryInput() async throws {
    let harness = Harness()
    try await harness.walk(to: "checkin.sensing")
    try await harness.send(.set("score", 9))
    try await harness.send(.tap("continue"))
    try await harness.send(.select("emotion", ["grateful"]))
    try await harness.send(.select("labels", ["joyful", "proud"]))
    try await harness.send(.tap("continue"))
    try await harness.send(.select("prompt", ["body"]))
    try await harness.send(.enter("response", "Warm all over."))
    try await harness.send(.tap("continue"))
    try await harness.send(.select("associations", ["family", "travel"]))
    try await harness.send(.tap("continue"))
    try await harness.send(.select("evaluation", ["letBe"]))
    try await harness.send(.tap("continue"))
    #expect(harness.screen.id == "checkin.acting")

    func value(_ id: String) -> ElementValue? { harness.screen.element(id)?.value }
    try await harness.send(.back)
    #expect(value("evaluation") == .text("letBe"))
    try await harness.send(.back)
    #expect(value("associations") == .list(["family", "travel"]))
    try await harness.send(.back)
    #expect(value("prompt") == .text("body"))
    #expect(value("response") == .text("Warm all over."))
    try await harness.send(.back)
    #expect(value("emotion") == .text("grateful"))
    #expect(value("labels") == .list(["joyful", "proud"]))
    try await harness.send(.back)
    #expect(harness.screen.id == "checkin.sensing")
    #expect(value("score") == .number(9))
    #expect(harness.screen.canGoBack == false, "the Pet is an intro, not a step to return to")
    for _ in 0..<5 { try await harness.send(.tap("continue")) }
    #expect(harness.screen.id == "checkin.acting")
    try await harness.send(.tap("complete"))
    let data = try #require(harness.data)
    #expect(data.score == 9)
    #expect(data.labels == [.grateful, .joyful, .proud])
    #expect(data.prompt == .body)
    #expect(data.response == "Warm all over.")
    #expect(data.associations == [.family, .travel])
    #expect(data.evaluation == .letBe)
  }

  @Test func theSummaryShowsWhatWasEnteredButNotTheResponse() async throws {
    let harness = Harness()
    try await harness.walk(to: "checkin.sensing")
    try await harness.send(.set("score", 8))
    try await harness.send(.tap("continue"))
    try await harness.send(.select("emotion", ["happy"]))
    try await harness.send(.tap("continue"))
    try await harness.send(.enter("response", "private words"))
    try await harness.walk(to: "checkin.acting")
    let screen = harness.screen
    #expect(screen.element("summary.score")?.value == .number(8))
    #expect(screen.element("summary.feeling")?.value == .text("Pleasant"))
    #expect(screen.element("summary.emotion")?.value == .text("Happy"))
    #expect(!screen.visibleText.contains { $0.contains("private words") })
  }
}
