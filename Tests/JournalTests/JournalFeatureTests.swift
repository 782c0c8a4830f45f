import FlowKit
import FlowKitTesting
import Foundation
import Journal
import JournalTesting
import Testing

@MainActor
@Suite("Journal feature in a host")
struct JournalFeatureTests {
  private func makeHost(
    user: String? = "user-1", repository: InMemoryJournalRepository = InMemoryJournalRepository()
  ) throws -> TestHost {
    try TestHost(
      [JournalFeature.self],
      environment: TestEnvironment(userID: user).providing(JournalRepositoryKey.self, repository))
  }

  @Test func registersTheFlowItsScreenAlertsAndQueries() throws {
    var registry = FlowRegistry()
    try registry.register(JournalFeature.self)
    let flow = try #require(registry.flow("journal"))
    #expect(flow.variants == ["standard"])
    let screen = try #require(registry.declaredScreens["journal.catalog"])
    #expect(screen.elements == ["layer", "phase", "entry", "strategy", "close"])
    #expect(
      screen.alerts.map(\.id) == [
        "journal.confirmPrimary", "journal.askSecondary", "journal.confirmSecondary", "journal.askSelfCare",
        "journal.confirmStrategy", "journal.success", "journal.error",
      ])
    #expect(
      registry.queries.map(\.id) == [
        "journal.count", "journal.latest.primary", "journal.latest.secondary", "journal.latest.strategy",
      ])
    #expect(registry.queries.allSatisfy { $0.type == .number })
  }

  @Test func queriesAnswerZeroAndNoneWhenEmpty() async throws {
    let host = try makeHost()
    #expect(try await host.query("journal.count") == .number(0))
    #expect(try await host.query("journal.latest.primary") == QueryValue.none)
    #expect(try await host.query("journal.latest.secondary") == QueryValue.none)
    #expect(try await host.query("journal.latest.strategy") == QueryValue.none)
  }

  @Test func aRunThroughTheHostIsCountedAndReadBack() async throws {
    let repository = InMemoryJournalRepository()
    let host = try makeHost(repository: repository)
    let analytics = host.analytics
    try await host.present("journal", trigger: .notification)
    try await host.run(
      """
      select entry 2
      tap confirm
      tap accept
      select entry 1
      tap confirm
      tap accept
      select strategy 3
      tap confirm
      tap ok
      """)
    #expect(host.isIdle)
    #expect(host.latestEndings["journal"]?.outcome == .completed)
    #expect(try await host.query("journal.count") == .number(1))
    #expect(try await host.query("journal.latest.primary") == .number(2))
    #expect(try await host.query("journal.latest.secondary") == .number(1))
    #expect(try await host.query("journal.latest.strategy") == .number(3))
    #expect(repository.outbox.map(\.initiatedBy) == [.scheduled])
    let logged = try #require(analytics.events.first { $0.event == "journal_logged" })
    #expect(logged.variant == "standard")
    #expect(logged.fields["initiated_by"] == .string("scheduled"))
    #expect(analytics.events.map(\.event).suffix(2) == ["journal_logged", "flow_completed"])
  }

  @Test func queriesAreScopedToTheSignedInUser() async throws {
    let repository = InMemoryJournalRepository(entries: [
      JournalEntry(id: "a", userID: "user-2", createdAt: startDate, primary: 5, initiatedBy: .self)
    ])
    let host = try makeHost(repository: repository)
    #expect(try await host.query("journal.count") == .number(0))
    #expect(try await host.query("journal.latest.primary") == QueryValue.none)
    let signedOut = try makeHost(user: nil, repository: repository)
    #expect(try await signedOut.query("journal.count") == .number(0))
  }

  @Test func latestIsTheLatestCreatedAndOnATieTheOneSavedLast() async throws {
    let repository = InMemoryJournalRepository()
    let later = startDate.addingTimeInterval(60)
    for (id, date, primary) in [("a", later, 1), ("b", startDate, 2), ("c", later, 3)] {
      try await repository.save(
        JournalEntry(id: id, userID: "user-1", createdAt: date, primary: primary, initiatedBy: .self))
    }
    #expect(try await repository.latest(userID: "user-1")?.id == "c")
    #expect(try await repository.count(userID: "user-1") == 3)
  }

  @Test func aFlowTerminatedByTheHostEndsOnceAndIsReleased() async throws {
    let host = try makeHost()
    try await host.present("journal")
    weak let flow = host.top?.coordinator as? JournalFlowCoordinator
    #expect(flow != nil)
    try await host.send(.select("entry", ["1"]))
    host.terminate()
    await host.settle()
    #expect(host.latestEndings["journal"]?.reason == .terminated)
    #expect(flow == nil)
    try host.expectReleased()
  }
}
