import FlowKit
import Foundation

/// The app's string tables, in Apple's `.strings` format, one per language under
/// `Localization/<language>.lproj/Localizable.strings`, keyed by the English text the
/// flows show. English is the flows' own text; its table lists every key, so a
/// translator sees what to translate. Adding a flow's copy to every language is adding
/// its lines to these tables, nothing else.
public enum WellflowLocalization {
  /// The languages the app ships, English first (the default).
  public static let locales = ["en", "de"]
  public static let defaultLocale = "en"

  /// Reads one language's table; throws for a language the app does not ship or a file
  /// that does not parse (`file:line:column: message`).
  public static func loadTable(_ locale: String) throws -> StringTable {
    guard locales.contains(locale),
      let url = Bundle.module.url(
        forResource: "Localizable", withExtension: "strings", subdirectory: "Localization/\(locale).lproj")
    else { throw LocalizationError.unknownLocale(locale, known: locales) }
    let text = try String(contentsOf: url, encoding: .utf8)
    do {
      return try StringTable(locale: locale, parsing: text)
    } catch {
      throw LocalizationError.badTable(file: "\(locale).lproj/Localizable.strings", error)
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
