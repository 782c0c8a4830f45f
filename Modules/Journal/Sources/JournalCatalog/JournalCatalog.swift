import Foundation

/// The journal's content: layers of feeling (0 is self-care), phases, the medicinal
/// and toxic entries of each layer and phase, and the self-care strategies.
/// Entry and strategy ids are what the backend stores, so they are dense from 1.
public struct JournalCatalog: Sendable, Equatable {
  public struct Colour: Sendable, Equatable, Codable {
    public var id: String
    public var hex: String
  }

  public struct Layer: Sendable, Equatable, Codable {
    public var id: Int
    public var colour: String
    public var title: String
    public var subtitle: String
  }

  public struct Phase: Sendable, Equatable, Codable {
    public var id: Int
    public var title: String
    public var subtitle: String
  }

  public enum EntryKind: String, Sendable, Equatable, Codable {
    case medicinal, toxic
  }

  public struct Entry: Sendable, Equatable, Codable {
    public var id: Int
    public var layer: Int
    public var phase: Int
    public var kind: EntryKind
    public var dosage: String
    public var expression: String
  }

  public struct Strategy: Sendable, Equatable, Codable {
    public var id: Int
    public var text: String
    public var colour: String
  }

  /// The layer whose choices are self-care strategies rather than entries.
  public static let selfCareLayer = 0

  public let colours: [Colour]
  public let layers: [Layer]
  public let phases: [Phase]
  public let entries: [Entry]
  public let strategies: [Strategy]

  /// Validates the records; the first problem found is thrown, naming its record.
  public init(
    colours: [Colour], layers: [Layer], phases: [Phase], entries: [Entry], strategies: [Strategy]
  ) throws(CatalogError) {
    try Self.validate(
      colours: colours, layers: layers, phases: phases, entries: entries, strategies: strategies)
    self.colours = colours
    self.layers = layers.sorted { $0.id < $1.id }
    self.phases = phases.sorted { $0.id < $1.id }
    self.entries = entries.sorted { $0.id < $1.id }
    self.strategies = strategies.sorted { $0.id < $1.id }
  }

  public func layer(_ id: Int) -> Layer? { layers.first { $0.id == id } }
  public func phase(_ id: Int) -> Phase? { phases.first { $0.id == id } }
  /// Ids are dense from 1 (validated), so lookups index directly.
  public func entry(_ id: Int) -> Entry? { entries.indices.contains(id - 1) ? entries[id - 1] : nil }
  public func strategy(_ id: Int) -> Strategy? {
    strategies.indices.contains(id - 1) ? strategies[id - 1] : nil
  }

  public func entries(layer: Int, phase: Int) -> [Entry] {
    entries.filter { $0.layer == layer && $0.phase == phase }
  }
}

/// Why a catalog was refused; every case names the record at fault.
public enum CatalogError: Error, Equatable, CustomStringConvertible {
  case unreadable(String)
  case empty(String)
  case duplicateID(record: String, id: String)
  case idGap(record: String, missing: Int)
  case idBelowOne(record: String)
  case undefinedColour(record: String, colour: String)
  case unknownLayer(record: String, layer: Int)
  case unknownPhase(record: String, phase: Int)
  case entryOnSelfCareLayer(record: String)
  case missingSelfCareLayer

  public var description: String {
    switch self {
    case .unreadable(let reason): "the journal catalog cannot be read: \(reason)"
    case .empty(let kind): "the journal catalog has no \(kind)"
    case .duplicateID(let record, let id): "\(record): id \(id) is used more than once"
    case .idGap(let record, let missing):
      "\(record) ids must run from 1 without gaps; \(record) \(missing) is missing"
    case .idBelowOne(let record): "\(record): ids start at 1"
    case .undefinedColour(let record, let colour): "\(record): colour '\(colour)' is not defined"
    case .unknownLayer(let record, let layer): "\(record): layer \(layer) is not defined"
    case .unknownPhase(let record, let phase): "\(record): phase \(phase) is not defined"
    case .entryOnSelfCareLayer(let record):
      "\(record): layer \(JournalCatalog.selfCareLayer) holds self-care strategies, not entries"
    case .missingSelfCareLayer:
      "the journal catalog has no layer \(JournalCatalog.selfCareLayer) (self-care)"
    }
  }
}

extension JournalCatalog {
  private struct File: Decodable {
    var colours: [Colour]
    var layers: [Layer]
    var phases: [Phase]
    var entries: [Entry]
    var strategies: [Strategy]
  }

