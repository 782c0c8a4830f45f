import FlowKit
import Foundation
import Journal
import Testing

@Suite("Journal catalog")
struct CatalogTests {
  @Test func bundledCatalogHasTheShapeTheSpecPromises() throws {
    let catalog = try JournalCatalog.bundled()
    #expect(catalog.layers.map(\.id) == Array(0...10))
    #expect(catalog.layer(0)?.title == "Self-care")
    #expect(catalog.phases.map(\.id) == Array(1...6))
    #expect(catalog.entries.map(\.id) == Array(1...catalog.entries.count))
    #expect(catalog.strategies.map(\.id) == Array(1...catalog.strategies.count))
    #expect(catalog.strategies.count >= 8)
    for id in [1, 2] {
      #expect(catalog.entry(id)?.layer == 1)
      #expect(catalog.entry(id)?.phase == 1)
    }
    for layer in 1...10 {
      for phase in 1...6 {
        let kinds = Set(catalog.entries(layer: layer, phase: phase).map(\.kind))
        #expect(kinds == [.medicinal, .toxic], "layer \(layer), phase \(phase)")
      }
    }
    #expect(catalog.entries(layer: 0, phase: 1).isEmpty)
  }

  @Test func validCatalogLoadsFromJSON() throws {
    let catalog = try JournalCatalog(json: catalogJSON())
    #expect(catalog.entries.count == 2)
    #expect(catalog.strategy(2)?.text == "Walk")
  }

  @Test func danglingStrategyColourIsRefusedNamingTheStrategy() {
    let json = catalogJSON(
      strategies: """
        [{"id": 1, "text": "Breathe", "colour": "sky"}, {"id": 2, "text": "Walk", "colour": "teal"}]
        """)
    #expect(throws: CatalogError.undefinedColour(record: "strategy 2", colour: "teal")) {
      try JournalCatalog(json: json)
    }
    #expect(refusal(json) == "strategy 2: colour 'teal' is not defined")
  }

  @Test func danglingLayerColourIsRefused() {
    let json = catalogJSON(
      layers: """
        [{"id": 0, "colour": "sage", "title": "Self-care", "subtitle": "s"},
         {"id": 1, "colour": "mauve", "title": "Body", "subtitle": "b"}]
        """)
    #expect(refusal(json) == "layer 1: colour 'mauve' is not defined")
  }

  @Test func duplicateEntryIDIsRefusedNamingTheEntry() {
    let json = catalogJSON(
      entries: """
        [{"id": 1, "layer": 1, "phase": 1, "kind": "medicinal", "dosage": "a drop", "expression": "e1"},
         {"id": 1, "layer": 1, "phase": 1, "kind": "toxic", "dosage": "a drop", "expression": "e2"}]
        """)
    #expect(throws: CatalogError.duplicateID(record: "entry 1", id: "1")) { try JournalCatalog(json: json) }
    #expect(refusal(json) == "entry 1: id 1 is used more than once")
  }

  @Test func duplicateStrategyIDIsRefused() {
    let json = catalogJSON(
      strategies: """
        [{"id": 1, "text": "Breathe", "colour": "sky"}, {"id": 1, "text": "Walk", "colour": "sage"}]
        """)
    #expect(refusal(json) == "strategy 1: id 1 is used more than once")
  }

  @Test func gapInEntryIDsIsRefusedNamingTheMissingEntry() {
    let json = catalogJSON(
      entries: """
        [{"id": 1, "layer": 1, "phase": 1, "kind": "medicinal", "dosage": "a drop", "expression": "e1"},
         {"id": 3, "layer": 1, "phase": 1, "kind": "toxic", "dosage": "a drop", "expression": "e2"}]
        """)
    #expect(throws: CatalogError.idGap(record: "entry", missing: 2)) { try JournalCatalog(json: json) }
    #expect(refusal(json) == "entry ids must run from 1 without gaps; entry 2 is missing")
  }

  @Test func strategyIDsMustStartAtOne() {
    let json = catalogJSON(
      strategies: """
        [{"id": 2, "text": "Breathe", "colour": "sky"}, {"id": 3, "text": "Walk", "colour": "sage"}]
        """)
    #expect(refusal(json) == "strategy ids must run from 1 without gaps; strategy 1 is missing")
    let zero = catalogJSON(strategies: #"[{"id": 0, "text": "Breathe", "colour": "sky"}]"#)
    #expect(refusal(zero) == "strategy 0: ids start at 1")
  }

  @Test func entryReferencingAnUnknownLayerOrPhaseIsRefused() {
    let unknownLayer = catalogJSON(
      entries: """
        [{"id": 1, "layer": 7, "phase": 1, "kind": "medicinal", "dosage": "a drop", "expression": "e1"}]
        """)
    #expect(refusal(unknownLayer) == "entry 1: layer 7 is not defined")
    let unknownPhase = catalogJSON(
      entries: """
        [{"id": 1, "layer": 1, "phase": 4, "kind": "medicinal", "dosage": "a drop", "expression": "e1"}]
        """)
    #expect(refusal(unknownPhase) == "entry 1: phase 4 is not defined")
    let onSelfCare = catalogJSON(
      entries: """
        [{"id": 1, "layer": 0, "phase": 1, "kind": "medicinal", "dosage": "a drop", "expression": "e1"}]
        """)
    #expect(refusal(onSelfCare) == "entry 1: layer 0 holds self-care strategies, not entries")
  }

  @Test func catalogWithoutSelfCareLayerIsRefused() {
    let json = catalogJSON(layers: #"[{"id": 1, "colour": "sky", "title": "Body", "subtitle": "b"}]"#)
    #expect(refusal(json) == "the journal catalog has no layer 0 (self-care)")
  }

  @Test func malformedRecordNamesItsPath() {
    let json = catalogJSON(
      strategies: #"[{"id": 1, "text": "Breathe", "colour": "sky"}, {"id": 2, "colour": "sage"}]"#)
    #expect(refusal(json) == "the journal catalog cannot be read: strategies[1].text is missing")
    #expect(refusal("{").map { $0.hasPrefix("the journal catalog cannot be read:") } == true)
  }

  private func refusal(_ json: String) -> String? {
    do {
      _ = try JournalCatalog(json: json)
      return nil
    } catch {
      return error.description
    }
  }
}
