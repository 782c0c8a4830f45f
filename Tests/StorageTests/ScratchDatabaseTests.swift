import GRDB
import Storage
import Testing

@Suite("Scratch databases")
struct ScratchDatabaseTests {
  @Test func aScratchDatabaseHasEveryMigrationAndIsItsOwn() throws {
    let first = try WellflowDatabase.scratch()
    let second = try WellflowDatabase.scratch()
    let applied = try first.writer.read { try WellflowDatabase.migrator().appliedIdentifiers($0) }
    let known = WellflowDatabase.migrator().migrations
    #expect(applied.sorted() == known.sorted())
    #expect(try first.writer.read { try WellflowDatabase.migrator().hasCompletedMigrations($0) })
    try SQLiteKeyValueStore(database: first, userID: "alice").set("yes", forKey: "k")
    #expect(try SQLiteKeyValueStore(database: first, userID: "alice").string(forKey: "k") == "yes")
    #expect(try SQLiteKeyValueStore(database: second, userID: "alice").string(forKey: "k") == nil)
    #expect(
      try SQLiteKeyValueStore(database: WellflowDatabase.scratch(), userID: "alice").string(forKey: "k")
        == nil)
  }
}
