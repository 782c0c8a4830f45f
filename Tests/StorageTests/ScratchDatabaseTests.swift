import GRDB
import Storage
import Testing
import WellflowComposition

@Suite("Scratch databases")
struct ScratchDatabaseTests {
  @Test func aScratchDatabaseHasEveryMigrationAndIsItsOwn() throws {
    let first = try WellflowDatabase.scratch(schema: WellflowFeatures.schema)
    let second = try WellflowDatabase.scratch(schema: WellflowFeatures.schema)
    let applied = try first.writer.read { try WellflowFeatures.schema.migrator().appliedIdentifiers($0) }
    let known = WellflowFeatures.schema.migrator().migrations
    #expect(applied.sorted() == known.sorted())
    #expect(try first.writer.read { try WellflowFeatures.schema.migrator().hasCompletedMigrations($0) })
    try SQLiteKeyValueStore(database: first, userID: "alice").set("yes", forKey: "k")
    #expect(try SQLiteKeyValueStore(database: first, userID: "alice").string(forKey: "k") == "yes")
    #expect(try SQLiteKeyValueStore(database: second, userID: "alice").string(forKey: "k") == nil)
    #expect(
      try SQLiteKeyValueStore(
        database: WellflowDatabase.scratch(schema: WellflowFeatures.schema), userID: "alice"
      ).string(forKey: "k")
        == nil)
  }
}
