import Foundation
import Hummingbird
import JournalCatalog
import ProgressContract

/// `/api/v1/journal`: the user's journal entries, checked against the bundled catalog.
struct JournalController {
  let store: any BackendStore
  let catalog: JournalCatalog

  var routes: RouteCollection<BackendContext> {
    RouteCollection(context: BackendContext.self)
      .get(use: list)
      .post(use: create)
  }

  @Sendable func list(_ request: Request, context: BackendContext) async throws -> BackendResponse {
    let page = try PageRequest(query: request.apiQuery)
    let rows = try await store.journalPage(userID: context.userID, page: page)
    return BackendResponse(status: 200, body: WireJSON.data(rows))
  }

  @Sendable func create(_ request: Request, context: BackendContext) async throws -> BackendResponse {
    let catalog = self.catalog
    let write = IdempotentWrites.single(
      method: "POST", path: APIPath.journal, body: context.body, key: context.idempotencyKey
    ) { object throws(Refusal) in .createJournal(try JournalInput(object, catalog: catalog)) }
    let userID = context.userID
    return try await store.perform([write], userID: userID)[0]
  }
}
