import Foundation
import ProgressContract

/// What a write does, once its body checked out.
enum WriteAction: Sendable {
  case createProgress(ProgressInput)
  case updateProgress(id: String, ProgressInput)
  case deleteProgress(id: String)
  case createJournal(JournalInput)
  case recordEvents(EventsInput)
  /// A generic resource's row; `body` is canonical JSON (see `ResourcesController`).
  case createResource(String, body: String)
  case updateResource(String, id: String, body: String)
  case deleteResource(String, id: String)

  /// Inside a write transaction: does it and answers as the API does.
  func apply(userID: String, in store: any BackendTransaction) throws -> BackendResponse {
    switch self {
    case .createProgress(let input):
      // A client's entry is one row: a create sent again (a newer revision) updates it.
      if let entryID = input.entryID, let id = try store.progressID(userID: userID, entryID: entryID) {
        try store.updateProgress(id: id, input)
        return BackendResponse(status: 200, body: WireJSON.progressJSON(id: id, input, entryID: entryID))
      }
      let id = UUID().uuidString.lowercased()
      try store.insertProgress(id: id, userID: userID, input)
      return BackendResponse(status: 201, body: WireJSON.progressJSON(id: id, input, entryID: input.entryID))
    case .updateProgress(let id, let input):
      // The row's entry id stays as it was created.
      guard let entryID = try store.progressEntryID(id: id, userID: userID) else {
        return Refusal.notFound(id).response
      }
      try store.updateProgress(id: id, input)
      return BackendResponse(status: 200, body: WireJSON.progressJSON(id: id, input, entryID: entryID))
    case .deleteProgress(let id):
      guard try store.deleteProgress(id: id, userID: userID) else { return Refusal.notFound(id).response }
      return BackendResponse(status: 204, body: Data())
    case .createJournal(let input):
      let id = UUID().uuidString.lowercased()
      try store.insertJournal(id: id, userID: userID, input)
      return BackendResponse(status: 201, body: WireJSON.data(JournalRecord(id: id, input)))
    case .recordEvents(let input):
      try store.insertEvents(input.lines(userID: userID))
      return BackendResponse(status: 201, body: WireJSON.eventsAccepted(input.events.count))
    case .createResource(let resource, let body):
      let id = UUID().uuidString.lowercased()
      try store.insertResource(id: id, userID: userID, resource: resource, body: body)
      return BackendResponse(status: 201, body: WireJSON.data(StoredResource(id: id, body: body)))
    case .updateResource(let resource, let id, let body):
      guard try store.updateResource(id: id, userID: userID, resource: resource, body: body) else {
        return Refusal.noRow(resource, id).response
      }
      return BackendResponse(status: 200, body: WireJSON.data(StoredResource(id: id, body: body)))
    case .deleteResource(let resource, let id):
      guard try store.deleteResource(id: id, userID: userID, resource: resource) else {
        return Refusal.noRow(resource, id).response
      }
      return BackendResponse(status: 204, body: Data())
    }
  }
}
