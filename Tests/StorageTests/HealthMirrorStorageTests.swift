import FlowKit
import Foundation
import GRDB
import MoodTracking
import MoodTrackingTesting
import Storage
import Testing
import WellflowComposition

@testable import MoodTrackingSQLite

/// A health store that fails every write, standing in for a process that died between
/// the entry's transaction and the sample's.
struct LostStateOfMindStore: StateOfMindStore {
  struct Died: Error {}
  func save(_ sample: StateOfMindSample, userID: String) async throws { throw Died() }
  func samples(userID: String, in interval: DateInterval) async throws -> [StateOfMindSample] { [] }
  func count(userID: String) async throws -> Int { 0 }
  func delete(id: UUID, userID: String) async throws { throw Died() }
}

/// The health mirror survives a crash between the entry and its sample: the entry's
/// transaction notes the sample owed, and opening the store writes it.
@Suite struct HealthMirrorStorageTests {
  func saveLosingTheMirror(_ fixture: SQLiteMoodFixture, score: Int, kind: MoodKind = .dailyMood) async throws
    -> MoodEntry
  {
    let save = SaveMoodUseCase(
      repository: fixture.repository, clock: fixture.clock, healthStore: LostStateOfMindStore(),
      currentUser: { "alice" })
    return try await save.save(SaveMoodRequest(score: score, kind: kind)).entry
  }

  @Test func aLostMirrorIsWrittenWhenTheStoreOpens() async throws {
    let fixture = try SQLiteMoodFixture()
    let daily = try await saveLosingTheMirror(fixture, score: 8)
    let moment = try await saveLosingTheMirror(fixture, score: 2, kind: .momentaryEmotion)
    #expect(try fixture.count("SELECT COUNT(*) FROM state_of_mind_samples") == 0)
    #expect(try fixture.count("SELECT COUNT(*) FROM health_samples_owed") == 2)

    // Relaunch: the app opens its store again.
    let reopened = SQLiteStateOfMindStore(writer: fixture.db)
    #expect(try await reopened.count(userID: "alice") == 2)
    let samples = try await reopened.samples(
      userID: "alice", in: DateInterval(start: .distantPast, end: .distantFuture))
    #expect(
      Set(samples) == [StateOfMindSample(mirroring: daily), StateOfMindSample(mirroring: moment)])
    #expect(try fixture.count("SELECT COUNT(*) FROM health_samples_owed") == 0)
    #expect(try reopened.repairOwedSamples() == 0)
  }

  @Test func aMirroredSaveLeavesNothingOwed() async throws {
    let fixture = try SQLiteMoodFixture()
    let entry = try await fixture.log(6).entry
    #expect(try fixture.count("SELECT COUNT(*) FROM health_samples_owed") == 0)
    #expect(try await fixture.healthStore.count(userID: "alice") == 1)
    fixture.clock.advance(by: 60)
    try await fixture.log(9)
    #expect(try fixture.count("SELECT COUNT(*) FROM health_samples_owed") == 0)
    let sample = try #require(
      try await fixture.healthStore.samples(
        userID: "alice", in: DateInterval(start: .distantPast, end: .distantFuture)
      ).first)
    let nine = try MoodTranslation.valence(forScore: 9)
    #expect(sample.id == entry.id && sample.valence == nine)
  }

  @Test func anOlderSampleWriteDoesNotClearANewerSavesNote() async throws {
    let fixture = try SQLiteMoodFixture()
    let first = try await saveLosingTheMirror(fixture, score: 3)
    fixture.clock.advance(by: 60)
    let second = try await saveLosingTheMirror(fixture, score: 7)
    // The first version's sample arrives late: the second is still owed.
    try await fixture.healthStore.save(StateOfMindSample(mirroring: first), userID: "alice")
    #expect(try fixture.count("SELECT COUNT(*) FROM health_samples_owed") == 1)
    #expect(try fixture.healthStore.repairOwedSamples() == 1)
    let samples = try await fixture.healthStore.samples(
      userID: "alice", in: DateInterval(start: .distantPast, end: .distantFuture))
    #expect(samples == [StateOfMindSample(mirroring: second)])
  }

  @Test func theRepairKeepsANewerSample() async throws {
    let fixture = try SQLiteMoodFixture()
    let entry = try await saveLosingTheMirror(fixture, score: 3)
    let newerUpdate = entry.updatedAt.addingTimeInterval(600)
    // Written straight to the table, as another writer of the health data would.
    try await fixture.db.write { db in
      try db.execute(
        sql: """
          INSERT INTO state_of_mind_samples (id, user_id, date, kind, valence, labels, associations, updated_at)
          VALUES (?, 'alice', ?, 'dailyMood', 0.5, '', '', ?)
          """,
        arguments: [
          entry.id.uuidString, entry.date.timeIntervalSince1970, newerUpdate.timeIntervalSince1970,
        ])
    }
    #expect(try fixture.healthStore.repairOwedSamples() == 1)
    let stored = try await fixture.healthStore.samples(
      userID: "alice", in: DateInterval(start: .distantPast, end: .distantFuture))
    #expect(stored.map(\.valence) == [0.5])
    #expect(try fixture.count("SELECT COUNT(*) FROM health_samples_owed") == 0)
  }

  @Test func theRepairUseCaseServesStoresOutsideTheDatabase() async throws {
    // HealthKit cannot join the entry's transaction: the use case repairs through the ports.
    let fixture = try SQLiteMoodFixture()
    let entry = try await saveLosingTheMirror(fixture, score: 5)
    let healthKit = InMemoryStateOfMindStore()
    let save = SaveMoodUseCase(
      repository: fixture.repository, clock: fixture.clock, healthStore: healthKit, currentUser: { "alice" })
    #expect(try await save.repairHealthMirror() == 1)
    #expect(healthKit.sample(id: entry.id, userID: "alice") == StateOfMindSample(mirroring: entry))
    #expect(try await fixture.repository.entriesAwaitingHealthSample(userID: "alice", limit: 10).isEmpty)
  }

  @Test func aFileDatabaseRepairsOnReopen() async throws {
    let directory = TemporaryDirectory()
    let clock = ManualClock(now: moment("2026-01-05T09:00"), timeZone: TimeZone(identifier: "UTC")!)
    var entry: MoodEntry?
    do {
      let database = try WellflowDatabase.open(directory: directory.url, schema: WellflowFeatures.schema)
      let save = SaveMoodUseCase(
        repository: SQLiteMoodRepository(writer: database.writer), clock: clock,
        healthStore: LostStateOfMindStore(), currentUser: { "alice" })
      entry = try await save.save(SaveMoodRequest(score: 9)).entry
    }
    let database = try WellflowDatabase.open(directory: directory.url, schema: WellflowFeatures.schema)
    let store = SQLiteStateOfMindStore(writer: database.writer)
    let samples = try await store.samples(
      userID: "alice", in: DateInterval(start: .distantPast, end: .distantFuture))
    #expect(samples == [StateOfMindSample(mirroring: try #require(entry))])
  }
}

