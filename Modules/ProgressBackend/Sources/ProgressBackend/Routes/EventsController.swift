import Foundation
import Hummingbird
import ProgressContract

/// `POST /api/v1/events`: the app's analytics events, up to 1,000 a call, stored in one
/// transaction for the experiment report; idempotent per `Idempotency-Key` as every write.
struct EventsController {
  let store: any BackendStore

  var routes: RouteCollection<BackendContext> {
    RouteCollection(context: BackendContext.self).post(use: record)
  }

  @Sendable func record(_ request: Request, context: BackendContext) async throws -> BackendResponse {
    let write = IdempotentWrites.single(
      method: "POST", path: APIPath.events, body: context.body, key: context.idempotencyKey
    ) { object throws(Refusal) in .recordEvents(try EventsInput(object)) }
    let userID = context.userID
    return try await store.perform([write], userID: userID)[0]
  }
}
