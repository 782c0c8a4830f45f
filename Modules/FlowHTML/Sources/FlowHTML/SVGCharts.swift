import FlowKit
import Foundation

/// Small inline SVG charts for reports: funnel bars and interval whiskers. Values that
/// are not finite are left out rather than drawn; every number is clamped to the chart.
public enum SVGCharts {
  /// One bar of a funnel: a stage and how many users reached it.
  public struct Bar: Sendable, Equatable {
    public var label: String
    public var value: Double
    public init(label: String, value: Double) {
      self.label = label
      self.value = value
    }
  }

  /// Horizontal bars, each as long as its value against the largest (or `maximum`), with
  /// the value and its share of the first bar written beside it.
  public static func funnel(_ bars: [Bar], title: String, maximum: Double? = nil) -> String {
    let shown = bars.filter { $0.value.isFinite && $0.value >= 0 }
    let largest = max(maximum ?? 0, shown.map(\.value).max() ?? 0)
    let width = 520.0
    let labelWidth = 110.0
    let barArea = 300.0
    let rowHeight = 26.0
    let height = rowHeight * Double(shown.count) + 30
    var svg =
      "<svg class=\"wf-chart wf-funnel\" width=\"\(n(width))\" height=\"\(n(height))\" viewBox=\"0 0 \(n(width)) \(n(height))\" role=\"img\" aria-label=\"\(ScreenHTML.escape(title))\">"
    svg += "<title>\(ScreenHTML.escape(title))</title>"
    svg += "<text x=\"0\" y=\"16\" font-size=\"13\" font-weight=\"600\">\(ScreenHTML.escape(title))</text>"
    let first = shown.first?.value ?? 0
    for (index, bar) in shown.enumerated() {
      let y = 26 + Double(index) * rowHeight
      let length = largest > 0 ? barArea * min(bar.value / largest, 1) : 0
      svg +=
        "<text x=\"\(n(labelWidth - 6))\" y=\"\(n(y + 15))\" font-size=\"12\" text-anchor=\"end\">\(ScreenHTML.escape(bar.label))</text>"
      svg +=
        "<rect x=\"\(n(labelWidth))\" y=\"\(n(y + 3))\" width=\"\(n(max(length, 0.5)))\" height=\"\(n(rowHeight - 8))\" rx=\"3\" fill=\"#4f46e5\" fill-opacity=\"\(n(1 - 0.15 * Double(min(index, 4))))\"/>"
      var text = formatNumber(bar.value)
      if first > 0, index > 0 { text += " (\(percent(bar.value / first)))" }
      svg +=
        "<text x=\"\(n(labelWidth + length + 6))\" y=\"\(n(y + 15))\" font-size=\"12\">\(ScreenHTML.escape(text))</text>"
    }
    return svg + "</svg>"
  }

  /// One estimate with its interval, e.g. a completion rate and its 95% interval.
  public struct Interval: Sendable, Equatable {
    public var label: String
    public var estimate: Double
    public var lower: Double
    public var upper: Double
    public init(label: String, estimate: Double, lower: Double, upper: Double) {
      self.label = label
      self.estimate = estimate
      self.lower = lower
      self.upper = upper
    }
  }

  /// Whiskers on a shared axis from `domain` (0…1 by default, shown as percentages):
  /// a dot at the estimate, a line from lower to upper.
  public static func intervals(_ rows: [Interval], title: String, domain: ClosedRange<Double> = 0...1)
    -> String
  {
    let shown = rows.filter { $0.estimate.isFinite && $0.lower.isFinite && $0.upper.isFinite }
    let width = 520.0
    let left = 110.0
    let axis = 360.0
    let rowHeight = 28.0
    let top = 26.0
    let height = top + rowHeight * Double(shown.count) + 26
    let span = domain.upperBound - domain.lowerBound
    func x(_ value: Double) -> Double {
      guard span > 0 else { return left }
      return left + axis * min(max((value - domain.lowerBound) / span, 0), 1)
    }
    var svg =
      "<svg class=\"wf-chart wf-intervals\" width=\"\(n(width))\" height=\"\(n(height))\" viewBox=\"0 0 \(n(width)) \(n(height))\" role=\"img\" aria-label=\"\(ScreenHTML.escape(title))\">"
    svg += "<title>\(ScreenHTML.escape(title))</title>"
    svg += "<text x=\"0\" y=\"16\" font-size=\"13\" font-weight=\"600\">\(ScreenHTML.escape(title))</text>"
    let axisY = top + rowHeight * Double(shown.count) + 4
    svg +=
      "<line x1=\"\(n(left))\" y1=\"\(n(axisY))\" x2=\"\(n(left + axis))\" y2=\"\(n(axisY))\" stroke=\"#9aa0b0\"/>"
    for tick in 0...4 {
      let value = domain.lowerBound + span * Double(tick) / 4
      let tx = x(value)
      svg +=
        "<line x1=\"\(n(tx))\" y1=\"\(n(top))\" x2=\"\(n(tx))\" y2=\"\(n(axisY))\" stroke=\"#e3e5ec\"/>"
      svg +=
        "<text x=\"\(n(tx))\" y=\"\(n(axisY + 16))\" font-size=\"11\" text-anchor=\"middle\" fill=\"#6b7080\">\(percent(value))</text>"
    }
    for (index, row) in shown.enumerated() {
      let y = top + Double(index) * rowHeight + rowHeight / 2
      svg +=
        "<text x=\"\(n(left - 8))\" y=\"\(n(y + 4))\" font-size=\"12\" text-anchor=\"end\">\(ScreenHTML.escape(row.label))</text>"
      svg +=
        "<line class=\"wf-whisker\" x1=\"\(n(x(row.lower)))\" y1=\"\(n(y))\" x2=\"\(n(x(row.upper)))\" y2=\"\(n(y))\" stroke=\"#4f46e5\" stroke-width=\"2\"/>"
      for end in [row.lower, row.upper] {
        svg +=
          "<line x1=\"\(n(x(end)))\" y1=\"\(n(y - 6))\" x2=\"\(n(x(end)))\" y2=\"\(n(y + 6))\" stroke=\"#4f46e5\" stroke-width=\"2\"/>"
      }
      svg +=
        "<circle cx=\"\(n(x(row.estimate)))\" cy=\"\(n(y))\" r=\"4.5\" fill=\"#4f46e5\"><title>\(ScreenHTML.escape("\(row.label): \(percent(row.estimate)) [\(percent(row.lower)), \(percent(row.upper))]"))</title></circle>"
    }
    return svg + "</svg>"
  }

  /// A share as a percentage with one decimal: `42.5%`.
  public static func percent(_ share: Double) -> String {
    guard share.isFinite else { return "–" }
    return String(format: "%.1f%%", share * 100)
  }

  /// A coordinate with at most two decimals.
  static func n(_ value: Double) -> String {
    guard value.isFinite else { return "0" }
    var text = String(format: "%.2f", value)
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text
  }
}
