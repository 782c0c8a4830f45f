import FlowKit
import Foundation

/// The app's string tables: each module ships its own, in Apple's `.strings` format, as a
/// resource at `Localization/<language>.lproj/Localizable.strings` (FlowKit the words
/// every feature shares, each feature its screens'), keyed by the English text the flows
/// show. English is the flows' own text; its table lists every key, so a translator sees
/// what to translate. A language's table here is every module's of that language, merged.
public enum WellflowLocalization {
  /// The languages the app ships, English first (the default).
  public static let locales = ["en", "de"]
  public static let defaultLocale = "en"

  /// Whose tables make the app's: FlowKit's, then each feature's that shows text.
  public static func sources(_ features: [any FlowFeature.Type] = WellflowFeatures.all) -> [(
    name: String, bundle: Bundle
  )] {
    [("FlowKit", StringTables.flowKit)]
      + features.compactMap { feature in
        feature.stringTables.map { (_typeName(feature, qualified: false), $0) }
      }
  }

  /// Reads one language's tables, merged; throws for a language the app does not ship or
  /// a file that does not parse (`file:line:column: message`). A module without a table
  /// for the language adds nothing (its screens stay English); `missingTables` names it.
  public static func loadTable(_ locale: String, features: [any FlowFeature.Type] = WellflowFeatures.all)
    throws
    -> StringTable
  {
    guard locales.contains(locale) else { throw LocalizationError.unknownLocale(locale, known: locales) }
    var entries: [String: String] = [:]
    for source in sources(features) {
      let table: StringTable?
      do {
        table = try StringTables.load(locale, from: source.bundle)
      } catch let error as StringsFileError {
        throw LocalizationError.badTable(file: "\(source.name): \(StringTables.path(locale))", error)
      }
      // The first module to translate a text wins; the same text reads the same everywhere.
      entries.merge(table?.entries ?? [:]) { first, _ in first }
    }
    return StringTable(locale: locale, entries: entries)
  }

  /// Each module that ships no table for one of the app's languages, as a sentence:
  /// "Breathing has no de table (Localization/de.lproj/Localizable.strings)".
  public static func missingTables(features: [any FlowFeature.Type] = WellflowFeatures.all) -> [String] {
    sources(features).flatMap { source in
      locales.compactMap { locale in
        let table = try? StringTables.load(locale, from: source.bundle)
        return table == nil ? "\(source.name) has no \(locale) table (\(StringTables.path(locale)))" : nil
      }
    }
  }

  private static let tables: [String: StringTable] = {
    var tables: [String: StringTable] = [:]
    for locale in locales { tables[locale] = try? loadTable(locale) }
    return tables
  }()

  /// Made once: a localizer compiles its format keys.
  private static let localizers: [String: ScreenLocalizer] = tables.filter { $0.key != defaultLocale }
    .mapValues(ScreenLocalizer.init(table:))

  /// The table of `locale`, nil for a language the app does not ship.
  public static func table(_ locale: String) -> StringTable? { tables[locale] }

  /// What translates screens into `locale`; nil for English (the flows' own text) and
  /// for languages the app does not ship.
  public static func localizer(for locale: String) -> ScreenLocalizer? { localizers[locale] }

  /// Why `locale` (a `--locale` value) cannot be used; nil when it can or none was given.
  public static func problem(with locale: String?) -> LocalizationError? {
    guard let locale, !locales.contains(locale) else { return nil }
    return .unknownLocale(locale, known: locales)
  }
}

public enum LocalizationError: Error, CustomStringConvertible {
  case unknownLocale(String, known: [String])
  case badTable(file: String, StringsFileError)

  public var description: String {
    switch self {
    case .unknownLocale(let locale, let known):
      "unknown locale '\(locale)' (locales: \(known.joined(separator: ", ")))"
    case .badTable(let file, let error): "\(file):\(error)"
    }
  }
}
