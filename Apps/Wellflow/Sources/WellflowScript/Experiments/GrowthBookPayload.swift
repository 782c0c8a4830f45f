import Experiments
import FlowKit
import Foundation
import StrictJSON
import YAMLTree

/// A GrowthBook SDK payload (`{"features": {…}}`, unencrypted, as GrowthBook's API serves
/// it), checked against the registered flows. A feature named `wellflow.<flow>` whose value
/// is a variant name chooses that flow's variant through GrowthBook's feature rules; other
/// features are kept for prerequisites.
public struct GrowthBookPayload: Sendable {
  public static let featurePrefix = "wellflow."

  public var path: String
  public var features: [String: Feature]
  /// The feature deciding each flow, by flow id.
  public var featureByFlow: [String: String]
  public var savedGroups: [String: [JSONValue]]
  public var contextualBandits: [String: JSONValue]

  /// The variant names of each experiment rule of a `wellflow.<flow>` feature, by
  /// experiment key (what a script's `experiments:` may force).
  public var variationsByExperiment: [String: [String]] {
    var result: [String: [String]] = [:]
    for (_, key) in featureByFlow {
      for rule in features[key]?.rules ?? [] {
        guard let variations = rule.contextualVariations ?? rule.variations else { continue }
        let names = variations.compactMap { value -> String? in
          if case .string(let name) = value { return name }
          return nil
        }
        result[rule.key ?? key, default: []] += names.filter { !(result[rule.key ?? key] ?? []).contains($0) }
      }
    }
    return result
  }

  /// Reads and checks the payload: every problem is reported as `file:line:column: message`,
  /// and nothing is returned unless there are none.
  public static func load(path: String, registry: FlowRegistry) -> Result<
    GrowthBookPayload, ScriptLoadFailure
  > {
    var problems: [ScriptProblem] = []
    var reader = YAMLReader(file: path)
    let root = reader.readFile(what: "GrowthBook payload")
    problems += reader.problems
    guard let root else { return .failure(ScriptLoadFailure(problems: problems)) }
    var payload = GrowthBookPayload(
      path: path, features: [:], featureByFlow: [:], savedGroups: [:], contextualBandits: [:])
    func report(_ position: SourcePosition, _ message: String) {
      problems.append(ScriptProblem(position, message))
    }
    guard let entries = root.entries else {
      report(root.position, "a GrowthBook payload is a JSON object with \"features\", got \(root.typeName)")
      return .failure(ScriptLoadFailure(problems: problems))
    }
    if let encrypted = entries.first(where: { $0.key == "encryptedFeatures" }) {
      report(
        encrypted.keyPosition,
        "the payload is encrypted; serve it unencrypted (turn off encryption for this SDK connection)")
    }
    guard let featuresNode = entries.first(where: { $0.key == "features" })?.value else {
      if problems.isEmpty { report(root.position, "the payload has no \"features\" object") }
      return .failure(ScriptLoadFailure(problems: problems))
    }
    if let node = entries.first(where: { $0.key == "savedGroups" })?.value {
      if case .object(let groups) = node.jsonValue,
        let decoded = try? JSONValue.object(groups).decoded(as: [String: [JSONValue]].self)
      {
        payload.savedGroups = decoded
      } else {
        report(node.position, "savedGroups must map a group id to a list of values, got \(node.typeName)")
      }
    }
    if let node = entries.first(where: { $0.key == "contextualBandits" })?.value {
      if case .object(let bandits) = node.jsonValue {
        payload.contextualBandits = bandits
      } else {
        report(node.position, "contextualBandits must be an object, got \(node.typeName)")
      }
    }
    guard let features = featuresNode.entries else {
      report(
        featuresNode.position, "\"features\" must map feature keys to features, got \(featuresNode.typeName)")
      return .failure(ScriptLoadFailure(problems: problems))
    }
    var featurePositions: [String: SourcePosition] = [:]
    for (key, keyPosition, node) in features {
      featurePositions[key] = featurePositions[key] ?? keyPosition
      let feature: Feature
      do {
        feature = try node.jsonValue.decoded(as: Feature.self)
      } catch {
        report(node.position, "feature '\(clipped(key))': \(Self.describe(error))")
        continue
      }
      payload.features[key] = feature
      guard key.hasPrefix(Self.featurePrefix) else { continue }
      let flowID = String(key.dropFirst(Self.featurePrefix.count))
      guard let flow = registry.flow(flowID) else {
        let ids = registry.flows.map(\.id)
        report(
          keyPosition,
          "feature '\(clipped(key))' names unknown flow '\(clipped(flowID))'\(suggestion(flowID, among: ids)) (flows: \(ids.joined(separator: ", ")))"
        )
        continue
      }
      payload.featureByFlow[flowID] = key
      for (value, position) in Self.servedValues(node) {
        switch value {
        case .null: continue  // the flow's default variant
        case .string(let name) where flow.variants.contains(name): continue
        case .string(let name):
          report(
            position,
            "feature '\(clipped(key))': '\(clipped(name))' is not a variant of flow '\(flow.id)'"
              + suggestion(name, among: flow.variants)
              + " (variants: \(flow.variants.joined(separator: ", ")))")
        default:
          report(
            position,
            "feature '\(clipped(key))': a value must be a variant name of flow '\(flow.id)', got \(value.jsonText)"
          )
        }
      }
    }
    // Evaluation nests a call per prerequisite; a longer chain is refused here, where it
    // can be pointed at, rather than answered with null for every user.
    let (chain, links) = GrowthBook.longestPrerequisiteChain(payload.features)
    if links > GrowthBook.maxPrerequisiteDepth, let position = featurePositions[chain[0]] {
      let names = chain.map { clipped($0) }
      let shown = names.count > 5 ? names.prefix(3) + ["…", names[names.count - 1]] : names[...]
      report(
        position,
        "feature '\(names[0])': its prerequisites nest \(links) deep, more than \(GrowthBook.maxPrerequisiteDepth) ("
          + shown.joined(separator: " → ") + ")")
    }
    // A chain within the depth can still fan out: each feature naming two prerequisites
    // that name the same two is 2^depth evaluations.
    let visits = GrowthBook.prerequisiteVisits(payload.features)
    for key in payload.featureByFlow.values.sorted() {
      guard let count = visits[key], count > GrowthBook.maxPrerequisiteVisits,
        let position = featurePositions[key]
      else { continue }
      report(
        position,
        "feature '\(clipped(key))': evaluating its prerequisites takes more than \(GrowthBook.maxPrerequisiteVisits) steps (a prerequisite named on many paths is evaluated on each)"
      )
    }
    guard problems.isEmpty else { return .failure(ScriptLoadFailure(problems: problems)) }
    return .success(payload)
  }

