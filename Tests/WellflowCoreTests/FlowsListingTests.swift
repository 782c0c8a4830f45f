import FlowKit
import Foundation
import Testing
import WellflowCore
import WellflowScript

@MainActor
@Suite("wellflow flows")
struct FlowsListingTests {
  @Test func eachElementHasItsKindOptionsAndRange() async throws {
    let catalog = await FlowsListing.catalog(try WellflowApp.makeRegistry())
    func element(_ flow: String, _ screen: String, _ id: String) -> FlowCatalog.ElementInfo? {
      catalog.flows.first { $0.id == flow }?.screens.first { $0.id == screen }?.elements.first { $0.id == id }
    }
    let score = try #require(element("checkin", "checkin.sensing", "score"))
    #expect(score.kind == "slider")
    #expect(score.range == .init(min: 1, max: 10, step: 1))
    let skill = try #require(element("onboarding", "onboarding.skill", "skill"))
    #expect(skill.kind == "single choice")
    #expect(skill.options?.map(\.id) == ["beginner", "intermediate", "experienced"])
    #expect(element("checkin", "checkin.naming", "labels")?.kind == "multiple choice")
    #expect(element("checkin", "checkin.naming", "labels")?.options?.count == 38)
    #expect(element("checkin", "checkin.shaping", "response")?.limit == 500)
    #expect(element("onboarding", "onboarding.welcome", "continue")?.kind == "button")
    // Every declared element is reached within the bound but the summary's associations
    // row, which the acting screen shows only once associations were chosen.
    let unknown = catalog.flows.flatMap { flow in
      flow.screens.flatMap { screen in
        screen.elements.filter { $0.kind == "unknown" }.map { "\(screen.id).\($0.id)" }
      }
    }
    #expect(unknown == ["checkin.acting.summary.associations"])

    let text = FlowsListing.text(catalog)
    #expect(text.contains("    score: slider \"How pleasant\" 1…10 step 1"))
    #expect(text.contains("      options: beginner"))
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(FlowsListing.json(catalog).utf8)) as? [String: Any])
    #expect((json["flows"] as? [Any])?.count == catalog.flows.count)
    #expect((json["queries"] as? [Any])?.isEmpty == false)
  }
}
