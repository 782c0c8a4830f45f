import FlowKit
import Foundation
import MoodTracking
import MoodTrackingTesting
import Testing

@Suite struct HealthMirrorTests {
  @Test func savingAUserEntryMirrorsItToTheStore() async throws {
    let fixture = MoodFixture()
    let entry = try await fixture.log(8, notes: "private").entry
    let sample = try #require(fixture.healthStore.sample(id: entry.id, userID: "alice"))
    #expect(sample == StateOfMindSample(mirroring: entry))
    #expect(sample.labels == [.happy, .confident])
    #expect(sample.kind == .dailyMood)
    // Updates mirror too; the sample keeps the entry's id.
    fixture.clock.advance(by: 60)
    try await fixture.log(9)
    #expect(fixture.healthStore.count(userID: "alice") == 1)
    #expect(fixture.healthStore.sample(id: entry.id, userID: "alice")?.labels == [.excited, .grateful])
  }

  @Test func importCreatesEntriesForNewSamplesOnlyOnce() async throws {
    let fixture = MoodFixture(now: "2026-01-10T12:00")
    let sample = StateOfMindSample(
      id: UUID(), date: moment("2026-01-09T18:00"), kind: .momentaryEmotion, valence: 0.6,
      labels: [.grateful], associations: [.family], updatedAt: moment("2026-01-09T18:00"))
    fixture.healthStore.save(sample, userID: "alice")
    let first = try await fixture.importer.importSamples(in: .week)
    #expect(first == .init(created: 1, updated: 0, unchanged: 0))
    let entry = try #require(fixture.repository.entry(id: sample.id, userID: "alice"))
    #expect(entry.source == .healthStore)
    #expect(entry.valence == 0.6)
    #expect(entry.score == 8)  // base 8 from 0.6, not raised: grateful only lifts a base below 8
    #expect(entry.associations == [.family])
    let second = try await fixture.importer.importSamples(in: .week)
    #expect(second == .init(created: 0, updated: 0, unchanged: 1))
    #expect(fixture.repository.count(userID: "alice") == 1)
    #expect(fixture.outbox.all.count == 1)
  }

  @Test func mirroredEntriesAreNotImportedBack() async throws {
    let fixture = MoodFixture()
    try await fixture.log(4)
    try await fixture.log(6, kind: .momentaryEmotion)
    let summary = try await fixture.importer.importSamples(in: .week)
    #expect(summary == .init(created: 0, updated: 0, unchanged: 2))
    #expect(fixture.repository.count(userID: "alice") == 2)
  }

  @Test func aNewerSampleWinsAConflict() async throws {
    let fixture = MoodFixture(now: "2026-01-10T09:00")
    var sample = StateOfMindSample(mirroring: try await fixture.log(7).entry)
    sample.valence = -0.6
    sample.labels = [.hopeless]
    sample.updatedAt = moment("2026-01-10T10:00")
    fixture.healthStore.save(sample, userID: "alice")
    fixture.clock.advance(by: 7_200)
    #expect(
      try await fixture.importer.importSamples(in: .week) == .init(created: 0, updated: 1, unchanged: 0))
    let entry = try #require(fixture.repository.entry(id: sample.id, userID: "alice"))
    #expect(entry.score == 3)  // base 3 from -0.6, not lowered: hopeless only lowers a base above 3
    #expect(entry.labels == [.hopeless])
    #expect(entry.updatedAt == moment("2026-01-10T10:00"))
    #expect(
      try await fixture.importer.importSamples(in: .week) == .init(created: 0, updated: 0, unchanged: 1))
  }

  @Test func aNewerEntryWinsAConflictAndIsMirroredAgain() async throws {
    let fixture = MoodFixture(now: "2026-01-10T09:00")
    let entry = try await fixture.log(7).entry
    var stale = StateOfMindSample(mirroring: entry)
    stale.valence = -1
    stale.updatedAt = moment("2026-01-10T08:00")
    fixture.healthStore.save(stale, userID: "alice")
    #expect(
      try await fixture.importer.importSamples(in: .week) == .init(created: 0, updated: 0, unchanged: 1))
    #expect(fixture.repository.entry(id: entry.id, userID: "alice")?.score == 7)
    #expect(fixture.healthStore.sample(id: entry.id, userID: "alice") == StateOfMindSample(mirroring: entry))
  }

  @Test func aDailyMoodSampleForADayWithADailyMoodResolvesByRecency() async throws {
    let fixture = MoodFixture(now: "2026-01-10T09:00")
    let entry = try await fixture.log(5).entry
    let older = StateOfMindSample(
      id: UUID(), date: moment("2026-01-10T07:00"), kind: .dailyMood, valence: 1, labels: [],
      associations: [], updatedAt: moment("2026-01-10T07:00"))
    fixture.healthStore.save(older, userID: "alice")
    #expect(
      try await fixture.importer.importSamples(in: .week) == .init(created: 0, updated: 0, unchanged: 2))
    let newer = StateOfMindSample(
      id: UUID(), date: moment("2026-01-10T11:00"), kind: .dailyMood, valence: 1, labels: [.joyful],
      associations: [], updatedAt: moment("2026-01-10T11:00"))
    fixture.healthStore.save(newer, userID: "alice")
    fixture.clock.advance(by: 3 * 3_600)
    #expect(
      try await fixture.importer.importSamples(in: .week) == .init(created: 0, updated: 1, unchanged: 2))
    let daily = try #require(try await fixture.history.todaysDailyMood())
    #expect(daily.id == entry.id)
    #expect(daily.score == 10)
    #expect(daily.labels == [.joyful])
    #expect(fixture.repository.count(userID: "alice") == 1)
    #expect(try await fixture.importer.importSamples(in: .week).updated == 0)
  }

  @Test func importIsScopedToTheUser() async throws {
    let fixture = MoodFixture()
    try await fixture.log(5)
    fixture.signIn("bob")
    #expect(try await fixture.importer.importSamples(in: .week) == .init())
    #expect(try await fixture.history.count() == 0)
  }

  @Test func aSampleWithAnInvalidValenceIsRefused() async throws {
    let fixture = MoodFixture()
    let sample = StateOfMindSample(
      id: UUID(), date: fixture.clock.now, kind: .momentaryEmotion, valence: .nan, labels: [],
      associations: [],
      updatedAt: fixture.clock.now)
    await #expect {
      try await fixture.save.save(sample: sample)
    } throws: { error in
      guard case .invalidValence = error as? MoodError else { return false }
      return true
    }
  }
}

