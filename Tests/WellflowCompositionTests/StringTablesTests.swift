import FlowKit
import Foundation
import Testing
import WellflowComposition

/// Each module ships its own string tables; the app's are theirs merged.
@Suite("String tables per module")
struct StringTablesTests {
  /// A feature whose bundle holds no tables: the test bundle's main one.
  enum Untranslated: FlowFeature {
    static var stringTables: Bundle? { Bundle.main }
    static func register(in registry: inout FlowRegistry) throws(RegistryError) {}
  }

  @Test func everyModuleShipsEveryLanguage() {
    #expect(WellflowLocalization.missingTables() == [])
  }

  @Test func aFeatureWithoutAGermanTableIsNamed() {
    #expect(
      WellflowLocalization.missingTables(features: WellflowFeatures.all + [Untranslated.self]) == [
        "Untranslated has no en table (Localization/en.lproj/Localizable.strings)",
        "Untranslated has no de table (Localization/de.lproj/Localizable.strings)",
      ])
  }

  /// The app's table of a language is every module's of it: no key is lost or left over.
  @Test func theMergedTablesHoldEveryModulesKeys() throws {
    for locale in WellflowLocalization.locales {
      let merged = try WellflowLocalization.loadTable(locale)
      var keys = 0
      for source in WellflowLocalization.sources() {
        let table = try #require(
          try StringTables.load(locale, from: source.bundle), "\(source.name) \(locale)")
        keys += table.entries.count
        for (key, value) in table.entries { #expect(merged.entries[key] == value, "\(source.name): \(key)") }
      }
      #expect(merged.entries.count == keys, "a key is translated by two modules")
      #expect(merged.entries.count > 300)
    }
  }
}
