import FlowKit
import FlowKitTesting
import Foundation
import ProgressBackend
import Sync
import SyncHTTPClient
import Testing

/// A feature's generic resource is a peer of progress in sync: its rows go up in batches,
/// and what other devices sent comes back through the feature's `pulled`.
@Suite struct GenericResourceSyncTests {
  /// A feature's notes in memory, by the id the writing device gave them.
  final class Notes: Sendable {
    let kept = Locked<[String: String]>([:])
  }

  enum NotesKey: ServiceKey {
    typealias Value = Notes
  }

  struct Backend: BackendConnector {
    let client: ProgressAPIClient
    func api(for userID: String) async throws -> any ProgressAPI { client }
  }

  static let entity = OutboxEntity(rawValue: "note")

  /// The feature's registration: its row is the object kept, and a pulled object is a
  /// note by its id, once.
  static let notes = try! SyncResource.generic(
    entity: entity, name: "notes", body: { row in Data(row.payload.utf8) },
    pulled: { record, context in
      guard case .string(let id)? = record.body["id"], case .string(let text)? = record.body["text"] else {
        return .invalid("not a note")
      }
      return context.services[NotesKey.self].kept.withLock { kept in
        guard kept[id] == nil else { return .known }
        kept[id] = text
        return .imported
      }
    })

  static func device(_ backend: TestBackend, outbox: any Outbox, notes: Notes) -> SyncService {
    var services = Services()
    services[NotesKey.self] = notes
    return SyncService(
      connector: Backend(client: backend.client("alice")), outbox: outbox, resources: [Self.notes],
      services: services, clock: testClock(), connectivity: NetworkSwitch())
  }

  @Test func rowsGoInBatchesAndOtherDevicesRowsArePulledIntoTheFeature() async throws {
    let requests = Locked<[String]>([])
    let backend = try await TestBackend.start(fault: { method, path in
      requests.withLock { $0.append("\(method) \(path)") }
      return nil
    })
    defer { Task { await backend.stop() } }
    let clock = testClock()
    // One device wrote 150 notes; they are its own.
    let outbox = InMemoryOutbox()
    let written = Notes()
    for index in 0..<150 {
      written.kept.withLock { $0["n\(index)"] = "note \(index)" }
      outbox.enqueue(
        OutboxRow(
          id: UUID(), userID: "alice", entity: Self.entity, entityID: "n\(index)", operation: .create,
          payload: #"{"id":"n\#(index)","text":"note \#(index)"}"#, nextAttemptAt: clock.now,
          createdAt: clock.now.addingTimeInterval(Double(index))))
    }
    let first = try await Self.device(backend, outbox: outbox, notes: written).sync(userID: "alice")
    #expect(first.push.synced == 150 && first.pulled == 0 && first.pullError == nil)
    // Two batch requests of up to 100, not a request a row.
    let sent = requests.current
    #expect(sent.filter { $0 == "POST /api/v1/progress/batch" }.count == 2)
    #expect(!sent.contains("POST /api/v1/resources/notes"))
    // A row no note is: skipped and said why.
    _ = try await backend.client("alice").createResource(
      "notes", body: Data(#"{"title": "x"}"#.utf8), idempotencyKey: nil)

    // Another device pulls them into the feature, once.
    let other = Notes()
    let device = Self.device(backend, outbox: InMemoryOutbox(), notes: other)
    let pulled = try await device.sync(userID: "alice")
    #expect(pulled.pulled == 150 && pulled.pullError == nil && pulled.pullUnfinished == nil)
    #expect(pulled.pullSkippedCount == 1 && pulled.pullSkipped.map(\.reason) == ["not a note"])
    #expect(other.kept.current == written.kept.current)
    #expect(try await device.sync(userID: "alice").pulled == 0)
  }

  @Test func aResourceWithoutPulledIsNotPulled() throws {
    let resource = try SyncResource.generic(entity: Self.entity, name: "notes") { row in
      Data(row.payload.utf8)
    }
    #expect(resource.pull == nil && Self.notes.pull != nil)
  }

  /// A feature that syncs under a name no path can carry.
  enum Misnamed: SyncingFeature {
    static var syncResources: [SyncResource] {
      get throws { [try .generic(entity: GenericResourceSyncTests.entity, name: "My notes") { _ in Data() }] }
    }
  }

  @Test func aNameThatIsNotAResourceNameIsAThrownErrorNamingItAndTheRule() throws {
    for (name, shown) in [
      ("My notes", "My notes"), ("1st", "1st"), ("", ""),
      (String(repeating: "a", count: 41), String(repeating: "a", count: 41)),
      ("a\nb", #"a\u{A}b"#),
    ] {
      #expect(throws: SyncResourceError.invalidName(name)) {
        try SyncResource.generic(entity: Self.entity, name: name) { _ in Data() }
      }
      #expect(
        SyncResourceError.invalidName(name).description
          == "\"\(shown)\" is not a resource name: it must match ^[a-z][a-z0-9_]{0,39}$")
    }
    // Registering the feature fails with it, naming the feature, instead of stopping the app.
    var registry = FlowRegistry()
    #expect(
      throws: RegistryError.invalidFeature(
        feature: "Misnamed",
        problem: "\"My notes\" is not a resource name: it must match ^[a-z][a-z0-9_]{0,39}$")
    ) {
      try registry.register(Misnamed.self)
    }
    #expect(
      RegistryError.invalidFeature(feature: "Misnamed", problem: "p").description
        == "feature 'Misnamed' cannot register: p")
  }
}
