import FlowKit
import Foundation
import MoodTracking
import Storage
import Testing
import WellflowComposition

@testable import MoodTrackingSQLite

/// Storage guarantees that only show with real processes (the `sync-crash-helper`).
@Suite struct CrossProcessStorageTests {
  func freshDirectory() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("wellflow-processes-\(UUID().uuidString)")
  }

  @Test func fourProcessesOpeningANewDataDirectoryAtOnceAllSucceed() async throws {
    let helper = try helperExecutable()
    for round in 0..<20 {
      let directory = freshDirectory()
      defer { try? FileManager.default.removeItem(at: directory) }
      let children = try (0..<4).map { _ in
        try ChildProcess(executable: helper, arguments: ["open-database", directory.path])
      }
      for child in children {
        let opened = try await child.waitForLine(timeout: 600) { $0 == "opened" }
        let status = child.waitUntilExit()
        #expect(opened != nil && status == 0, "round \(round): exit \(status), \(child.output)")
      }
      let database = try WellflowDatabase.open(directory: directory, schema: WellflowFeatures.schema)
      let repository = SQLiteMoodRepository(writer: database.writer)
      #expect(try await repository.count(userID: "alice") == 0)
      #expect(try await SQLiteOutbox(database: database).pendingCount(userID: "alice") == 0)
      #expect(try await SQLiteStateOfMindStore(writer: database.writer).count(userID: "alice") == 0)
    }
  }

  @Test func aProcessKilledBetweenTheEntryAndItsSampleIsRepairedOnRelaunch() async throws {
    let directory = freshDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let child = try ChildProcess(
      executable: try helperExecutable(), arguments: ["die-before-mirror", directory.path, "alice", "7"])
    #expect(child.waitUntilExit() == SIGKILL)

    let database = try WellflowDatabase.open(directory: directory, schema: WellflowFeatures.schema)
    let repository = SQLiteMoodRepository(writer: database.writer)
    #expect(try await repository.count(userID: "alice") == 1)
    let owed = try await repository.entriesAwaitingHealthSample(userID: "alice", limit: 10)
    #expect(owed.map(\.score) == [7], "the save should have noted the sample it owes")
    // Relaunch opens the store, which writes what the dead process owed.
    let store = SQLiteStateOfMindStore(writer: database.writer)
    #expect(try await store.count(userID: "alice") == 1)
    let samples = try await store.samples(
      userID: "alice", in: DateInterval(start: .distantPast, end: .distantFuture))
    #expect(samples == owed.map(StateOfMindSample.init(mirroring:)))
    #expect(try await repository.entriesAwaitingHealthSample(userID: "alice", limit: 10).isEmpty)
  }
}
