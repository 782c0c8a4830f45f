import FlowKit
import Foundation
import Sync

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// HTTP through URLSession in this process: the transport an Apple app links (the
/// `SyncURLSession` library), behind the same port as `wellflow`'s async-http-client one.
///
/// It follows no redirect: a 3xx comes back as the answer, so the API key and the bearer
/// token never go to another origin or over another scheme (URLSession would send them
/// on). A body is gathered as it arrives, decompressed, and the task is cancelled once
/// it passes `HTTPExchangeResponse.maxBodyBytes` (or at its response, when its
/// `Content-Length` is over). On Linux the cancel lands late: corelibs queues every
/// chunk to the delegate without backpressure, so a fast peer's body may be read well
/// past the limit (a 400 MB one: ~470 MB at the peak) before it is refused.
public final class URLSessionTransport: HTTPTransport {
  private let sessions = Locked<[SessionKey: URLSession]>([:])
  private let delegate = SessionDelegate()
  private let connections: Int
  private let waitOutDeadline: DeadlineWait

  /// Returns when `seconds` have passed (or its task is cancelled).
  public typealias DeadlineWait = @Sendable (_ seconds: TimeInterval) async -> Void

  private struct SessionKey: Hashable {
    var idle: TimeInterval
    var resource: TimeInterval
    var connections: Int
  }

  /// `connections` is the most connections per host a session opens; `deadline` waits
  /// out each request's deadline (the wall clock; a test passes one it controls).
  public init(
    connections: Int = OutboxProcessor.defaultConcurrency,
    deadline: @escaping DeadlineWait = { try? await Task.sleep(for: .seconds($0)) }
  ) {
    self.connections = max(1, connections)
    self.waitOutDeadline = deadline
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
  /// backend dripping a byte a second would otherwise hold a sync for minutes. Delegate
  /// callbacks rather than `session.data(for:)`, so giving up never waits for a task
  /// that ignores cancellation.
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
    let task = session.dataTask(with: urlRequest)
    let exchange = Exchange(task: task)
    delegate.exchanges.withLock { $0[ObjectIdentifier(task)] = exchange }
    defer { delegate.exchanges.withLock { $0[ObjectIdentifier(task)] = nil } }
    let waitOutDeadline = waitOutDeadline
    let result: Exchange.Answer = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let timer = Task {
          await waitOutDeadline(deadline)
          if !Task.isCancelled { exchange.finish(.failure(DeadlinePassed())) }
        }
        exchange.start(continuation, timer: timer)
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
      let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
      sessions[key] = session
      return session
    }
  }

  private struct DeadlinePassed: Error {}
  private struct BodyTooLarge: Error {}

  static func failure(_ error: any Error) -> HTTPTransportFailure {
    guard let urlError = error as? URLError else {
      if error is CancellationError || error is DeadlinePassed { return .timeout }
      if error is BodyTooLarge { return .tooLarge }
      return .unreachable("\(error)")
    }
    switch urlError.code {
    case .timedOut: return .timeout
    case .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff: return .offline
    default: return .unreachable(urlError.localizedDescription)
    }
  }

  /// Every session's delegate: hands each task's events to its exchange.
  private final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    let exchanges = Locked<[ObjectIdentifier: Exchange]>([:])

    private func exchange(_ task: URLSessionTask) -> Exchange? {
      exchanges.withLock { $0[ObjectIdentifier(task)] }
    }

    /// No redirect is followed: the 3xx itself is the answer.
    func urlSession(
      _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
      newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
      completionHandler(nil)
    }

    /// A body announced past the limit is refused before any of it is read.
    func urlSession(
      _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
      completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
      if response.expectedContentLength > HTTPExchangeResponse.maxBodyBytes {
        exchange(dataTask)?.finish(.failure(BodyTooLarge()))
        completionHandler(.cancel)
      } else {
        completionHandler(.allow)
      }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
      exchange(dataTask)?.received(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
      exchange(task)?.completed(response: task.response, error: error)
    }
  }

  /// One request's race: the first `finish` resumes the caller, cancels the task and
  /// the timer; later ones are ignored. `finish` may come before `start` (a task
  /// cancelled at once), so the outcome waits for the continuation. The body gathers
  /// here as it arrives.
  private final class Exchange: Sendable {
    typealias Answer = Result<(Data, URLResponse), any Error>
    private struct State {
      var continuation: CheckedContinuation<Answer, Never>?
      var timer: Task<Void, Never>?
      var outcome: Answer?
      var resumed = false
      var body = Data()
    }
    private let task: URLSessionDataTask
    private let state = Locked(State())

    init(task: URLSessionDataTask) { self.task = task }

    func start(_ continuation: CheckedContinuation<Answer, Never>, timer: Task<Void, Never>) {
      let early = state.withLock { state -> Answer? in
        state.continuation = continuation
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

    /// More of the body; past the limit, the task ends without reading the rest.
    func received(_ data: Data) {
      let tooLarge = state.withLock { state -> Bool in
        guard state.outcome == nil else { return false }
        guard state.body.count + data.count <= HTTPExchangeResponse.maxBodyBytes else {
          state.body = Data()
          return true
        }
        state.body.append(data)
        return false
      }
      if tooLarge { finish(.failure(BodyTooLarge())) }
    }

    func completed(response: URLResponse?, error: (any Error)?) {
      if let error {
        finish(.failure(error))
      } else if let response {
        finish(.success((state.withLock { $0.body }, response)))
      } else {
        finish(.failure(URLError(.badServerResponse)))
      }
    }

    func finish(_ outcome: Answer) {
      let ready = state.withLock { state -> (CheckedContinuation<Answer, Never>, Task<Void, Never>?)? in
        guard state.outcome == nil else { return nil }
        state.outcome = outcome
        guard let continuation = state.continuation, !state.resumed else { return nil }
        state.resumed = true
        return (continuation, state.timer)
      }
      guard let (continuation, timer) = ready else { return }
      timer?.cancel()
      if case .failure = outcome { task.cancel() }
      continuation.resume(returning: outcome)
    }
  }
}