/// A health store that refuses writes while `failing`, as if the process died
/// between the entry's save and its sample's.
final class FlakyStateOfMindStore: StateOfMindStore {
  struct Down: Error {}
  let inner = InMemoryStateOfMindStore()
  let failing = Locked(true)

  func save(_ sample: StateOfMindSample, userID: String) async throws {
    if failing.current { throw Down() }
    inner.save(sample, userID: userID)
  }

  func samples(userID: String, in interval: DateInterval) async throws -> [StateOfMindSample] {
    inner.samples(userID: userID, in: interval)
  }

  func count(userID: String) async throws -> Int { inner.count(userID: userID) }

  func delete(id: UUID, userID: String) async throws {
    if failing.current { throw Down() }
    inner.delete(id: id, userID: userID)
  }
}

@Suite struct HealthMirrorRepairTests {
  let clock = ManualClock(now: moment("2026-01-05T09:00"), timeZone: TimeZone(identifier: "UTC")!)
  let repository = InMemoryMoodRepository()
  let store = FlakyStateOfMindStore()

  var save: SaveMoodUseCase {
    SaveMoodUseCase(repository: repository, clock: clock, healthStore: store, currentUser: { "alice" })
  }

  @Test func aMirrorThatNeverHappenedIsWrittenByTheRepair() async throws {
    let entry = try await save.save(SaveMoodRequest(score: 8, notes: "good day")).entry
    let moment = try await save.save(SaveMoodRequest(score: 3, kind: .momentaryEmotion)).entry
    // Local first: both saved, neither mirrored, both owed.
    #expect(repository.count(userID: "alice") == 2)
    #expect(store.inner.count(userID: "alice") == 0)
    #expect(
      Set(repository.entriesAwaitingHealthSample(userID: "alice", limit: 10).map(\.id)) == [
        entry.id, moment.id,
      ])

    store.failing.withLock { $0 = false }
    #expect(try await save.repairHealthMirror() == 2)
    #expect(store.inner.sample(id: entry.id, userID: "alice") == StateOfMindSample(mirroring: entry))
    #expect(store.inner.sample(id: moment.id, userID: "alice") == StateOfMindSample(mirroring: moment))
    #expect(repository.entriesAwaitingHealthSample(userID: "alice", limit: 10).isEmpty)
    #expect(try await save.repairHealthMirror() == 0)
  }

  @Test func theRepairWritesTheEntryAsItIsNow() async throws {
    let first = try await save.save(SaveMoodRequest(score: 4)).entry
    clock.advance(by: 60)
    let updated = try await save.save(SaveMoodRequest(score: 9)).entry
    #expect(updated.id == first.id)
    store.failing.withLock { $0 = false }
    #expect(try await save.repairHealthMirror() == 1)
    #expect(store.inner.sample(id: first.id, userID: "alice") == StateOfMindSample(mirroring: updated))
  }

  @Test func aNewerSampleInTheStoreIsNotOverwritten() async throws {
    let entry = try await save.save(SaveMoodRequest(score: 4)).entry
    var newer = StateOfMindSample(mirroring: entry)
    newer.valence = 0.9
    newer.updatedAt = entry.updatedAt.addingTimeInterval(30)
    store.inner.save(newer, userID: "alice")
    store.failing.withLock { $0 = false }
    #expect(try await save.repairHealthMirror() == 0)
    #expect(store.inner.sample(id: entry.id, userID: "alice") == newer)
    #expect(repository.entriesAwaitingHealthSample(userID: "alice", limit: 10).isEmpty)
  }

  @Test func withoutAHealthStoreNothingIsOwed() async throws {
    let save = SaveMoodUseCase(repository: repository, clock: clock, currentUser: { "alice" })
    _ = try await save.save(SaveMoodRequest(score: 6))
    #expect(repository.entriesAwaitingHealthSample(userID: "alice", limit: 10).isEmpty)
    #expect(try await save.repairHealthMirror() == 0)
  }

  @Test func aSavedMirrorStillLeavesItsNoteForTheRepairToConfirm() async throws {
    store.failing.withLock { $0 = false }
    let entry = try await save.save(SaveMoodRequest(score: 7)).entry
    #expect(store.inner.sample(id: entry.id, userID: "alice") == StateOfMindSample(mirroring: entry))
    // Generic stores cannot drop the note in the sample's write; the repair does,
    // reading the sample and writing nothing.
    #expect(repository.entriesAwaitingHealthSample(userID: "alice", limit: 10).map(\.id) == [entry.id])
    #expect(try await save.repairHealthMirror() == 0)
    #expect(repository.entriesAwaitingHealthSample(userID: "alice", limit: 10).isEmpty)
  }
}
