import Foundation
import Testing

@testable import Experiments

/// The report is gathered one event at a time and holds state for exposed users only
/// (issue 25, item 2).
struct ReportBuilderTests {
  private func event(_ user: String, _ name: String, _ second: Double, fields: [String: String] = [:])
    -> ReportEvent
  {
    ReportEvent(
      ts: Date(timeIntervalSince1970: 1_772_434_800 + second), user: user, event: name, flow: "checkin",
      fields: fields)
  }

  @Test func onlyExposedUsersAreHeld() throws {
    var builder = ExperimentReport.Builder(experiment: "x")
    for index in 0..<5_000 {
      builder.add(event("visitor-\(index)", "flow_started", Double(index)))
      builder.add(
        event("visitor-\(index)", "screen_viewed", Double(index), fields: ["screen": "checkin.pet"]))
    }
    #expect(builder.heldUsers == 0)
    builder.add(event("u1", "experiment_viewed", 0, fields: ["experiment": "x", "variation": "a"]))
    builder.add(event("u1", "experiment_viewed", 1, fields: ["experiment": "other", "variation": "b"]))
    builder.add(event("u1", "flow_started", 2))
    builder.add(event("u1", "flow_completed", 3))
    #expect(builder.heldUsers == 1)
    let report = try builder.report()
    #expect(report.variations.map(\.completed) == [1])
  }

  /// The same events one at a time or all at once give the same report.
  @Test func addingOneByOneIsTheWholeReport() throws {
    let events = [
      event(
        "u1", "experiment_viewed", 0, fields: ["experiment": "x", "variation": "b", "variation_id": "1"]),
      event("u1", "flow_started", 1), event("u1", "screen_viewed", 2, fields: ["screen": "checkin.pet"]),
      event(
        "u2", "experiment_viewed", 0, fields: ["experiment": "x", "variation": "a", "variation_id": "0"]),
      event("u2", "flow_started", 1), event("u2", "flow_completed", 2),
      // u2 again, started over in time: a second run.
      event(
        "u2", "experiment_viewed", 0, fields: ["experiment": "x", "variation": "a", "variation_id": "0"]),
    ]
    var builder = ExperimentReport.Builder(experiment: "x", ordersByVariationID: true)
    for event in events { builder.add(event) }
    let streamed = try builder.report()
    #expect(streamed.variations.map(\.variation) == ["a", "b"], "the control by variation_id")
    #expect(streamed.usersInSeveralRuns == 1)
    let whole = try ExperimentReport(experiment: "x", events: events, variationOrder: ["a", "b"])
    #expect(streamed == whole)
  }
}
