import Experiments
import FlowKit

extension ExperimentReport {
  /// The report as a terminal may show it: every name (variations, screens, the flow, the
  /// experiment and metrics), which an events file can make anything, with control and
  /// bidi characters escaped and clipped to `limit` characters. JSON and CSV keep names
  /// exact: they are data, and JSON escapes controls itself.
  package func withTerminalSafeNames(limit: Int) -> ExperimentReport {
    let safe = { (name: String) in terminalSafe(name, limit: limit) }
    var report = self
    report.experiment = safe(experiment)
    report.flow = safe(flow)
    report.metricNames = metricNames.map(safe)
    for index in report.variations.indices {
      report.variations[index].variation = safe(variations[index].variation)
      report.variations[index].topExitScreen?.screen = safe(variations[index].topExitScreen?.screen ?? "")
      report.variations[index].completion.metric = safe(variations[index].completion.metric)
      for metric in report.variations[index].metrics.indices {
        report.variations[index].metrics[metric].metric = safe(variations[index].metrics[metric].metric)
      }
    }
    return report
  }
}
