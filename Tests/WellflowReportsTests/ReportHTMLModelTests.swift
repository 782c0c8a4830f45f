import Testing
import WellflowReports

/// The experiment report's page drawn from its plain model, without a report run
/// (`wellflow report --html` draws it from a report: `ReportHTMLTests`).
@Suite("Experiment report page")
struct ReportHTMLModelTests {
  @Test func thePlainModelShowsAPValueWhenGiven() {
    let model = ReportHTML(
      experiment: "x", flow: "checkin",
      rows: [
        .init(variation: "a", funnel: [.init(label: "exposed", value: 10)], rate: 0.5, interval: 0.2...0.8),
        .init(
          variation: "b", funnel: [.init(label: "exposed", value: 10)], rate: 0.7, interval: 0.4...0.9,
          pValue: 0.0123),
      ], notes: ["sample ratio mismatch"])
    let page = model.html
    #expect(page.contains("<td>0.0123</td>"))
    #expect(page.contains("<p class=\"rp-note\">sample ratio mismatch</p>"))
  }
}
