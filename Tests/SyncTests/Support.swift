import FlowKit
import Foundation
import MoodTracking
import MoodTrackingSQLite
import ProgressBackend
import Storage
import Sync
import SyncHTTPClient
import WellflowComposition

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

let apiKey = "test-key"
let jwtSecret = "test-secret"

/// A progress server on a free loopback port for one test, stopped by `stop()`.
struct TestBackend {
  let server: ProgressServer
  let url: URL

  static func start(
    databasePath: String? = nil,
    fault: (@Sendable (_ method: String, _ path: String) async -> ProgressServer.Fault?)? = nil
  ) async throws -> TestBackend {
    var configuration = ProgressServer.Configuration(
      databasePath: databasePath, apiKey: apiKey, jwtSecret: jwtSecret, fault: fault)
    if databasePath == nil { configuration.database = try await TestStore.chosen.emptyDatabase() }
    let server = try ProgressServer(configuration: configuration)
    return TestBackend(server: server, url: try await server.start())
  }

  /// A generous default: what must succeed must not depend on how busy the machine is.
  func client(_ user: String, timeout: TimeInterval = 600, maxConnections: Int = 4) -> ProgressAPIClient {
    ProgressAPIClient(
      credentials: BackendCredentials(baseURL: url, apiKey: apiKey, token: server.token(for: user)),
      timeout: timeout, maxConnections: maxConnections)
  }

  func stop() async { await server.stop() }

  /// A raw request, for what the client never sends (bad headers, malformed bodies).
  func raw(
    _ method: String, _ path: String, body: String? = nil, headers: [String: String]
  ) async throws -> (status: Int, json: [String: Any]) {
    // A busy machine may take long to answer; the test waits as long as it takes.
    var request = URLRequest(url: URL(string: url.absoluteString + path)!, timeoutInterval: 600)
    request.httpMethod = method
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    if let body {
      request.httpBody = Data(body.utf8)
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    let (data, response) = try await URLSession.shared.data(for: request)
    let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    return ((response as! HTTPURLResponse).statusCode, json)
  }

  func headers(user: String = "alice", token: String? = nil) -> [String: String] {
    ["X-API-Key": apiKey, "Authorization": "Bearer \(token ?? server.token(for: user))"]
  }
}

extension Dictionary where Key == String, Value == Any {
  /// `error.code` and `error.message` of the envelope.
  var errorCode: String? { (self["error"] as? [String: Any])?["code"] as? String }
  var errorMessage: String? { (self["error"] as? [String: Any])?["message"] as? String }
}

func progressBody(
  quantity: Double = 7, loggedAt: String = "2026-03-02T08:00:00Z", notes: String? = nil,
  entryID: String? = nil
) -> Data {
  var object: [String: Any] = ["type": "mood_score", "quantity": quantity, "logged_at": loggedAt]
  if let notes { object["notes"] = notes }
  if let entryID { object["entry_id"] = entryID }
  return try! JSONSerialization.data(withJSONObject: object)
}

let utc = TimeZone(identifier: "UTC")!

/// A migrated app database in a fresh folder.
func makeAppDatabase() throws -> (WellflowDatabase, URL) {
  let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
    "wellflow-sync-\(UUID().uuidString)")
  return (
    try WellflowDatabase.open(directory: directory, schema: WellflowFeatures.schema, legacyTimeZone: utc),
    directory
  )
}

/// `count` mood entries of `user`, one a day back from `clock.now`, with their outbox rows.
@discardableResult
func seedMoods(_ repository: SQLiteMoodRepository, user: String, count: Int, clock: ManualClock) async throws
  -> [MoodEntry]
{
  var batch: [(entry: MoodEntry, outbox: OutboxRow)] = []
  for index in 0..<count {
    let date = clock.now.addingTimeInterval(-Double(count - index) * 3_600)
    let score = index % 10 + 1
    let entry = MoodEntry(
      id: UUID(), userID: user, date: date, day: MoodDay(date, in: clock.calendar), score: score,
      valence: try MoodTranslation.valence(forScore: score),
      labels: try MoodTranslation.labels(forScore: score, notes: nil), kind: .momentaryEmotion,
      createdAt: date, updatedAt: date)
    batch.append((entry, .mood(entry, operation: .create, id: UUID(), now: date)))
  }
  try await repository.save(batch)
  return batch.map(\.entry)
}

func testClock() -> ManualClock {
  ManualClock(now: Date(timeIntervalSince1970: 1_772_438_400), timeZone: utc)  // 2026-03-02 08:00 UTC
}

/// The app's sync resources, for tests that send what the app sends.
let appResources = try! WellflowFeatures.syncResources

extension SyncService {
  /// The app's resources, pulling moods into `moods`.
  init(
    connector: any BackendConnector, outbox: any Outbox, moods: any MoodRepository, clock: any FlowClock,
    connectivity: any Connectivity, analytics: any AnalyticsSink = DiscardingAnalyticsSink()
  ) {
    var services = Services()
    services[MoodRepositoryKey.self] = moods
    self.init(
      connector: connector, outbox: outbox, resources: appResources, services: services, clock: clock,
      connectivity: connectivity, analytics: analytics)
  }
}

extension OutboxProcessor {
  /// Sends the app's resources.
  convenience init(
    outbox: any Outbox, api: any ProgressAPI, clock: any FlowClock,
    connectivity: any Connectivity = NetworkSwitch(), policy: RetryPolicy = RetryPolicy(),
    concurrency: Int = 1,
    maxBatchItems: Int = ProgressBatchItem.maxPerBatch,
    random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
    analytics: any AnalyticsSink = DiscardingAnalyticsSink()
  ) {
    self.init(
      outbox: outbox, api: api, resources: appResources, clock: clock, connectivity: connectivity,
      policy: policy, concurrency: concurrency,
      maxBatchItems: maxBatchItems, random: random, analytics: analytics)
  }
}
