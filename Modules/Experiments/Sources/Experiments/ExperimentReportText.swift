import Foundation

extension ExperimentReport {
  /// A plain-text table for the terminal (`--format text`).
  public func renderText() -> String {
    let header = [
      "variation", "exposed", "started", "completed", "cancelled", "abandoned", "completion", "95% CI",
      "median steps", "top exit screen", "vs control",
    ]
    let rightAligned: Set<Int> = [1, 2, 3, 4, 5, 6, 8]
    let rows = variations.enumerated().map { index, v in Self.row(v, isControl: index == 0) }
    let table = [header] + rows
    let widths = header.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
    let lines = table.map { (row: [String]) -> String in
      let cells = row.indices.map { (column: Int) -> String in
        let padding = String(repeating: " ", count: widths[column] - row[column].count)
        return rightAligned.contains(column) ? padding + row[column] : row[column] + padding
      }
      return String(cells.joined(separator: "  ").reversed().drop(while: { $0 == " " }).reversed())
    }
    var text = "Experiment \(experiment), flow \(flow): completion = completed / started "
    text += "(each user's first run after exposure)\n\n"
    text += lines.joined(separator: "\n") + "\n"
    if usersInSeveralVariations > 0 {
      text += "\n\(usersInSeveralVariations) user(s) saw more than one variation; "
      text += "each counts in the first one seen.\n"
    }
    return text
  }

  private static func row(_ v: VariationReport, isControl: Bool) -> [String] {
    let none = "–"
    var cells = [v.variation]
    cells += [v.exposed, v.started, v.completed, v.cancelled, v.abandoned].map { String($0) }
    cells.append(v.completionRate.map(percent) ?? none)
    if let interval = v.completionInterval {
      cells.append(percent(interval.lower) + "–" + percent(interval.upper))
    } else {
      cells.append(none)
    }
    cells.append(v.medianStepsToComplete.map { String(format: "%g", $0) } ?? none)
    if let exit = v.topExitScreen {
      cells.append("\(exit.screen) (\(exit.users))")
    } else {
      cells.append(none)
    }
    cells.append(isControl ? "control" : v.versusControl.map(comparison) ?? none)
    return cells
  }

  private static func percent(_ value: Double) -> String {
    String(format: "%.1f%%", value * 100)
  }

  private static func comparison(_ test: ProportionTest) -> String {
    String(format: "%+.1f pts, z %.2f, p %.4f", test.difference * 100, test.z, test.pValue)
  }
}
