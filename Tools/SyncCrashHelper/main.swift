import FlowKit
import Foundation
import MoodTracking
import MoodTrackingSQLite
import Storage
import Sync
import SyncHTTPClient
import WellflowComposition

// A child process for the fault tests that need a real process:
//
//   sync-crash-helper DIR USER BASE_URL API_KEY TOKEN [CONCURRENCY]
//     Syncs the outbox of the database in DIR to a backend in small passes, printing
//     "synced N" after each, and "done" when nothing is pending. The SIGKILL test
//     kills it mid-way and starts it again.
//   sync-crash-helper open-database DIR
//     Opens (creating and migrating) the database in DIR, prints "opened" and exits;
//     several at once on a new DIR test that migrations are serialized.
//   sync-crash-helper die-before-mirror DIR USER SCORE
//     Saves a mood through the use case, then SIGKILLs itself inside the health
//     store's save: the entry is committed, its sample never written.
let arguments = CommandLine.arguments
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data((message + "\n").utf8))
  exit(2)
}

/// A health store whose save kills the process before writing anything.
struct DyingStateOfMindStore: StateOfMindStore {
  func save(_ sample: StateOfMindSample, userID: String) async throws {
    kill(getpid(), SIGKILL)
  }
  func samples(userID: String, in interval: DateInterval) async throws -> [StateOfMindSample] { [] }
  func count(userID: String) async throws -> Int { 0 }
  func delete(id: UUID, userID: String) async throws { kill(getpid(), SIGKILL) }
}

switch arguments.count > 1 ? arguments[1] : "" {
case "open-database":
  guard arguments.count == 3 else { fail("usage: sync-crash-helper open-database DIR") }
  do {
    _ = try WellflowDatabase.open(
      directory: URL(fileURLWithPath: arguments[2]), schema: WellflowFeatures.schema)
    say("opened")
  } catch {
    say("failed \(error)")
    exit(1)
  }

case "die-before-mirror":
  guard arguments.count == 5, let score = Int(arguments[4]) else {
    fail("usage: sync-crash-helper die-before-mirror DIR USER SCORE")
  }
  let database = try WellflowDatabase.open(
    directory: URL(fileURLWithPath: arguments[2]), schema: WellflowFeatures.schema)
  let userID = arguments[3]
  let save = SaveMoodUseCase(
    repository: SQLiteMoodRepository(writer: database.writer), clock: SystemClock(),
    healthStore: DyingStateOfMindStore(), currentUser: { userID })
  _ = try await save.save(SaveMoodRequest(score: score))
  fail("the health store's save did not kill the process")

default:
  guard arguments.count >= 6, let baseURL = URL(string: arguments[3]) else {
    fail("usage: sync-crash-helper DIR USER BASE_URL API_KEY TOKEN [CONCURRENCY]")
  }
  let userID = arguments[2]
  let concurrency = arguments.count > 6 ? Int(arguments[6]) ?? 1 : 1
  let database = try WellflowDatabase.open(
    directory: URL(fileURLWithPath: arguments[1]), schema: WellflowFeatures.schema)
  let outbox = SQLiteOutbox(database: database)
  let processor = OutboxProcessor(
    outbox: outbox,
    api: ProgressAPIClient(
      credentials: BackendCredentials(baseURL: baseURL, apiKey: arguments[4], token: arguments[5]),
      transport: HTTPClientTransport(connections: concurrency),
      // The test kills this process; no request of a healthy local backend should be
      // cut off by a deadline a busy machine can miss (10 s was, under CI load).
      timeout: 600),
    resources: try WellflowFeatures.syncResources, clock: SystemClock(), concurrency: concurrency)

  var synced = 0
  while try await outbox.pendingCount(userID: userID) > 0 {
    let report = try await processor.run(userID: userID, ignoringBackoff: true, limit: 20)
    synced += report.synced
    say("synced \(synced)")
    if let stop = report.stop {
      say("stopped \(stop)")
      exit(1)
    }
  }
  say("done")
}
