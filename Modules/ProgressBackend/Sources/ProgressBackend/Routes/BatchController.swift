import Foundation
import Hummingbird
import ProgressContract
import StrictJSON

private typealias I = BatchItemField

/// `POST /api/v1/progress/batch`: up to 100 writes in one transaction, each answered as
/// its single call would be (a batch item and a single call with the same key are the
/// same request): progress rows, and with `resource` a generic resource's rows. A
/// malformed batch is refused whole with 400.
struct BatchController {
  static let maxItems = 100
  let store: any BackendStore

  var routes: RouteCollection<BackendContext> {
    RouteCollection(context: BackendContext.self).post(use: batch)
  }

  @Sendable func batch(_ request: Request, context: BackendContext) async throws -> BackendResponse {
    let writes = try Self.writes(context.body)
    let userID = context.userID
    let answers = try await store.perform(writes, userID: userID)
    return BackendResponse(status: 200, body: WireJSON.batchBody(answers))
  }

  static func writes(_ body: Data) throws(Refusal) -> [Write] {
    guard let parsed = try? JSONValue.parse(body),
      case .object(let object) = parsed
    else { throw Refusal.invalid("the body must be a JSON object {\"\(BatchField.items)\": [...]}") }
    guard case .array(let items) = object[BatchField.items.rawValue] else {
      throw Refusal.invalid("\(BatchField.items) is required: an array of at most \(Self.maxItems) writes")
    }
    guard items.count <= Self.maxItems else {
      throw Refusal.invalid("a batch holds at most \(Self.maxItems) items, got \(items.count)")
    }
    var writes: [Write] = []
    writes.reserveCapacity(items.count)
    for (index, item) in items.enumerated() {
      writes.append(try write(item, name: "\(BatchField.items)[\(index)]"))
    }
    return writes
  }

  private static func write(_ item: JSONValue, name: String) throws(Refusal) -> Write {
    guard case .object(let item) = item else { throw Refusal.invalid("\(name) must be an object") }
    guard case .string(let key) = item[I.idempotencyKey.rawValue], !key.isEmpty else {
      throw Refusal.invalid("\(name).\(I.idempotencyKey) is required (a non-empty string)")
    }
    try Refusal.checkName(key, "\(name).\(I.idempotencyKey)")
    guard case .string(let method) = item[I.method.rawValue], ["POST", "PUT", "DELETE"].contains(method)
    else {
      throw Refusal.invalid("\(name).\(I.method) must be \"POST\", \"PUT\" or \"DELETE\"")
    }
    var id: String?
    switch item[I.id.rawValue] {
    case nil, .null: id = nil
    case .string(let text) where !text.isEmpty: id = text
    default: throw Refusal.invalid("\(name).\(I.id) must be a non-empty string")
    }
    if let id { try Refusal.checkName(id, "\(name).\(I.id)") }
    if method == "POST", id != nil { throw Refusal.invalid("\(name).\(I.id) is not sent with POST") }
    if method != "POST", id == nil { throw Refusal.invalid("\(name).\(I.id) is required with \(method)") }
    let resource = try Self.resource(item[I.resource.rawValue], name: name)
    // The single call's path: a batch item and a single call with one key are one request.
    let path =
      resource.map { resource in id.map { APIPath.resource(resource, id: $0) } ?? APIPath.resource(resource) }
      ?? ProgressController.path(id)
    guard method != "DELETE" else {
      return Write(
        key: key, fingerprint: IdempotentWrites.fingerprint(method: method, path: path, body: []),
        action: .success(resource.map { .deleteResource($0, id: id!) } ?? .deleteProgress(id: id!)))
    }
    guard case .object(let body) = item[I.body.rawValue] else {
      throw Refusal.invalid("\(name).\(I.body) is required with \(method): the object the single call sends")
    }
    var canonical: [UInt8] = [1]
    JSONValue.object(body).canonical(into: &canonical)
    return Write(
      key: key, fingerprint: IdempotentWrites.fingerprint(method: method, path: path, body: canonical),
      action: IdempotentWrites.refusing { () throws(Refusal) in
        if let resource {
          let kept = try ResourcesController.canonicalBody(body)
          return id.map { .updateResource(resource, id: $0, body: kept) }
            ?? .createResource(resource, body: kept)
        }
        let input = try ProgressInput(body)
        return id.map { .updateProgress(id: $0, input) } ?? .createProgress(input)
      })
  }

  /// The item's generic resource, checked as its path would be; nil for a progress write.
  private static func resource(_ value: JSONValue?, name: String) throws(Refusal) -> String? {
    switch value {
    case nil, .null: return nil
    case .string(let resource) where ResourceName.isValid(resource): return resource
    default:
      throw Refusal.invalid(
        "\(name).\(I.resource) must be a resource name: a lower-case letter and up to "
          + "\(ResourceName.maxLength - 1) more lower-case letters, digits or _")
    }
  }
}
