import FlowKit
import Foundation

/// The journal's one entry point into the app: the `journal` flow and its queries.
/// The app provides `services[JournalRepositoryKey.self]`.
public enum JournalFeature: FlowFeature {
  /// Its screens' text in English and German, shipped with the module.
  public static var stringTables: Bundle? { .module }

  public static var requiredServices: [any ServiceKey.Type] { [JournalRepositoryKey.self] }

  public static let screens = screens(catalog: nil)

  /// With a catalog, the layer, phase and strategy options it holds are declared too (the
  /// entries depend on the layer and phase shown).
  static func screens(catalog: JournalCatalog?) -> [ScreenDeclaration] {
    [
      ScreenDeclaration(
        JournalFlowCoordinator.screenID, elements: ["layer", "phase", "entry", "strategy", "close"],
        alerts: [
          AlertDeclaration("journal.confirmPrimary", buttons: ["confirm", "cancel"]),
          AlertDeclaration("journal.askSecondary", buttons: ["accept", "decline"]),
          AlertDeclaration("journal.confirmSecondary", buttons: ["confirm", "cancel"]),
          AlertDeclaration("journal.askSelfCare", buttons: ["accept", "decline"]),
          AlertDeclaration("journal.confirmStrategy", buttons: ["confirm", "cancel"]),
          AlertDeclaration("journal.success", buttons: ["ok"]),
          AlertDeclaration("journal.error", buttons: ["ok"]),
        ],
        options: catalog.map { catalog in
          [
            "layer": catalog.layers.map { String($0.id) }, "phase": catalog.phases.map { String($0.id) },
            "strategy": catalog.strategies.map { String($0.id) },
          ]
        } ?? [:])
    ]
  }

  public static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    try register(in: &registry, catalog: bundledCatalog())
  }

  /// Registers with another catalog (tests, content previews).
  public static func register(in registry: inout FlowRegistry, catalog: JournalCatalog) throws(RegistryError)
  {
    registry.require(requiredServices, by: _typeName(Self.self, qualified: false))
    try registry.register(
      FlowDefinition(
        id: JournalFlowCoordinator.flowID,
        summary: "Log a feeling from the catalog, optionally a second one and a self-care strategy",
        variants: ["standard"], screens: screens(catalog: catalog),
        make: { context in JournalFlowCoordinator(context: context, catalog: catalog) }))
    try registry.register(
      QueryDefinition("journal.count", type: .number, summary: "journal entries of the user") { environment in
        guard let userID = environment.userID else { return .number(0) }
        return .number(Double(try await repository(environment).count(userID: userID)))
      })
    let latest: [(String, String, @Sendable (JournalEntry) -> Int?)] = [
      ("primary", "the latest entry's primary feeling (catalog entry id)", { $0.primary }),
      ("secondary", "the latest entry's secondary feeling (catalog entry id)", { $0.secondary }),
      ("strategy", "the latest entry's self-care strategy (strategy id)", { $0.strategy }),
    ]
    for (name, summary, field) in latest {
      try registry.register(
        QueryDefinition("journal.latest.\(name)", type: .number, summary: summary) { environment in
          guard let userID = environment.userID,
            let entry = try await repository(environment).latest(userID: userID),
            let value = field(entry)
          else { return .none }
          return .number(Double(value))
        })
    }
  }

  /// The bundled catalog is validated by this module's tests; a broken one is a build
  /// mistake, and `RegistryError` has no case to carry it, so it stops loudly.
  private static func bundledCatalog() -> JournalCatalog {
    do {
      return try JournalCatalog.bundled()
    } catch {
      preconditionFailure("the bundled journal catalog is invalid: \(error)")
    }
  }

  @MainActor
  private static func repository(_ environment: HostEnvironment) -> any JournalRepository {
    environment.services[JournalRepositoryKey.self]
  }
}
