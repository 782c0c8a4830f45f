import FlowKit

/// `wellflow flows`: what scripts can name.
public enum FlowsListing {
  public static func text(_ registry: FlowRegistry) -> String {
    var lines: [String] = []
    for flow in registry.flows {
      lines.append("\(flow.id) — \(flow.summary)")
      lines.append(
        "  variants: \(flow.variants.map { $0 == flow.defaultVariant ? "\($0) (default)" : $0 }.joined(separator: ", "))"
      )
      for screen in flow.screens {
        lines.append("  screen \(screen.id): \(screen.elements.joined(separator: ", "))")
        for alert in screen.alerts {
          lines.append("    alert \(alert.id): \(alert.buttons.joined(separator: ", "))")
        }
      }
    }
    lines.append("queries:")
    for query in registry.queries {
      lines.append("  \(query.id) (\(query.type.rawValue)) — \(query.summary)")
    }
    lines.append("launch rules (asked in this order):")
    for rule in registry.launchRules {
      lines.append("  \(rule.id) → \(rule.request.flow) (trigger \(rule.request.trigger))")
    }
    return lines.joined(separator: "\n")
  }
}
