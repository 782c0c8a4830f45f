import FlowKit
import Foundation
import Storage
import Testing
import WellflowComposition

/// A fresh folder for a database, removed when the test is done.
final class TemporaryDirectory {
  let url = FileManager.default.temporaryDirectory.appendingPathComponent(
    "wellflow-storage-tests-\(UUID().uuidString)")
  deinit { try? FileManager.default.removeItem(at: url) }
}

@Suite("SQLite key-value store")
struct KeyValueStoreTests {
  @Test func setGetAndDelete() throws {
    let store = SQLiteKeyValueStore(database: try .inMemory(schema: WellflowFeatures.schema), userID: "alice")
    #expect(try store.string(forKey: "greeting") == nil)
    try store.set("hello", forKey: "greeting")
    #expect(try store.string(forKey: "greeting") == "hello")
    try store.set("hello again", forKey: "greeting")
    #expect(try store.string(forKey: "greeting") == "hello again")
    try store.set(nil, forKey: "greeting")
    #expect(try store.string(forKey: "greeting") == nil)
  }

  @Test func flagsRoundTrip() throws {
    let store = SQLiteKeyValueStore(database: try .inMemory(schema: WellflowFeatures.schema), userID: "alice")
    #expect(try store.bool(forKey: "onboarding.completed") == false)
    try store.set(true, forKey: "onboarding.completed")
    #expect(try store.bool(forKey: "onboarding.completed"))
    try store.set(false, forKey: "onboarding.completed")
    #expect(try store.bool(forKey: "onboarding.completed") == false)
  }

  @Test func keysAreSeparate() throws {
    let store = SQLiteKeyValueStore(database: try .inMemory(schema: WellflowFeatures.schema), userID: "alice")
    try store.set("a", forKey: "one")
    try store.set("b", forKey: "two")
    try store.set(nil, forKey: "one")
    #expect(try store.string(forKey: "one") == nil)
    #expect(try store.string(forKey: "two") == "b")
  }

  @Test func eachUserSeesOnlyTheirOwnValues() throws {
    let database = try WellflowDatabase.inMemory(schema: WellflowFeatures.schema)
    let alice = SQLiteKeyValueStore(database: database, userID: "alice")
    let bob = SQLiteKeyValueStore(database: database, userID: "bob")
    try alice.set("experienced", forKey: "onboarding.skill")
    #expect(try bob.string(forKey: "onboarding.skill") == nil)
    try bob.set("beginner", forKey: "onboarding.skill")
    #expect(try alice.string(forKey: "onboarding.skill") == "experienced")
    try bob.set(nil, forKey: "onboarding.skill")
    #expect(
      try alice.string(forKey: "onboarding.skill") == "experienced", "bob's delete leaves alice's value")
  }

  @Test func valuesPersistAcrossReopening() throws {
    let directory = TemporaryDirectory()
    do {
      let database = try WellflowDatabase.open(directory: directory.url, schema: WellflowFeatures.schema)
      try SQLiteKeyValueStore(database: database, userID: "alice").set("true", forKey: "onboarding.completed")
      try SQLiteKeyValueStore(database: database, userID: "bob").set("x", forKey: "other")
    }
    let file = directory.url.appendingPathComponent(WellflowDatabase.fileName)
    #expect(FileManager.default.fileExists(atPath: file.path))
    let reopened = try WellflowDatabase.open(directory: directory.url, schema: WellflowFeatures.schema)
    #expect(try SQLiteKeyValueStore(database: reopened, userID: "alice").bool(forKey: "onboarding.completed"))
    #expect(try SQLiteKeyValueStore(database: reopened, userID: "alice").string(forKey: "other") == nil)
    #expect(try SQLiteKeyValueStore(database: reopened, userID: "bob").string(forKey: "other") == "x")
  }

  @Test func openCreatesAMissingDirectory() throws {
    let directory = TemporaryDirectory()
    let nested = directory.url.appendingPathComponent("a/b")
    let database = try WellflowDatabase.open(directory: nested, schema: WellflowFeatures.schema)
    try SQLiteKeyValueStore(database: database, userID: "u").set("v", forKey: "k")
    #expect(
      FileManager.default.fileExists(atPath: nested.appendingPathComponent(WellflowDatabase.fileName).path))
  }

  @Test func migrationsAreIdempotentOnReopen() throws {
    let directory = TemporaryDirectory()
    let first = try WellflowDatabase.open(directory: directory.url, schema: WellflowFeatures.schema)
    let applied = try first.writer.read { try WellflowFeatures.schema.migrator().appliedIdentifiers($0) }
    #expect(
      Set(applied) == [
        "v1_progressEntries", "v2_moodEntries", "v3_healthSamplesOwed", "keyValues", "journalEntries",
        "journalEntriesFinished", "moodEntriesByBackendID", "outboxWithoutSyncedRows",
        "v4_moodEntryDeletions", "moodEntriesWithoutChildTables", "moodEntriesListedFromIndex", "moodHours",
        "deliveredNotifications", "outbox",
      ])
    try SQLiteKeyValueStore(database: first, userID: "alice").set("kept", forKey: "k")

    for _ in 0..<2 {
      let again = try WellflowDatabase.open(directory: directory.url, schema: WellflowFeatures.schema)
      let (reapplied, complete) = try again.writer.read { db in
        (
          try WellflowFeatures.schema.migrator().appliedIdentifiers(db),
          try WellflowFeatures.schema.migrator().hasCompletedMigrations(db)
        )
      }
      #expect(reapplied == applied)
      #expect(complete)
      #expect(try SQLiteKeyValueStore(database: again, userID: "alice").string(forKey: "k") == "kept")
    }
  }

  @Test func theDatabaseFileUsesWAL() throws {
    let directory = TemporaryDirectory()
    let database = try WellflowDatabase.open(directory: directory.url, schema: WellflowFeatures.schema)
    try SQLiteKeyValueStore(database: database, userID: "u").set("v", forKey: "k")
    let wal = directory.url.appendingPathComponent(WellflowDatabase.fileName + "-wal")
    #expect(FileManager.default.fileExists(atPath: wal.path))
  }
}
