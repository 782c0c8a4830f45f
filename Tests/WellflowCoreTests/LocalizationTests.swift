import FlowKit
import Foundation
import Testing
import WellflowComposition
import WellflowCore
import WellflowExplorer
import WellflowScript

@MainActor
@Suite("Language: string tables, German screens, ids that never change")
struct LocalizationTests {
  let english = ScreenLocalizer(table: try! WellflowLocalization.loadTable("en"))
  let german = ScreenLocalizer(table: try! WellflowLocalization.loadTable("de"))

  /// Words German writes as English does. Any other German value equal to its key is
  /// English left untranslated.
  static let sameInBothLanguages: Set<String> = [
    "OK", "Neutral", "Fitness", "Dating", "Phase", "%@ (%@, %@)", "%@, %@: %@", "%@ %@ · %@/10 · %@",
  ]

  /// Text that is not copy: numbers, dates and times a flow fills in.
  private func isData(_ text: String) -> Bool {
    text.isEmpty || text.allSatisfy { $0.isNumber || "-:., ".contains($0) }
  }

  /// The English screens' texts, explored once for the two tests that read them.
  private static var englishTexts: Task<[String: Set<String>], any Error>?

  private func englishShownTexts() async throws -> [String: Set<String>] {
    let task = Self.englishTexts ?? Task { try await Self.shownTexts(locale: nil) }
    Self.englishTexts = task
    return try await task.value
  }

  /// Every flow and variant, explored whole in `locale`: the texts a person could read.
  private static func shownTexts(locale: String?) async throws -> [String: Set<String>] {
    let registry = try WellflowApp.makeRegistry()
    var texts: [String: Set<String>] = [:]
    for flow in registry.flows {
      for variant in flow.variants {
        let exploration = try await FlowExplorer(
          registry: registry, options: FlowExplorer.Options(flow: flow.id, variant: variant, locale: locale)
        ).run()
        #expect(exploration.unreachedScreens.isEmpty, "\(flow.id) (\(variant))")
        texts["\(flow.id) (\(variant))", default: []].formUnion(exploration.shownTexts)
      }
    }
    return texts
  }

  @Test func bothTablesParseAndGermanHasEveryEnglishKey() throws {
    let en = try WellflowLocalization.loadTable("en")
    let de = try WellflowLocalization.loadTable("de")
    #expect(en.entries.count > 300)
    let missing = en.entries.keys.filter { de.entries[$0] == nil }.sorted()
    #expect(missing.isEmpty, "no German for: \(missing.joined(separator: " | "))")
    let extra = de.entries.keys.filter { en.entries[$0] == nil }.sorted()
    #expect(extra.isEmpty, "German keys English lacks: \(extra.joined(separator: " | "))")
    for (key, value) in en.entries { #expect(key == value, "the English table shows its keys: \(key)") }
    let same = de.entries.filter { $0.key == $0.value }.map(\.key).filter {
      !Self.sameInBothLanguages.contains($0)
    }
    #expect(same.isEmpty, "German left in English: \(same.sorted().joined(separator: " | "))")
  }

  /// English on a German screen: a text the English screens show or the English table
  /// holds, other than the words both languages write alike.
  private func isEnglish(_ text: String, englishScreens: Set<String>) -> Bool {
    !isData(text) && !Self.sameInBothLanguages.contains(text)
      && (englishScreens.contains(text) || english.table.entries[text] != nil)
  }

  @Test func everyEnglishTextOnEveryScreenIsInTheTable() async throws {
    for (flow, texts) in try await englishShownTexts() {
      let missing = texts.filter { !isData($0) && english.translation(of: $0) == nil }.sorted()
      #expect(missing.isEmpty, "\(flow) shows text no table has: \(missing.joined(separator: " | "))")
    }
  }

  @Test func everyScreenOfEveryFlowInGermanShowsNoUntranslatedEnglish() async throws {
    let englishScreens = try await englishShownTexts()
    let germanScreens = try await Self.shownTexts(locale: "de")
    #expect(germanScreens.keys.sorted() == englishScreens.keys.sorted())
    for (flow, texts) in germanScreens {
      // The same states in both languages (ids never change), so English copy left on a
      // German screen is one of the English screens' texts.
      let shownInEnglish = englishScreens[flow] ?? []
      #expect(!shownInEnglish.isEmpty)
      let untranslated = texts.filter { isEnglish($0, englishScreens: shownInEnglish) }.sorted()
      #expect(
        untranslated.isEmpty, "\(flow) shows English in German: \(untranslated.joined(separator: " | "))")
    }
  }