  /// Every value a feature can give, with where it is written: its default, each rule's
  /// force and each variation.
  static func servedValues(_ feature: YNode) -> [(JSONValue, SourcePosition)] {
    guard let fields = feature.entries else { return [] }
    var values: [(JSONValue, SourcePosition)] = []
    if let node = fields.first(where: { $0.key == "defaultValue" })?.value {
      values.append((node.jsonValue, node.position))
    }
    for rule in fields.first(where: { $0.key == "rules" })?.value.items ?? [] {
      for field in rule.entries ?? [] {
        switch field.key {
        case "force": values.append((field.value.jsonValue, field.value.position))
        case "variations", "contextualVariations":
          for item in field.value.items ?? [] { values.append((item.jsonValue, item.position)) }
        default: break
        }
      }
    }
    return values
  }

  static func describe(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    func path(_ context: DecodingError.Context) -> String {
      let parts = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
      return parts.isEmpty ? "" : "at \(parts.hasPrefix(".") ? String(parts.dropFirst()) : parts): "
    }
    switch error {
    case .typeMismatch(let type, let context): return "\(path(context))expected \(Self.typeName(type))"
    case .valueNotFound(let type, let context):
      return "\(path(context))expected \(Self.typeName(type)), got null"
    case .keyNotFound(let key, let context): return "\(path(context))missing \"\(key.stringValue)\""
    case .dataCorrupted(let context): return "\(path(context))\(context.debugDescription)"
    @unknown default: return "\(error)"
    }
  }

  static func typeName(_ type: Any.Type) -> String {
    switch type {
    case is Int.Type: "an integer"
    case is Double.Type: "a number"
    case is String.Type: "text"
    case is Bool.Type: "true or false"
    default: "a value of another type"
    }
  }
}

extension YNode {
  /// The node as JSON; scalars keep their resolved type.
  var jsonValue: JSONValue {
    switch value {
    case .null: .null
    case .bool(let bool): .bool(bool)
    case .number(let number): .number(number)
    case .string(let text): .string(text)
    case .list(let items): .array(items.map(\.jsonValue))
    case .map(let entries):
      .object(
        Dictionary(entries.map { ($0.key, $0.value.jsonValue) }, uniquingKeysWith: { first, _ in first }))
    }
  }
}

extension JSONValue {
  func decoded<T: Decodable>(as type: T.Type) throws -> T {
    try JSONDecoder().decode(T.self, from: JSONEncoder().encode(self))
  }

  /// Compact JSON text, for messages.
  var jsonText: String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(self)).flatMap { String(data: $0, encoding: .utf8) } ?? "?"
  }
}

/// Where sticky assignments live: the user's documents, read before assigning and saved
/// when an assignment is new.
public protocol StickyBucketStore: Sendable {
  func documents() throws -> [String: StickyBucketDocument]
  func save(_ documents: [StickyBucketDocument]) throws
}

/// Sticky assignments in the app's key-value store (SQLite in the app), one JSON value per
/// user, so an exposed user keeps their variation when weights or coverage change.
public struct KeyValueStickyBucketStore: StickyBucketStore {
  public static let key = "growthbook.stickyBuckets"
  public let store: any KeyValueStore

  public init(store: any KeyValueStore) { self.store = store }

  public func documents() throws -> [String: StickyBucketDocument] {
    guard let text = try store.string(forKey: Self.key) else { return [:] }
    return try JSONDecoder().decode([String: StickyBucketDocument].self, from: Data(text.utf8))
  }

  public func save(_ documents: [StickyBucketDocument]) throws {
    // An unreadable record is replaced rather than kept failing.
    var all = (try? self.documents()) ?? [:]
    for document in documents { all[document.key] = document }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    try store.set(String(decoding: try encoder.encode(all), as: UTF8.self), forKey: Self.key)
  }
}
