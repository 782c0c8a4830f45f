import Foundation
import Hummingbird
import ProgressContract
import StrictJSON

/// `/api/v1/resources/{resource}` and `/api/v1/resources/{resource}/{id}`: a feature's rows
/// the server keeps without knowing the feature. A body is any JSON object, kept as
/// canonical JSON per user and resource, so a feature syncs without a route of its own.
struct ResourcesController {
  let store: any BackendStore

  var routes: RouteCollection<BackendContext> {
    RouteCollection(context: BackendContext.self)
      .get("{resource}", use: list)
      .post("{resource}", use: create)
      .get("{resource}/{id}", use: show)
      .put("{resource}/{id}", use: update)
      .delete("{resource}/{id}", use: delete)
  }

  /// The resource name in the path, percent-decoded and checked (`ResourceName`).
  static func name(_ raw: String) throws(Refusal) -> String {
    let name = raw.removingPercentEncoding ?? raw
    try Refusal.checkName(name, "the resource name in the path")
    guard ResourceName.isValid(name) else {
      throw Refusal.invalid(
        "the resource name \"\(name.prefix(50))\" must be a lower-case letter and up to "
          + "\(ResourceName.maxLength - 1) more lower-case letters, digits or _")
    }
    return name
  }

  /// The body to keep: the object as canonical JSON, within `ResourceName.maxBodyBytes`.
  static func canonicalBody(_ object: [String: JSONValue]) throws(Refusal) -> String {
    var bytes: [UInt8] = []
    JSONText.appendCanonical(.object(object), to: &bytes)
    guard bytes.count <= ResourceName.maxBodyBytes else {
      throw Refusal(
        status: 413, code: "payload_too_large",
        message: "a resource body must be at most \(ResourceName.maxBodyBytes) bytes as canonical JSON, "
          + "got \(bytes.count)")
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  private static func name(_ context: BackendContext) throws(Refusal) -> String {
    try name(context.parameters.get("resource") ?? "")
  }

  @Sendable func list(_ request: Request, context: BackendContext) async throws -> BackendResponse {
    let name = try Self.name(context)
    let page = try PageRequest(query: request.apiQuery)
    let rows = try await store.resourcePage(userID: context.userID, resource: name, page: page)
    return BackendResponse(status: 200, body: WireJSON.data(rows))
  }

  @Sendable func show(_ request: Request, context: BackendContext) async throws -> BackendResponse {
    let name = try Self.name(context)
    let id = try ProgressController.id(context.parameters.get("id") ?? "")
    guard let row = try await store.resource(id: id, userID: context.userID, resource: name) else {
      return Refusal.noRow(name, id).response
    }
    return BackendResponse(status: 200, body: WireJSON.data(row))
  }

  @Sendable func create(_ request: Request, context: BackendContext) async throws -> BackendResponse {
    let name = try Self.name(context)
    return try await perform(
      IdempotentWrites.single(
        method: "POST", path: APIPath.resource(name), body: context.body, key: context.idempotencyKey
      ) { object throws(Refusal) in .createResource(name, body: try Self.canonicalBody(object)) }, context)
  }

  @Sendable func update(_ request: Request, context: BackendContext) async throws -> BackendResponse {
    let name = try Self.name(context)
    let id = try ProgressController.id(context.parameters.get("id") ?? "")
    return try await perform(
      IdempotentWrites.single(
        method: "PUT", path: APIPath.resource(name, id: id), body: context.body, key: context.idempotencyKey
      ) { object throws(Refusal) in .updateResource(name, id: id, body: try Self.canonicalBody(object)) },
      context)
  }

  @Sendable func delete(_ request: Request, context: BackendContext) async throws -> BackendResponse {
    let name = try Self.name(context)
    let id = try ProgressController.id(context.parameters.get("id") ?? "")
    return try await perform(
      IdempotentWrites.single(
        method: "DELETE", path: APIPath.resource(name, id: id), body: nil, key: context.idempotencyKey
      ) { _ throws(Refusal) in .deleteResource(name, id: id) }, context)
  }

  /// One write in its own transaction.
  private func perform(_ write: Write, _ context: BackendContext) async throws -> BackendResponse {
    let userID = context.userID
    return try await store.perform([write], userID: userID)[0]
  }
}

/// A resource row as the store keeps it: the body is canonical JSON text, written into an
/// answer as it is. (`Codable` only because a `Page` holds `Codable` items; answers are
/// written by `appendJSON`.)
struct StoredResource: Sendable, Codable, JSONWritable {
  var id: String
  var body: String

  func appendJSON(to bytes: inout [UInt8]) {
    typealias Key = ResourceRecord.CodingKeys
    bytes += #"{""#.utf8
    bytes += Key.body.rawValue.utf8
    bytes += #"":"#.utf8
    bytes += body.utf8
    bytes += #",""#.utf8
    bytes += Key.id.rawValue.utf8
    bytes += #"":"#.utf8
    JSONText.appendString(id, to: &bytes)
    bytes.append(UInt8(ascii: "}"))
  }
}
