import Foundation
import Hummingbird
import ProgressContract

/// `/api/v1/progress` and `/api/v1/progress/{id}`: the user's mood scores.
struct ProgressController {
  let store: any BackendStore

  var routes: RouteCollection<BackendContext> {
    RouteCollection(context: BackendContext.self)
      .get(use: list)
      .post(use: create)
      .get("{id}", use: show)
      .put("{id}", use: update)
      .delete("{id}", use: delete)
  }

  static func path(_ id: String?) -> String {
    id.map(APIPath.progress(id:)) ?? APIPath.progress
  }

  /// The id in the path, percent-decoded and checked.
  static func id(_ raw: String) throws(Refusal) -> String {
    let id = raw.removingPercentEncoding ?? raw
    try Refusal.checkName(id, "the id in the path")
    return id
  }

  private static func id(_ context: BackendContext) throws(Refusal) -> String {
    try id(context.parameters.get("id") ?? "")
  }

  @Sendable func list(_ request: Request, context: BackendContext) async throws -> BackendResponse {
    let query = request.apiQuery
    let page = try PageRequest(query: query)
    let body = try await store.progressPageJSON(
      userID: context.userID, type: query[ListParameter.type.rawValue], page: page)
    return BackendResponse(status: 200, body: Data(body))
  }

  @Sendable func show(_ request: Request, context: BackendContext) async throws -> BackendResponse {
    let id = try Self.id(context)
    guard let row = try await store.progress(id: id, userID: context.userID) else {
      return Refusal.notFound(id).response
    }
    return BackendResponse(status: 200, body: WireJSON.data(row))
  }

  @Sendable func create(_ request: Request, context: BackendContext) async throws -> BackendResponse {
    try await perform(
      IdempotentWrites.single(
        method: "POST", path: Self.path(nil), body: context.body, key: context.idempotencyKey
      ) { object throws(Refusal) in .createProgress(try ProgressInput(object)) }, context)
  }

  @Sendable func update(_ request: Request, context: BackendContext) async throws -> BackendResponse {
    let id = try Self.id(context)
    return try await perform(
      IdempotentWrites.single(
        method: "PUT", path: Self.path(id), body: context.body, key: context.idempotencyKey
      ) { object throws(Refusal) in .updateProgress(id: id, try ProgressInput(object)) }, context)
  }

  @Sendable func delete(_ request: Request, context: BackendContext) async throws -> BackendResponse {
    let id = try Self.id(context)
    return try await perform(
      IdempotentWrites.single(method: "DELETE", path: Self.path(id), body: nil, key: context.idempotencyKey) {
        _ throws(Refusal) in .deleteProgress(id: id)
      }, context)
  }

  /// One write in its own transaction.
  private func perform(_ write: Write, _ context: BackendContext) async throws -> BackendResponse {
    let userID = context.userID
    return try await store.perform([write], userID: userID)[0]
  }
}
