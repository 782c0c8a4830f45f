import FlowKit
import Foundation
import Sync

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// HTTP through URLSession in this process: the transport an Apple app uses, and the one
/// the `wellflow-http` agent runs for `HTTPAgentTransport`.
public final class URLSessionTransport: HTTPTransport {
  private let sessions = Locked<[SessionKey: URLSession]>([:])
  private let connections: Int

  private struct SessionKey: Hashable {
    var idle: TimeInterval
    var resource: TimeInterval
    var connections: Int
  }

  /// `connections` is the most connections per host a session opens.
  public init(connections: Int = OutboxProcessor.defaultConcurrency) {
    self.connections = max(1, connections)
  }

  deinit {
    for session in sessions.current.values { session.finishTasksAndInvalidate() }
  }

  public func send(_ request: HTTPExchangeRequest) async -> Result<HTTPExchangeResponse, HTTPTransportFailure>
  {
    await send(request, connections: connections)
  }

  /// Runs the request against its deadline: whichever ends first, the exchange or the
  /// deadline, resumes the caller, and the deadline cancels the URLSession task.
  /// URLSession's own timeout is an idle timeout on Linux (every byte restarts it), so a
  /// backend dripping a byte a second would otherwise hold a sync for minutes. A
  /// completion handler rather than `session.data(for:)`, so giving up never waits for a
  /// task that ignores cancellation.
  func send(_ request: HTTPExchangeRequest, connections: Int) async -> Result<
    HTTPExchangeResponse, HTTPTransportFailure
  > {
    // Linux's URLSession counts in whole seconds and gives up at once below one.
    let idle = max(request.idleTimeout.isFinite ? request.idleTimeout : 15, 1)
    let deadline = request.deadline.isFinite && request.deadline > 0 ? request.deadline : idle
    let session = session(
      SessionKey(idle: idle, resource: max(idle, deadline), connections: max(1, connections)))
    var urlRequest = URLRequest(url: request.url)
    urlRequest.httpMethod = request.method
    for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
    urlRequest.httpBody = request.body
    let exchange = Exchange()
    let result: Exchange.Answer = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let task = session.dataTask(with: urlRequest) { data, response, error in
          if let error {
            exchange.finish(.failure(error))
          } else if let data, let response {
            exchange.finish(.success((data, response)))
          } else {
            exchange.finish(.failure(URLError(.badServerResponse)))
          }
        }
        let timer = Task {
          try? await Task.sleep(for: .seconds(deadline))
          if !Task.isCancelled { exchange.finish(.failure(DeadlinePassed())) }
        }
        exchange.start(continuation, task: task, timer: timer)
      }
    } onCancel: {
      exchange.finish(.failure(CancellationError()))
    }
    switch result {
    case .success(let (data, response)):
      guard let http = response as? HTTPURLResponse else {
        return .failure(.unreachable("not an HTTP response"))
      }
      var headers: [String: String] = [:]
      for (name, value) in http.allHeaderFields {
        if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
      }
      return .success(HTTPExchangeResponse(status: http.statusCode, headers: headers, body: data))
    case .failure(let error):
      return .failure(Self.failure(error))
    }
  }

  private func session(_ key: SessionKey) -> URLSession {
    sessions.withLock { sessions in
      if let session = sessions[key] { return session }
      let configuration = URLSessionConfiguration.ephemeral
      configuration.timeoutIntervalForRequest = key.idle
      configuration.timeoutIntervalForResource = key.resource
      configuration.httpMaximumConnectionsPerHost = key.connections
      configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
      configuration.urlCache = nil
      let session = URLSession(configuration: configuration)
      sessions[key] = session
      return session
    }
  }

  private struct DeadlinePassed: Error {}

  static func failure(_ error: any Error) -> HTTPTransportFailure {
    guard let urlError = error as? URLError else {
      if error is CancellationError || error is DeadlinePassed { return .timeout }
      return .unreachable("\(error)")
    }
    switch urlError.code {
    case .timedOut: return .timeout
    case .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff: return .offline
    default: return .unreachable(urlError.localizedDescription)
    }
  }

  /// One request's race: the first `finish` resumes the caller, cancels the task and
  /// the timer; later ones are ignored. `finish` may come before `start` (a task
  /// cancelled at once), so the outcome waits for the continuation.
  private final class Exchange: Sendable {
    typealias Answer = Result<(Data, URLResponse), any Error>
    private struct State {
      var continuation: CheckedContinuation<Answer, Never>?
      var task: URLSessionDataTask?
      var timer: Task<Void, Never>?
      var outcome: Answer?
      var resumed = false
    }
    private let state = Locked(State())

    func start(
      _ continuation: CheckedContinuation<Answer, Never>,
      task: URLSessionDataTask, timer: Task<Void, Never>
    ) {
      let early = state.withLock { state -> Answer? in
        state.continuation = continuation
        state.task = task
        state.timer = timer
        guard let outcome = state.outcome, !state.resumed else { return nil }
        state.resumed = true
        return outcome
      }
      if let early {
        timer.cancel()
        continuation.resume(returning: early)
      } else {
        task.resume()
      }
    }

    func finish(_ outcome: Answer) {
      let ready = state.withLock {
        state -> (CheckedContinuation<Answer, Never>, URLSessionDataTask?, Task<Void, Never>?)? in
        guard state.outcome == nil else { return nil }
        state.outcome = outcome
        guard let continuation = state.continuation, !state.resumed else { return nil }
        state.resumed = true
        return (continuation, state.task, state.timer)
      }
      guard let (continuation, task, timer) = ready else { return }
      timer?.cancel()
      if case .failure = outcome { task?.cancel() }
      continuation.resume(returning: outcome)
    }
  }
}

extension ProgressAPIClient {
  /// A client sending through URLSession in this process. `timeout` is URLSession's idle
  /// timeout (at least a second); `requestDeadline` bounds each whole request and
  /// defaults to `timeout`; `maxConnections` lets a concurrent processor use that many
  /// connections.
  public convenience init(
    credentials: BackendCredentials, timeout: TimeInterval = 15, requestDeadline: TimeInterval? = nil,
    maxConnections: Int = 4
  ) {
    self.init(
      credentials: credentials, transport: URLSessionTransport(connections: maxConnections), timeout: timeout,
      requestDeadline: requestDeadline)
  }
}
