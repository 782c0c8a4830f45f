/// The API's paths and the headers it reads, as `openapi.yaml` names them.
public enum APIPath {
  public static let progress = "/api/v1/progress"
  public static let progressBatch = "/api/v1/progress/batch"
  /// The template of one progress row's path; `progress(id:)` fills it.
  public static let progressItem = "/api/v1/progress/{id}"
  public static let journal = "/api/v1/journal"
  /// The app's analytics events, stored for the experiment report.
  public static let events = "/api/v1/events"
  public static let metrics = "/metrics"
  public static let openAPIDocument = "/openapi.yaml"
  /// Where a feature's generic resources live: `resources/{resource}` lists and creates,
  /// `resources/{resource}/{id}` updates and deletes; the server does not know the feature.
  public static let resources = "/api/v1/resources"
  /// The templates of a resource's paths; `resource(_:)` and `resource(_:id:)` fill them.
  public static let resource = "/api/v1/resources/{resource}"
  public static let resourceItem = "/api/v1/resources/{resource}/{id}"

  /// Every path the document describes.
  public static let all = [
    progress, progressItem, progressBatch, journal, events, resource, resourceItem, openAPIDocument, metrics,
  ]

  /// One progress row's path; `id` as given (a client percent-encodes it for a URL).
  public static func progress(id: String) -> String { "\(progress)/\(id)" }

  /// A resource's path (`name` a `ResourceName`).
  public static func resource(_ name: String) -> String { "\(resources)/\(name)" }

  /// One row of a resource; `id` as given (a client percent-encodes it for a URL).
  public static func resource(_ name: String, id: String) -> String { "\(resources)/\(name)/\(id)" }
}

/// What a generic resource may be called: the `{resource}` of its path.
public enum ResourceName {
  /// The longest name.
  public static let maxLength = 40
  /// The pattern the document gives the path parameter.
  public static let pattern = "^[a-z][a-z0-9_]{0,39}$"

  /// Whether `name` is one: a lower-case ASCII letter, then up to 39 letters, digits and `_`.
  public static func isValid(_ name: String) -> Bool {
    let bytes = Array(name.utf8)
    guard let first = bytes.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first),
      bytes.count <= maxLength
    else { return false }
    return bytes.allSatisfy {
      (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
        || $0 == UInt8(ascii: "_")
    }
  }

  /// The largest body a resource row may hold, counted as the canonical JSON the server
  /// keeps (sorted members, no spaces).
  public static let maxBodyBytes = 65_536
}

/// The request headers the API reads.
public enum APIHeader {
  public static let apiKey = "X-API-Key"
  public static let authorization = "Authorization"
  public static let idempotencyKey = "Idempotency-Key"
  /// How long a 429 or 5xx asks the client to wait (RFC 9110): the client honours it from
  /// any server or proxy in front of one.
  public static let retryAfter = "Retry-After"
}

/// The query parameters of the list endpoints.
public enum ListParameter: String, CaseIterable, Sendable, CustomStringConvertible {
  case type, from, to, limit, offset

  public var description: String { rawValue }
}