  /// The explorer takes options the flow cannot tell apart as one class, so it does not
  /// show every catalog entry: the journal is walked layer by layer, phase by phase.
  @Test func everyJournalLayerAndPhaseReadsInGerman() async throws {
    func journal(_ locale: String?) async throws -> (AppSession, FlowHost) {
      let session = AppSession(
        registry: try WellflowApp.makeRegistry(), dataDirectory: URL(fileURLWithPath: "/dev/null"),
        clock: ManualClock(
          now: Date(timeIntervalSince1970: 1_767_603_600), timeZone: TimeZone(identifier: "UTC")!),
        userID: "user-1", analytics: DiscardingAnalyticsSink(), storage: .sqliteScratch, locale: locale)
      let host = try session.open()
      try host.present(FlowRequest(flow: "journal"))
      await host.settle()
      return (session, host)
    }
    let (englishSession, englishHost) = try await journal(nil)
    let (germanSession, germanHost) = try await journal("de")
    defer {
      englishSession.close()
      germanSession.close()
    }
    var checked = 0
    for layer in 0...10 {
      for phase in 1...6 {
        var texts: [Set<String>] = []
        for host in [englishHost, germanHost] {
          try host.send(.select("layer", [String(layer)]))
          try host.send(.select("phase", [String(phase)]))
          await host.settle()
          texts.append(Set(try #require(host.screen).visibleText))
        }
        let untranslated = texts[1].filter { isEnglish($0, englishScreens: texts[0]) }.sorted()
        #expect(untranslated.isEmpty, "layer \(layer), phase \(phase): \(untranslated)")
        checked += texts[1].count
      }
    }
    #expect(checked > 66 * 20)
  }

  @Test func idsAndValuesStayTheSameInGerman() async throws {
    let session = AppSession(
      registry: try WellflowApp.makeRegistry(), dataDirectory: URL(fileURLWithPath: "/dev/null"),
      clock: ManualClock(
        now: Date(timeIntervalSince1970: 1_767_603_600), timeZone: TimeZone(identifier: "UTC")!),
      userID: "user-1", analytics: DiscardingAnalyticsSink(), storage: .sqliteScratch, locale: "de")
    let host = try session.open()
    defer { session.close() }
    try host.present(FlowRequest(flow: "checkin", variant: "quick"))
    await host.settle()
    try host.send(.set("score", 8))
    let screen = try #require(host.screen)
    #expect(screen.id == "checkin.sensing")
    #expect(screen.title == "Wie fühlst du dich gerade?")
    #expect(screen.element("score")?.value == .number(8))
    #expect(screen.element("score")?.accessibilityValue == "8, Angenehm")
    #expect(screen.element("continue")?.label == "Weiter")
  }

  @Test func aMissingTranslationShowsEnglishAndNeverStopsARun() {
    let partial = ScreenLocalizer(table: StringTable(locale: "de", entries: ["Continue": "Weiter"]))
    let screen = Screen(
      id: "x", title: "Untranslated title", elements: [.button("continue", "Continue")])
    let shown = partial.localize(screen)
    #expect(shown.title == "Untranslated title")
    #expect(shown.element("continue")?.label == "Weiter")
  }

  @Test func formatKeysCarryTheirValuesAcross() {
    #expect(
      german.translate("Feelings that fit \"Pleasant\" come first.")
        == "Gefühle, die zu „Angenehm“ passen, stehen oben.")
    #expect(german.translate("Calm, Proud") == "Ruhig, Stolz")
    #expect(ScreenLocalizer.fill("%2$@ vor %1$@", with: ["a", "b"]) == "b vor a")
  }

  @Test func aBrokenTableNamesLineAndColumn() {
    #expect(throws: StringsFileError(line: 2, column: 10, message: "expected ';', found the end of the file"))
    {
      try StringTable(locale: "de", parsing: "/* ok */\n\"a\" = \"b\"")
    }
    #expect(throws: StringsFileError(line: 2, column: 1, message: "key \"a\" is given twice")) {
      try StringTable(locale: "de", parsing: "\"a\" = \"b\";\n\"a\" = \"c\";")
    }
    #expect(throws: StringsFileError(line: 1, column: 7, message: "a string that is never closed")) {
      try StringTable(locale: "de", parsing: "\"a\" = \"b;")
    }
    let table = try? StringTable(locale: "de", parsing: "// c\n\"q\\\"\" = \"\\U00FCber\\n\";")
    #expect(table?.entries == ["q\"": "über\n"])
  }
}
