// A worked example of the plugin guide (FlowKit.docc/PluginGuide.md): the page shows this code, and
// GuideDocumentationTests checks that it still does, word for word.

import FlowKit
import Foundation

/// The port the feature needs: where saved lists go. The app provides an adapter.
public protocol GratitudeJournal: Sendable {
  func save(_ items: [String], userID: String, at date: Date) async throws
  func count(userID: String) async throws -> Int
}

public enum GratitudeJournalKey: ServiceKey {
  public typealias Value = any GratitudeJournal
}

/// Up to three good things, typed one at a time, then saved. Output: the list.
public final class GratitudeCoordinator: FlowCoordinator<[String]> {
  nonisolated public static let screenID = "gratitude.list"
  private let journal: any GratitudeJournal
  private let userID: String?
  private let clock: any FlowClock
  private let work: WorkTracker
  private var items: [String] = []
  private var draft = ""
  private var isSaving = false
  private var problem: String?

  public init(context: FlowContext) {
    journal = context.environment.services[GratitudeJournalKey.self]
    userID = context.environment.userID
    clock = context.environment.clock
    work = context.work
  }

  private var typed: String { draft.trimmingCharacters(in: .whitespacesAndNewlines) }

  public override var screen: Screen {
    Screen(
      id: Self.screenID, title: "Three good things",
      message: problem ?? (isSaving ? "Saving…" : "\(items.count) of 3"),
      elements: [
        .text("entry", "Something good", limit: 120, text: draft),
        .button("add", "Add", enabled: !isSaving && !typed.isEmpty && items.count < 3),
        .button("save", "Save", enabled: !isSaving && !items.isEmpty),
      ],
      canClose: !isSaving)
  }

  public override func handle(_ action: UserAction) throws(ActionError) {
    switch action {
    case .enter("entry", let text):
      draft = text
    case .tap("add"):
      items.append(typed)
      draft = ""
    case .tap("save"):
      save()
    case .close:
      cancel()
    default:
      break
    }
  }

  private func save() {
    guard let userID else {
      problem = "Sign in to keep your lists."
      return
    }
    isSaving = true
    problem = nil
    let items = items
    let date = clock.now
    work.run { [weak self, journal] in
      do {
        try await journal.save(items, userID: userID, at: date)
        self?.complete(items)
      } catch {
        self?.isSaving = false
        self?.problem = "Your list could not be saved. Try again."
      }
    }
  }
}

/// The feature's one entry point: its flow, its query, the port it needs.
public enum GratitudeFeature: FlowFeature {
  public static let flowID = "gratitude"

  public static var requiredServices: [any ServiceKey.Type] { [GratitudeJournalKey.self] }

  /// Its screen text in English and German: `Localization/<language>.lproj` in its module.
  public static var stringTables: Bundle? { .module }

  public static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    try registry.register(
      FlowDefinition(
        id: flowID, summary: "Three good things", variants: ["standard"],
        screens: [
          ScreenDeclaration(
            GratitudeCoordinator.screenID, elements: ["entry", "add", "save"], textFields: ["entry"])
        ],
        make: { context in GratitudeCoordinator(context: context) }))
    try registry.register(
      QueryDefinition("gratitude.count", type: .number, summary: "gratitude lists the user saved") { env in
        guard let userID = env.userID else { return .number(0) }
        return .number(Double(try await env.services[GratitudeJournalKey.self].count(userID: userID)))
      })
  }
}
