import FlowKit
import Foundation

/// Registers `mood.log`, `mood.history`, `mood.entries` and the mood, health and outbox queries.
public enum MoodTrackingFeature: FlowFeature {
  /// Its screens' text in English and German, shipped with the module.
  public static var stringTables: Bundle? { .module }

  public static var requiredServices: [any ServiceKey.Type] {
    [MoodRepositoryKey.self, StateOfMindStoreKey.self, OutboxKey.self]
  }

  public static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    try registry.register(
      FlowDefinition(
        id: "mood.log", summary: "Log a daily mood with notes, for today or an earlier day",
        variants: ["standard"],
        screens: [
          ScreenDeclaration(
            "mood.log", elements: ["score", "notes", "date", "save"],
            alerts: [AlertDeclaration("mood.error", buttons: ["ok"])], textFields: ["notes", "date"])
        ],
        make: { context in
          MoodLogCoordinator(
            saveMood: context.environment.saveMood, clock: context.environment.clock,
            analytics: context.environment.analytics, trigger: context.trigger, work: context.work)
        }))
    try registry.register(
      FlowDefinition(
        id: "mood.history", summary: "Average, highest, lowest, latest, count and streak of a range",
        variants: ["standard"],
        screens: [
          ScreenDeclaration(
            "mood.history",
            elements: ["range", "average", "highest", "lowest", "latest", "count", "streak", "close"],
            options: ["range": MoodHistoryRange.options.map(\.id)])
        ],
        make: { context in
          MoodHistoryCoordinator(
            history: context.environment.moodHistory, clock: context.environment.clock, work: context.work)
        }))

    try registry.register(
      FlowDefinition(
        id: MoodEntriesCoordinator.flowID, summary: "List a range's moods, newest first; edit or delete one",
        variants: ["standard"],
        screens: [
          ScreenDeclaration(
            MoodEntriesCoordinator.listScreenID, elements: ["range", "entry", "edit", "delete", "close"],
            alerts: [
              AlertDeclaration(MoodEntriesCoordinator.confirmDeleteAlertID, buttons: ["delete", "cancel"]),
              AlertDeclaration(MoodEntriesCoordinator.errorAlertID, buttons: ["ok"]),
            ],
            // `entry` lists the saved moods: its options are data.
            options: ["range": MoodHistoryRange.options.map(\.id)]),
          ScreenDeclaration(
            MoodEntriesCoordinator.editScreenID,
            elements: ["score", "labels", "associations", "notes", "save"],
            alerts: [AlertDeclaration(MoodEntriesCoordinator.errorAlertID, buttons: ["ok"])],
            textFields: ["notes"],
            options: [
              "labels": MoodLabel.allCases.map(\.rawValue),
              "associations": MoodAssociation.allCases.map(\.rawValue),
            ]),
        ],
        // One saved mood, so the list has an entry to edit and delete.
        sampleData: { environment in
          _ = try await environment.saveMood.save(SaveMoodRequest(score: 7, notes: "sample"))
        },
        make: { context in
          MoodEntriesCoordinator(
            entries: context.environment.moodEntries, clock: context.environment.clock, work: context.work)
        }))

    for query in queries { try registry.register(query) }
  }

  private static func latest(_ env: HostEnvironment) async throws -> MoodEntry? {
    try await env.moodHistory.latest()
  }

  private static func user(_ env: HostEnvironment) throws -> String {
    guard let userID = env.userID else { throw MoodError.userNotAuthenticated }
    return userID
  }

  static let queries: [QueryDefinition] = [
    QueryDefinition("mood.count", type: .number, summary: "mood entries of the user") { env in
      .number(Double(try await env.moodHistory.count()))
    },
    QueryDefinition("mood.latest.score", type: .number, summary: "score of the latest entry") { env in
      try await latest(env).map { .number(Double($0.score)) } ?? .none
    },
    QueryDefinition("mood.latest.valence", type: .number, summary: "valence of the latest entry") { env in
      try await latest(env).map { .number($0.valence) } ?? .none
    },
    QueryDefinition("mood.latest.emotion", type: .text, summary: "first label of the latest entry") { env in
      try await latest(env)?.emotion.map { .text($0.rawValue) } ?? .none
    },
    QueryDefinition("mood.latest.labels", type: .list, summary: "labels of the latest entry") { env in
      try await latest(env).map { .list($0.labels.map(\.rawValue)) } ?? .none
    },
    QueryDefinition("mood.latest.associations", type: .list, summary: "associations of the latest entry") {
      env in
      try await latest(env).map { .list($0.associations.map(\.rawValue)) } ?? .none
    },
    QueryDefinition("mood.latest.notes", type: .text, summary: "notes of the latest entry", isFreeText: true)
    { env in
      try await latest(env)?.notes.map(QueryValue.text) ?? .none
    },
    QueryDefinition("mood.latest.kind", type: .text, summary: "dailyMood or momentaryEmotion") { env in
      try await latest(env).map { .text($0.kind.rawValue) } ?? .none
    },
    QueryDefinition("mood.average.7d", type: .number, summary: "average score of the last 7 days") { env in
      try await env.moodHistory.statistics(in: .week).average.map(QueryValue.number) ?? .none
    },
    QueryDefinition(
      "mood.streak", type: .number, summary: "consecutive days with a mood, ending today or yesterday"
    ) {
      env in .number(Double(try await env.moodHistory.statistics(in: .week).streak))
    },
    QueryDefinition("health.count", type: .number, summary: "samples in the state-of-mind store") { env in
      .number(Double(try await env.services[StateOfMindStoreKey.self].count(userID: try user(env))))
    },
    QueryDefinition("outbox.pending", type: .number, summary: "changes waiting to be sent") { env in
      .number(Double(try await env.services[OutboxKey.self].pendingCount(userID: try user(env))))
    },
    QueryDefinition("outbox.failed", type: .number, summary: "changes the backend refused") { env in
      .number(Double(try await env.services[OutboxKey.self].failedCount(userID: try user(env))))
    },
  ]
}
