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

  /// Every path the document describes.
  public static let all = [progress, progressItem, progressBatch, journal, events, openAPIDocument, metrics]

  /// One progress row's path; `id` as given (a client percent-encodes it for a URL).
  public static func progress(id: String) -> String { "\(progress)/\(id)" }
}

/// The request headers the API reads.
public enum APIHeader {
  public static let apiKey = "X-API-Key"
  public static let authorization = "Authorization"
  public static let idempotencyKey = "Idempotency-Key"
}

/// The query parameters of the list endpoints.
public enum ListParameter: String, CaseIterable, Sendable, CustomStringConvertible {
  case type, from, to, limit, offset

  public var description: String { rawValue }
}
