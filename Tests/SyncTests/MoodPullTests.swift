import FlowKit
import Foundation
import MoodTracking
import MoodTrackingSQLite
import MoodTrackingSync
import MoodTrackingTesting
import Storage
import Sync
import SyncHTTPClient
import Testing

/// Entries another device sent arrive here once, with source `backend`.
@Suite struct MoodPullTests {
  @Test func entriesFromAnotherDeviceArriveOnceAndOwnRowsAreNotDuplicated() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let (database, directory) = try makeAppDatabase()
    defer { try? FileManager.default.removeItem(at: directory) }
    let clock = testClock()
    let repository = SQLiteMoodRepository(writer: database.writer)
    let outbox = SQLiteOutbox(database: database)
    let api = backend.client("alice")

    // This device's own entry, synced.
    let own = try await seedMoods(repository, user: "alice", count: 1, clock: clock)
    #expect(
      try await OutboxProcessor(outbox: outbox, api: api, clock: clock).run(userID: "alice").synced == 1)
    // Another device's two entries (one without a client id), and bob's, which alice never sees.
    let other = try await api.createProgress(
      body: progressBody(
        quantity: 8, loggedAt: "2026-02-28T19:30:00Z", notes: "dinner with friends",
        entryID: UUID().uuidString),
      idempotencyKey: nil)
    _ = try await api.createProgress(
      body: progressBody(quantity: 3, loggedAt: "2026-02-27"), idempotencyKey: nil)
    _ = try await backend.client("bob").createProgress(body: progressBody(quantity: 1), idempotencyKey: nil)

    let pull = MoodPull(api: api, repository: repository, clock: clock)
    #expect(try await pull.run(userID: "alice").imported == 2)
    #expect(try await repository.count(userID: "alice") == 3)
    #expect(try await repository.count(userID: "bob") == 0)
    let pulled = try await repository.entries(
      userID: "alice", in: DateInterval(start: clock.now.addingTimeInterval(-7 * 86_400), end: clock.now)
    )
    .filter { $0.source == .backend }
    #expect(pulled.count == 2)
    let dinner = try #require(pulled.first { $0.backendID == other.id })
    #expect(dinner.score == 8 && dinner.notes == "dinner with friends")
    #expect(dinner.date == ISO8601DateFormatter().date(from: "2026-02-28T19:30:00Z"))
    #expect(dinner.day.description == "2026-02-28")
    #expect(dinner.syncStatus == .synced)
    #expect(dinner.labels == [.happy, .confident])
    let dateOnly = try #require(pulled.first { $0.backendID != other.id })
    #expect(dateOnly.day.description == "2026-02-27" && dateOnly.score == 3)
    // Pulled entries are not sent back.
    #expect(try await outbox.pendingCount(userID: "alice") == 0)
    // Pulling again brings nothing new.
    #expect(try await pull.run(userID: "alice").imported == 0)
    #expect(try await repository.count(userID: "alice") == 3)
    #expect(try await repository.entry(id: own[0].id, userID: "alice")?.source == .userEntry)
  }

  @Test func pagesArePulledUntilTheTotal() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let api = backend.client("alice")
    for index in 0..<230 {
      _ = try await api.createProgress(
        body: progressBody(quantity: Double(index % 10 + 1), loggedAt: "2025-06-01T10:00:00Z"),
        idempotencyKey: nil)
    }
    let repository = InMemoryMoodRepository()
    let pull = MoodPull(api: api, repository: repository, clock: testClock())
    #expect(try await pull.run(userID: "alice").imported == 230)
    // One daily mood for the day; the rest are moments of it.
    let all = repository.entries(userID: "alice", in: DateInterval(start: .distantPast, end: .distantFuture))
    #expect(all.filter { $0.kind == .dailyMood }.count == 1)
    #expect(try await pull.run(userID: "alice").imported == 0)
  }

  @Test func entriesBefore1970ComeBackToAFreshInstall() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let tokyo = TimeZone(identifier: "Asia/Tokyo")!
    // A script starting 1970-01-01T00:30 in Tokyo: 1969-12-31T15:30Z.
    let clock = ManualClock(now: Date(timeIntervalSince1970: -30_600), timeZone: tokyo)
    let (database, directory) = try makeAppDatabase()
    defer { try? FileManager.default.removeItem(at: directory) }
    let repository = SQLiteMoodRepository(writer: database.writer)
    let dates = [
      clock.now,
      clock.now.addingTimeInterval(-86_400),  // backdated a day: 1969-12-31 in Tokyo
      Date(timeIntervalSince1970: -2_195_942_400),  // 1900-06-01T00:00Z
    ]
    var saved: [MoodEntry] = []
    for (index, date) in dates.enumerated() {
      let entry = MoodEntry(
        id: UUID(), userID: "alice", date: date, day: MoodDay(date, in: clock.calendar), score: index + 4,
        valence: try MoodTranslation.valence(forScore: index + 4),
        labels: try MoodTranslation.labels(forScore: index + 4, notes: nil), kind: .momentaryEmotion,
        createdAt: date, updatedAt: date)
      try await repository.save([(entry, .mood(entry, operation: .create, id: UUID(), now: date))])
      saved.append(entry)
    }
    let push = try await OutboxProcessor(
      outbox: SQLiteOutbox(database: database), api: backend.client("alice"), clock: clock
    ).run(userID: "alice")
    #expect(push.synced == 3)
    #expect(try await backend.client("alice").listProgress(ListQuery()).total == 3)

    // A fresh install, today, in Tokyo.
    let (fresh, freshDirectory) = try makeAppDatabase()
    defer { try? FileManager.default.removeItem(at: freshDirectory) }
    let freshRepository = SQLiteMoodRepository(writer: fresh.writer)
    struct Connector: BackendConnector {
      let client: ProgressAPIClient
      func api(for userID: String) async throws -> any ProgressAPI { client }
    }
    let today = ManualClock(now: testClock().now, timeZone: tokyo)
    let result = try await SyncService(
      connector: Connector(client: backend.client("alice")), outbox: SQLiteOutbox(database: fresh),
      moods: freshRepository, clock: today, connectivity: NetworkSwitch()
    ).sync(userID: "alice")
    #expect(result.pulled == 3 && result.pullSkippedCount == 0, "\(result.pullSkipped)")
    let pulled = try await freshRepository.entries(
      userID: "alice", in: DateInterval(start: .distantPast, end: .distantFuture))
    #expect(pulled.map(\.id) == saved.reversed().map(\.id))
    #expect(pulled.map(\.date) == dates.reversed())
    #expect(pulled.map(\.day.description) == ["1900-06-01", "1969-12-31", "1970-01-01"])
    #expect(pulled.map(\.score) == [6, 5, 4])
  }

  @Test func syncPushesThenPullsAndDoesNothingOffline() async throws {
    let backend = try await TestBackend.start()
    defer { Task { await backend.stop() } }
    let clock = testClock()
    let repository = InMemoryMoodRepository()
    let entry = MoodEntry(
      id: UUID(), userID: "alice", date: clock.now, day: MoodDay(clock.now, in: clock.calendar), score: 6,
      valence: try MoodTranslation.valence(forScore: 6), labels: [.content], createdAt: clock.now,
      updatedAt: clock.now)
    try repository.save(entry, outbox: .mood(entry, operation: .create, id: UUID(), now: clock.now))
    _ = try await backend.client("alice").createProgress(
      body: progressBody(loggedAt: "2026-02-01"), idempotencyKey: nil)
    struct Connector: BackendConnector {
      let client: ProgressAPIClient
      func api(for userID: String) async throws -> any ProgressAPI { client }
    }
    let network = NetworkSwitch(isOnline: false)
    let service = SyncService(
      connector: Connector(client: backend.client("alice")), outbox: repository.outbox, moods: repository,
      clock: clock, connectivity: network)
    var result = try await service.sync(userID: "alice")
    #expect(result.push.stop == .offline && result.push.untried == 1 && result.pulled == 0)
    #expect(try await service.backendCount("progress", userID: "alice") == 1)
    network.set(online: true)
    result = try await service.sync(userID: "alice")
    #expect(result.push.synced == 1 && result.pulled == 1)
    #expect(try await service.backendCount("progress", userID: "alice") == 2)
    #expect(try await service.backendCount("journal", userID: "alice") == 0)
  }
}
