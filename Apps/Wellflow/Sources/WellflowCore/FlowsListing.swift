import FlowKit
import Foundation
import WellflowExplorer

/// `wellflow flows`: what scripts can name, with each element's kind, label, options and
/// range as the flow shows them. Declarations name the ids; the details are read off the
/// screens an exploration of each variant reaches (an element on a screen never reached
/// within the bound is listed by id, kind `unknown`).
public struct FlowCatalog: Sendable, Codable, Equatable {
  public struct Option: Sendable, Codable, Equatable {
    public var id: String
    public var label: String
  }
  public struct Range: Sendable, Codable, Equatable {
    public var min: Double
    public var max: Double
    public var step: Double
    public init(min: Double, max: Double, step: Double) {
      self.min = min
      self.max = max
      self.step = step
    }
  }
  public struct ElementInfo: Sendable, Codable, Equatable {
    public var id: String
    /// `button`, `single choice`, `multiple choice`, `text field`, `slider`, `toggle`,
    /// `info`, or `unknown` when no screen showing it was reached.
    public var kind: String
    public var label: String?
    public var options: [Option]?
    public var range: Range?
    /// A text field's limit in characters.
    public var limit: Int?
  }
  public struct AlertInfo: Sendable, Codable, Equatable {
    public var id: String
    public var buttons: [String]
  }
  public struct ScreenInfo: Sendable, Codable, Equatable {
    public var id: String
    public var elements: [ElementInfo]
    public var alerts: [AlertInfo]
  }
  public struct FlowInfo: Sendable, Codable, Equatable {
    public var id: String
    public var summary: String
    public var variants: [String]
    public var defaultVariant: String
    public var screens: [ScreenInfo]
  }
  public struct QueryInfo: Sendable, Codable, Equatable {
    public var id: String
    public var type: String
    public var summary: String
  }
  public struct LaunchRuleInfo: Sendable, Codable, Equatable {
    public var id: String
    public var flow: String
    public var trigger: String
  }

  public var flows: [FlowInfo]
  public var queries: [QueryInfo]
  public var launchRules: [LaunchRuleInfo]
}

public enum FlowsListing {
  public enum Format: String, Sendable, CaseIterable { case text, json }

  /// How far each variant is explored for its screens' details.
  static let depth = 10
  static let maxStates = 150

  @MainActor
  public static func catalog(_ registry: FlowRegistry) async -> FlowCatalog {
    var flows: [FlowCatalog.FlowInfo] = []
    for flow in registry.flows {
      var seen: [String: [String: Element]] = [:]
      let declared = Set(flow.screens.map(\.id))
      let variants = [flow.defaultVariant] + flow.variants.filter { $0 != flow.defaultVariant }
      func missing() -> Bool {
        flow.screens.contains { screen in screen.elements.contains { seen[screen.id]?[$0] == nil } }
      }
      for variant in variants {
        guard missing() else { break }
        let explorer = FlowExplorer(
          registry: registry,
          options: FlowExplorer.Options(flow: flow.id, variant: variant, depth: depth, maxStates: maxStates))
        explorer.onScreen = { screen in
          guard declared.contains(screen.id) else { return }
          for element in screen.elements where seen[screen.id]?[element.id] == nil {
            seen[screen.id, default: [:]][element.id] = element
          }
        }
        // Every declared element seen: the rest of the exploration would add nothing.
        explorer.shouldStop = { !missing() }
        _ = try? await explorer.run()
      }
      let screens = flow.screens.map { screen in
        FlowCatalog.ScreenInfo(
          id: screen.id,
          elements: screen.elements.map { id in info(id, seen[screen.id]?[id]) },
          alerts: screen.alerts.map { FlowCatalog.AlertInfo(id: $0.id, buttons: $0.buttons) })
      }
      flows.append(
        FlowCatalog.FlowInfo(
          id: flow.id, summary: flow.summary, variants: flow.variants, defaultVariant: flow.defaultVariant,
          screens: screens))
    }
    return FlowCatalog(
      flows: flows,
      queries: registry.queries.map { .init(id: $0.id, type: $0.type.rawValue, summary: $0.summary) },
      launchRules: registry.launchRules.map {
        .init(id: $0.id, flow: $0.request.flow, trigger: $0.request.trigger.rawValue)
      })
  }

  static func info(_ id: String, _ element: Element?) -> FlowCatalog.ElementInfo {
    guard let element else { return .init(id: id, kind: "unknown") }
    var info = FlowCatalog.ElementInfo(id: id, kind: element.kind.name, label: element.label)
    switch element.kind {
    case .choice(let options, _): info.options = options.map { .init(id: $0.id, label: $0.label) }
    case .slider(let range, let step, _):
      info.range = .init(min: range.lowerBound, max: range.upperBound, step: step)
    case .text(let limit): info.limit = limit
    default: break
    }
    return info
  }

  /// Options shown in the text listing before the rest are counted.
  static let shownOptions = 12

  public static func text(_ catalog: FlowCatalog) -> String {
    var lines: [String] = []
    for flow in catalog.flows {
      lines.append("\(flow.id) — \(flow.summary)")
      lines.append(
        "  variants: \(flow.variants.map { $0 == flow.defaultVariant ? "\($0) (default)" : $0 }.joined(separator: ", "))"
      )
      for screen in flow.screens {
        lines.append("  screen \(screen.id)")
        for element in screen.elements {
          var line = "    \(element.id): \(element.kind)"
          if let label = element.label, !label.isEmpty { line += " \"\(label)\"" }
          if let range = element.range {
            line += " \(formatNumber(range.min))…\(formatNumber(range.max)) step \(formatNumber(range.step))"
          }
          if let limit = element.limit { line += " (up to \(limit) characters)" }
          lines.append(line)
          if let options = element.options {
            let shown = options.prefix(shownOptions).map {
              PlayScreen.option(ChoiceOption(id: $0.id, label: $0.label))
            }
            let more = options.count > shownOptions ? ", … (\(options.count) in all)" : ""
            lines.append("      options: \(shown.joined(separator: ", "))\(more)")
          }
        }
        for alert in screen.alerts {
          lines.append("    alert \(alert.id): \(alert.buttons.joined(separator: ", "))")
        }
      }
    }
    lines.append("queries:")
    for query in catalog.queries {
      lines.append("  \(query.id) (\(query.type)) — \(query.summary)")
    }
    lines.append("launch rules (asked in this order):")
    for rule in catalog.launchRules {
      lines.append("  \(rule.id) → \(rule.flow) (trigger \(rule.trigger))")
    }
    return lines.joined(separator: "\n")
  }

  public static func json(_ catalog: FlowCatalog) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return String(decoding: (try? encoder.encode(catalog)) ?? Data("{}".utf8), as: UTF8.self)
  }
}