  /// Reads and validates a catalog from JSON.
  public init(json data: Data) throws(CatalogError) {
    let file: File
    do {
      file = try JSONDecoder().decode(File.self, from: data)
    } catch let DecodingError.keyNotFound(key, context) {
      throw .unreadable("\(Self.path(context.codingPath + [key])) is missing")
    } catch let DecodingError.typeMismatch(_, context) {
      throw .unreadable("\(Self.path(context.codingPath)): \(context.debugDescription)")
    } catch let DecodingError.valueNotFound(_, context) {
      throw .unreadable("\(Self.path(context.codingPath)) is null")
    } catch let DecodingError.dataCorrupted(context) {
      throw .unreadable("\(Self.path(context.codingPath)): \(context.debugDescription)")
    } catch {
      throw .unreadable("\(error)")
    }
    try self.init(
      colours: file.colours, layers: file.layers, phases: file.phases, entries: file.entries,
      strategies: file.strategies)
  }

  public init(json text: String) throws(CatalogError) {
    try self.init(json: Data(text.utf8))
  }

  private static let bundledCatalog = Result { () throws(CatalogError) in try content() }

  /// The catalog shipped with the module, read and validated once.
  public static func bundled() throws(CatalogError) -> JournalCatalog {
    try bundledCatalog.get()
  }

  private static func path(_ codingPath: [any CodingKey]) -> String {
    let parts = codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }
    let joined = parts.joined()
    return joined.hasPrefix(".") ? String(joined.dropFirst()) : (joined.isEmpty ? "the file" : joined)
  }

  private static func validate(
    colours: [Colour], layers: [Layer], phases: [Phase], entries: [Entry], strategies: [Strategy]
  ) throws(CatalogError) {
    var colourIDs = Set<String>()
    for colour in colours where !colourIDs.insert(colour.id).inserted {
      throw .duplicateID(record: "colour '\(colour.id)'", id: "'\(colour.id)'")
    }
    var layerIDs = Set<Int>()
    for layer in layers {
      guard layerIDs.insert(layer.id).inserted else {
        throw .duplicateID(record: "layer \(layer.id)", id: "\(layer.id)")
      }
      guard colourIDs.contains(layer.colour) else {
        throw .undefinedColour(record: "layer \(layer.id)", colour: layer.colour)
      }
    }
    guard layerIDs.contains(selfCareLayer) else { throw .missingSelfCareLayer }
    guard layerIDs.count > 1 else { throw .empty("feeling layers (only self-care)") }
    var phaseIDs = Set<Int>()
    for phase in phases where !phaseIDs.insert(phase.id).inserted {
      throw .duplicateID(record: "phase \(phase.id)", id: "\(phase.id)")
    }
    guard !phaseIDs.isEmpty else { throw .empty("phases") }
    try checkDense(entries.map(\.id), record: "entry")
    for entry in entries {
      let record = "entry \(entry.id)"
      guard layerIDs.contains(entry.layer) else { throw .unknownLayer(record: record, layer: entry.layer) }
      guard entry.layer != selfCareLayer else { throw .entryOnSelfCareLayer(record: record) }
      guard phaseIDs.contains(entry.phase) else { throw .unknownPhase(record: record, phase: entry.phase) }
    }
    try checkDense(strategies.map(\.id), record: "strategy")
    for strategy in strategies where !colourIDs.contains(strategy.colour) {
      throw .undefinedColour(record: "strategy \(strategy.id)", colour: strategy.colour)
    }
    guard !entries.isEmpty else { throw .empty("entries") }
    guard !strategies.isEmpty else { throw .empty("self-care strategies") }
  }

  /// Ids 1…n, each once: the backend validates ids against this range.
  private static func checkDense(_ ids: [Int], record: String) throws(CatalogError) {
    var seen = Set<Int>()
    for id in ids {
      guard id >= 1 else { throw .idBelowOne(record: "\(record) \(id)") }
      guard seen.insert(id).inserted else { throw .duplicateID(record: "\(record) \(id)", id: "\(id)") }
    }
    // n distinct ids of at least 1 leave a gap exactly when one of 1…n is absent.
    if !ids.isEmpty, let missing = (1...ids.count).first(where: { !seen.contains($0) }) {
      throw .idGap(record: record, missing: missing)
    }
  }
}
