import FlowKit
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Sends requests through a `wellflow-http` agent process: URLSession runs there, so this
/// process never loads the networking libraries. The agent starts at the first request
/// and serves every transport of the process (`shared`); its requests run concurrently.
///
/// The agent enforces each request's deadline; this side waits a few seconds longer and
/// then answers `timeout` itself, so a stuck agent cannot hold a sync. An agent that
/// exits fails the requests in flight as `unreachable` and is started again by the next.
public final class HTTPAgentTransport: HTTPTransport {
  /// The agent's file name, looked for beside the running executable.
  public static let agentName = "wellflow-http"
  /// Overrides where the agent is (a path), e.g. for an installed `wellflow`.
  public static let agentVariable = "WELLFLOW_HTTP_AGENT"

  /// One agent per process, found beside the executable.
  public static let shared = HTTPAgentTransport(agent: defaultAgentPath())

  /// How long past a request's deadline this side waits for the agent's answer.
  public static let grace: TimeInterval = 5

  public let agent: String
  private let connections: Int
  private let state = Locked(State())

  private struct State {
    var process: Process?
    var input: FileHandle?
    var nextID: UInt64 = 1
    /// Callers by request id, with the agent process their request went to.
    var waiting: [UInt64: (agent: ObjectIdentifier, caller: Caller)] = [:]
    /// Each waiting request's backstop, cancelled when its answer comes.
    var timers: [UInt64: Task<Void, Never>] = [:]
  }

  /// Held while a frame is written to the agent.
  private let writing = Locked(())

  private typealias Caller = CheckedContinuation<Result<HTTPExchangeResponse, HTTPTransportFailure>, Never>

  /// `connections` is the most connections the agent's URLSession opens per host.
  public init(agent: String, connections: Int = OutboxProcessor.defaultConcurrency) {
    self.agent = agent
    self.connections = max(1, connections)
  }

  /// `$WELLFLOW_HTTP_AGENT`, else `wellflow-http` in the running executable's folder
  /// (SwiftPM builds it beside `wellflow` and beside the test bundle).
  public static func defaultAgentPath() -> String {
    if let path = ProcessInfo.processInfo.environment[agentVariable], !path.isEmpty { return path }
    // Linux names the running executable at /proc/self/exe; elsewhere Foundation knows it.
    let executable =
      FileManager.default.fileExists(atPath: "/proc/self/exe")
      ? URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
      : (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0]))
        .resolvingSymlinksInPath()
    return executable.deletingLastPathComponent().appendingPathComponent(agentName).path
  }

  public func send(_ request: HTTPExchangeRequest) async -> Result<HTTPExchangeResponse, HTTPTransportFailure>
  {
    let limit = (request.deadline.isFinite && request.deadline > 0 ? request.deadline : 15) + Self.grace
    let connections = connections
    let id = state.withLock { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let started = state.withLock { state -> Result<FileHandle, HTTPTransportFailure> in
          do {
            let (process, input) = try startIfNeeded(&state)
            state.waiting[id] = (ObjectIdentifier(process), continuation)
            return .success(input)
          } catch {
            return .failure(.unreachable("\(error)"))
          }
        }
        switch started {
        case .failure(let failure):
          continuation.resume(returning: .failure(failure))
        case .success(let input):
          // One frame at a time: a frame over the pipe's atomic size would otherwise
          // interleave with another sender's.
          let frame = HTTPAgentFrames.request(id: id, request, connections: connections)
          let written = writing.withLock { _ in Result { try input.write(contentsOf: frame) } }
          if case .failure(let error) = written {
            finish(id, .failure(.unreachable("the HTTP agent \(agent) takes no requests: \(error)")))
            return
          }
          let timer = Task.detached { [weak self] in
            try? await Task.sleep(for: .seconds(limit))
            if !Task.isCancelled { self?.finish(id, .failure(.timeout)) }
          }
          let answered = state.withLock { state in
            guard state.waiting[id] != nil else { return true }
            state.timers[id] = timer
            return false
          }
          if answered { timer.cancel() }
          if Task.isCancelled { finish(id, .failure(.timeout)) }
        }
      }
    } onCancel: {
      finish(id, .failure(.timeout))
    }
  }

  /// The running agent's process id, for tests.
  var agentProcessIdentifier: Int32? {
    state.withLock { state in state.process.flatMap { $0.isRunning ? $0.processIdentifier : nil } }
  }

  /// Resumes the request's caller once; later answers for it are dropped.
  private func finish(_ id: UInt64, _ result: Result<HTTPExchangeResponse, HTTPTransportFailure>) {
    let (waiting, timer) = state.withLock {
      ($0.waiting.removeValue(forKey: id), $0.timers.removeValue(forKey: id))
    }
    timer?.cancel()
    waiting?.caller.resume(returning: result)
  }

  struct AgentError: Error, CustomStringConvertible {
    let description: String
  }

  private func startIfNeeded(_ state: inout State) throws(AgentError) -> (Process, FileHandle) {
    if let process = state.process, let input = state.input, process.isRunning { return (process, input) }
    guard FileManager.default.isExecutableFile(atPath: agent) else {
      throw AgentError(
        description: "no HTTP agent at \(agent): build it with `swift build --product \(Self.agentName)`"
          + " or set \(Self.agentVariable)")
    }
    // A write to an agent that just exited must fail, not kill this process.
    signal(SIGPIPE, SIG_IGN)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: agent)
    let requests = Pipe()
    let answers = Pipe()
    process.standardInput = requests
    process.standardOutput = answers
    do {
      try process.run()
    } catch {
      throw AgentError(description: "the HTTP agent \(agent) did not start: \(error)")
    }
    state.process = process
    state.input = requests.fileHandleForWriting
    let reader = answers.fileHandleForReading
    let agentProcess = UncheckedProcess(process: process)
    let thread = Thread { [weak self] in self?.readAnswers(from: reader, of: agentProcess.process) }
    thread.name = "wellflow-http answers"
    thread.start()
    return (process, requests.fileHandleForWriting)
  }

  /// Reads answers until the agent's output ends, then fails whatever is still waiting.
  private func readAnswers(from reader: FileHandle, of process: Process) {
    var buffer: [UInt8] = []
    var problem = "the HTTP agent \(agent) exited"
    reading: while true {
      let chunk = reader.availableData
      if chunk.isEmpty { break }
      buffer += chunk
      do {
        while let frame = try HTTPAgentFrames.nextFrame(&buffer) {
          let (id, result) = try HTTPAgentFrames.readResponse(frame)
          finish(id, result)
        }
      } catch {
        problem = "the HTTP agent \(agent) answered garbage: \(error)"
        process.terminate()
        break reading
      }
    }
    let orphans = state.withLock { state -> [Caller] in
      if state.process === process {
        state.process = nil
        state.input = nil
      }
      let mine = state.waiting.filter { $0.value.agent == ObjectIdentifier(process) }
      for id in mine.keys {
        state.waiting[id] = nil
        state.timers.removeValue(forKey: id)?.cancel()
      }
      return mine.values.map(\.caller)
    }
    for caller in orphans { caller.resume(returning: .failure(.unreachable(problem))) }
  }

  /// The reading thread's hold on the agent: only it and `State` touch the process.
  private struct UncheckedProcess: @unchecked Sendable {
    let process: Process
  }

  deinit {
    state.withLock { state in
      try? state.input?.close()
      state.input = nil
    }
  }
}
