import FlowKit
import Foundation
import WellflowComposition

/// What scripts may name, taken from the registry: flows and their variants, the
/// declared screens, elements and alerts, the queries with their types.
public struct ScriptVocabulary: Sendable {
  var flows: [String: [String]]
  var screens: Set<String>
  var elements: Set<String>
  var alerts: Set<String>
  var alertButtons: Set<String>
  var queries: [String: QueryType]
  /// Elements and queries whose values are text a person typed: summaries show lengths.
  var textFields: Set<String>
  var freeTextQueries: Set<String>
  var experiments: Set<String>?
  /// Variation names by experiment key, when an experiment file gave them.
  var experimentVariations: [String: [String]] = [:]
  /// The option ids a choice may take, for choices whose options every screen showing
  /// them declares (a choice whose options are data is checked only when it is shown).
  var options: [String: [String]]
  /// Notification ids `open` and `expect: {notification}` may name.
  var notifications: Set<String>
  /// Languages `locale:` may name.
  var locales: [String] = WellflowLocalization.locales

  /// `experiments` are the variation names by experiment key from `--experiments FILE`;
  /// nil when no file was given (then a script may force none).
  public init(registry: FlowRegistry, experimentVariations: [String: [String]]?) {
    self.init(registry: registry, experiments: experimentVariations.map { Set($0.keys) })
    self.experimentVariations = experimentVariations ?? [:]
  }

  public init(registry: FlowRegistry, experiments: Set<String>? = nil) {
    flows = Dictionary(uniqueKeysWithValues: registry.flows.map { ($0.id, $0.variants) })
    let declared = registry.flows.flatMap(\.screens)
    screens = Set(declared.map(\.id))
    elements = Set(declared.flatMap(\.elements))
    alerts = Set(declared.flatMap { $0.alerts.map(\.id) })
    alertButtons = Set(declared.flatMap { $0.alerts.flatMap(\.buttons) })
    queries = Dictionary(uniqueKeysWithValues: registry.queries.map { ($0.id, $0.type) })
    textFields = Set(declared.flatMap(\.textFields))
    var options: [String: [String]] = [:]
    var undeclared = Set<String>()
    for screen in declared {
      for element in screen.elements {
        guard let ids = screen.options[element] else {
          undeclared.insert(element)
          continue
        }
        let known = options[element, default: []]
        options[element] = known + ids.filter { !known.contains($0) }
      }
    }
    self.options = options.filter { !undeclared.contains($0.key) }
    freeTextQueries = Set(registry.queries.filter(\.isFreeText).map(\.id))
    notifications = Set(registry.notifications.map(\.id))
    self.experiments = experiments
  }
}