@Suite struct HealthSamplesOwedMigrationTests {
  @Test func aDatabaseMigratedBeforeTheNotesGetsTheirTableOnOpen() async throws {
    let directory = TemporaryDirectory()
    // The previous version's database: every other migration applied, not this one,
    // and one of two samples lost to a crash between an entry and its sample.
    var lost: MoodEntry?
    do {
      let database = try WellflowDatabase.open(directory: directory.url, schema: WellflowFeatures.schema)
      let fixture = try SQLiteMoodFixture(db: database.writer)
      try await fixture.log(4)
      let entry = try await fixture.log(6, kind: .momentaryEmotion).entry
      lost = entry
      try await database.writer.write { db in
        try db.execute(
          sql: """
            DROP TABLE health_samples_owed;
            DELETE FROM grdb_migrations WHERE identifier = '\(MoodSchema.healthSamplesOwedMigration)';
            DELETE FROM state_of_mind_samples WHERE id = ?;
            """, arguments: [entry.id.uuidString])
      }
    }
    let database = try WellflowDatabase.open(directory: directory.url, schema: WellflowFeatures.schema)
    let complete = try await database.writer.read {
      try WellflowFeatures.schema.migrator().hasCompletedMigrations($0)
    }
    #expect(complete)
    // The migration noted the lost sample; opening the store wrote it.
    let fixture = try SQLiteMoodFixture(db: database.writer)
    #expect(try await fixture.healthStore.count(userID: "alice") == 2)
    let samples = try await fixture.healthStore.samples(
      userID: "alice", in: DateInterval(start: .distantPast, end: .distantFuture))
    #expect(samples.contains(StateOfMindSample(mirroring: try #require(lost))))
    try await fixture.log(9, kind: .momentaryEmotion)
    #expect(try await fixture.healthStore.count(userID: "alice") == 3)
  }
}
