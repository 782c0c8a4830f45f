import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import YAMLTree

@testable import WellflowReports
@testable import WellflowScript

/// The HTML page and the JUnit report of a run, from results made here: the page stays
/// bounded whatever the population, the JUnit report keeps its shape.
@Suite("Run reports")
struct RunReportTests {
  @Test func anHTMLReportOfManyPassingRunsDrawsFiftyAndListsTheRest() throws {
    let html = RunHTMLReport.html((1...120).map { sampleResult($0) }, seconds: 1)
    #expect(html.components(separatedBy: "<details class=\"wr-run wr-passed\"").count - 1 == 50)
    #expect(html.contains("id=\"run-50\"") && !html.contains("id=\"run-51\""))
    let table = try #require(html.range(of: "<table class=\"wr-table\" id=\"passed-listed\">"))
    let rows = html[table.upperBound...].components(separatedBy: "<tr><td>").count - 1
    #expect(rows == 70)
    #expect(html.contains("<td>journey</td><td class=\"wr-file\">s.yaml (user-51)</td><td>1</td>"))
    #expect(html.contains("<td>journey</td><td class=\"wr-file\">s.yaml (user-120)</td>"))
    #expect(html.contains("the other 70 are listed here."))
  }

  @Test func aFailingRunIsDrawnFirstEvenIfItIsTheThousandth() throws {
    var report = RunHTMLReport.Builder()
    for index in 1...999 { report.add(sampleResult(index)) }
    report.add(sampleResult(1000, failing: true))
    #expect(report.retained.runs == 51)
    let html = report.html(seconds: 1)
    let failures = try #require(html.range(of: "<section id=\"failures\"><h2>Failures (1)</h2>"))
    let passed = try #require(html.range(of: "<section id=\"passed\"><h2>Passed (999)</h2>"))
    #expect(failures.lowerBound < passed.lowerBound)
    let drawn = try #require(html.range(of: "<details class=\"wr-run wr-failed\" id=\"failure-1\" open>"))
    #expect(drawn.lowerBound > failures.lowerBound && drawn.upperBound < passed.lowerBound)
    #expect(html.contains("s.yaml (user-1000)"))
    #expect(html.contains("<pre class=\"wr-message\">s.yaml:3:5: expect failed</pre>"))
    #expect(html.contains("the other 949 are listed here."))
  }

  @Test func runsPastTheListAreCountedAndFailuresPastFiftyAreListed() throws {
    var report = RunHTMLReport.Builder()
    let passing = RunHTMLReport.passingRunsWithScreens + RunHTMLReport.listedRunsLimit + 5
    for index in 1...passing { report.add(sampleResult(index)) }
    for index in 1...60 { report.add(sampleResult(passing + index, failing: true)) }
    #expect(report.retained.runs == 100)
    #expect(report.retained.rows == RunHTMLReport.listedRunsLimit + 10)
    let html = report.html(seconds: 1)
    #expect(html.contains("<p class=\"wr-note\">5 more runs not listed.</p>"))
    #expect(html.components(separatedBy: "<details class=\"wr-run wr-failed\"").count - 1 == 50)
    let failedTable = try #require(html.range(of: "<table class=\"wr-table\" id=\"failures-listed\">"))
    let passedSection = try #require(html.range(of: "<section id=\"passed\">"))
    #expect(failedTable.lowerBound < passedSection.lowerBound)
    #expect(html.contains("<td>s.yaml:3:5: expect failed</td></tr>"))
    // A population of ten thousand runs stays a page of a few megabytes.
    #expect(html.utf8.count < 5_000_000)
  }

  /// The JUnit report of one run, byte for byte as it has always been written.
  @Test func theJUnitReportKeepsItsShape() {
    let xml = JUnitReport.xml([sampleResult(1), sampleResult(2, failing: true)], seconds: 0.5)
    #expect(
      xml == """
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuites name="wellflow" tests="2" failures="1" time="0.5000">
          <testsuite name="wellflow run" tests="2" failures="1" errors="0" time="0.5000">
            <testcase name="journey (user-1)" classname="s" file="s.yaml" time="0.0020">
              <system-out>
        s.yaml:3:5 passed launch → none
              </system-out>
            </testcase>
            <testcase name="journey (user-2)" classname="s" file="s.yaml" time="0.0020">
              <failure message="s.yaml:3:5: expect failed" type="StepFailure">s.yaml:3:5: expect failed
        current screen: none</failure>
              <system-out>
        s.yaml:3:5 failed launch → none — expect failed
              </system-out>
            </testcase>
          </testsuite>
        </testsuites>

        """)
  }
}
