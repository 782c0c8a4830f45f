import FlowKit
import Foundation
import ScriptTestSupport
import Testing

@testable import WellflowCore
@testable import WellflowExplorer
@testable import WellflowPreview

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif
#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The preview's HTTP API, over real HTTP on a free loopback port.
@MainActor
@Suite("wellflow preview")
struct PreviewServerTests {
  let workspace = Workspace()

  struct Answer {
    var status: Int
    var body: Data
    var text: String { String(decoding: body, as: UTF8.self) }
    func state() throws -> PreviewState { try JSONDecoder().decode(PreviewState.self, from: body) }
  }

  func request(_ url: URL, _ path: String, post command: PreviewCommand? = nil) async throws -> Answer {
    var request = URLRequest(url: url.appendingPathComponent(path))
    // A busy machine may take long to answer; the test waits as long as it takes.
    request.timeoutInterval = 600
    if let command {
      request.httpMethod = "POST"
      request.httpBody = try JSONEncoder().encode(command)
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    let (data, response) = try await URLSession.shared.data(for: request)
    return Answer(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: data)
  }

  func withServer(
    experiments: String? = nil, growthBook: String? = nil, locale: String? = nil,
    _ body: (URL) async throws -> Void
  )
    async throws
  {
    try await withServer(
      session: try PreviewSession.make(
        experimentsPath: experiments, growthBookPath: growthBook, locale: locale),
      body)
  }

  func withServer(
    session: PreviewSession, requestTimeout: TimeInterval? = 10, _ body: (URL) async throws -> Void
  )
    async throws
  {
    let server = PreviewServer(session: session, port: 0, requestTimeout: requestTimeout)
    let url = try await server.start()
    #expect(url.host == "127.0.0.1")
    do {
      try await body(url)
    } catch {
      await server.stop()
      throw error
    }
    await server.stop()
  }

  func action(
    _ action: String, _ id: String? = nil, options: [String]? = nil, text: String? = nil, value: Double? = nil
  )
    -> PreviewCommand
  {
    PreviewCommand(command: "action", action: action, id: id, options: options, text: text, value: value)
  }

  @Test func stepsTakenThroughTheAPIBecomeAScriptThatRunPasses() async throws {
    try await withServer { url in
      let page = try await request(url, "/")
      #expect(page.status == 200)
      #expect(page.text.contains("EventSource(\"/api/events\")"))
      #expect(!page.text.contains("http://") && !page.text.contains("https://"))

      var state = try await request(url, "/api/command", post: PreviewCommand(command: "launch")).state()
      #expect(state.screen == "onboarding.welcome")
      #expect(state.screenHTML.contains("aria-valuetext=\"Step 1 of 4\""))
      for command in [
        action("tap", "continue"), action("tap", "continue"),
        action("select", "skill", options: ["beginner"]),
        action("tap", "continue"), action("tap", "continue"),
      ] {
        state = try await request(url, "/api/command", post: command).state()
      }
      // Onboarding done, the launch rules present the daily check-in.
      #expect(state.screen == "checkin.pet")
      for command in [
        action("tap", "begin"), action("set", "score", value: 8), action("tap", "continue"),
        action("select", "emotion", options: ["happy"]), action("tap", "continue"),
        action("enter", "response", text: "a walk"), action("tap", "continue"),
      ] {
        state = try await request(url, "/api/command", post: command).state()
      }
      #expect(state.screen == "checkin.attributing")
      // Close raises the exit alert, drawn as a modal.
      state = try await request(url, "/api/command", post: action("close")).state()
      #expect(state.alert == "checkin.confirmExit")
      #expect(state.screenHTML.contains("role=\"alertdialog\""))
      state = try await request(url, "/api/command", post: action("tap", "stay")).state()
      state = try await request(url, "/api/command", post: PreviewCommand(command: "advance", amount: "2h"))
        .state()
      #expect(state.clock == "2026-01-05 11:00:00 UTC")
      #expect(state.queries.contains(.init(id: "onboarding.completed", value: "true")))
      #expect(state.events.contains { $0.event == "flow_completed" && $0.detail.hasPrefix("onboarding") })

      let refused = try await request(url, "/api/command", post: action("tap", "nothing"))
      #expect(refused.status == 400)
      #expect(refused.text.contains("tap failed"))

      let script = try await request(url, "/api/script").text
      #expect(script.contains("  - launch\n  - tap: continue\n"))
      #expect(script.contains("  - select: {skill: beginner}\n"))
      #expect(script.contains("  - enter: {response: \"a walk\"}\n"))
      #expect(script.contains("  - advance: 7200s\n"))
      #expect(script.hasSuffix("  - expect: {screen: checkin.attributing, alert: null}\n"))
      let file = workspace.write("from-preview.yaml", script)
      let outcome = await wellflowRun([file])
      #expect(outcome.code == 0, "\(outcome.errText)")
    }
  }

  /// Typed text that looks like a script variable stays text when copied as a script:
  /// `$${` is a literal `${`.
  @Test func typedDollarBracesSurviveCopyAsScript() async throws {
    let typed = "cost ${5}, $${x} and a \"quote\""
    #expect(yamlQuoted(typed) == #""cost $${5}, $$${x} and a \"quote\"""#)
    let file = workspace.write(
      "dollars.yaml",
      """
      name: dollars typed
      steps:
        - start: mood.log
        - enter: {notes: \(yamlQuoted(typed))}
        - tap: save
        - expect: {data: {mood.latest.notes: \(yamlQuoted(typed))}}
      """)
    let outcome = await wellflowRun([file])
    #expect(outcome.code == 0, "\(outcome.errText)")
  }

  /// Another site open in the browser, or a DNS-rebinding page, must not drive the app.
  @Test func requestsFromElsewhereAreRefused() async throws {
    try await withServer { url in
      func post(_ headers: [String: String], contentType: String = "application/json") async throws -> Answer
      {
        var request = URLRequest(url: url.appendingPathComponent("api/command"))
        request.timeoutInterval = 600
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"command": "launch"}"#.utf8)
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return Answer(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: data)
      }
      let port = url.port!
      let foreign = try await post(["Origin": "http://evil.example"])
      #expect(foreign.status == 403)
      #expect(
        foreign.text.contains(
          "the preview takes requests from its own page only, not from 'http://evil.example'"))
      let rebound = try await post(["Host": "evil.example:\(port)"])
      #expect(rebound.status == 403)
      #expect(rebound.text.contains("the preview answers requests for 127.0.0.1 only"))
      let plain = try await post([:], contentType: "text/plain")
      #expect(plain.status == 403)
      #expect(plain.text.contains("a command is JSON"))
      let own = try await post(["Origin": "http://127.0.0.1:\(port)"])
      #expect(own.status == 200)
    }
  }

  @Test func withALocaleScreensShowInItAndTheCopiedScriptSaysSo() async throws {
    try await withServer(locale: "de") { url in
      var state = try await request(url, "/api/command", post: PreviewCommand(command: "launch")).state()
      #expect(state.screen == "onboarding.welcome")
      #expect(state.screenHTML.contains("Willkommen bei Wellflow"))
      #expect(state.screenHTML.contains(">Weiter</button>"))
      #expect(!state.screenHTML.contains("Welcome to Wellflow"))
      state = try await request(url, "/api/command", post: action("tap", "continue")).state()
      let script = try await request(url, "/api/script").text
      #expect(script.contains("\nlocale: de\n"))
      let file = workspace.write("german.yaml", script)
      let outcome = await wellflowRun([file])
      #expect(outcome.code == 0, "\(outcome.errText)")
    }
    #expect(throws: PreviewError("unknown locale 'fr' (locales: en, de)")) {
      try PreviewSession.make(experimentsPath: nil, locale: "fr")
    }
  }

  @Test func fileDeclaredVariantsCanBeStartedAndTheirScriptRunsWithTheFile() async throws {
    let experiments = workspace.write(
      "variants.yaml",
      """
      experiments:
        - key: checkin-mini
          flow: checkin
          variations: [full, mini]
      variants: {checkin: {mini: {steps: [sensing, acting]}}}
      """)
    try await withServer(experiments: experiments) { url in
      var state = try await request(url, "/api/state").state()
      #expect(state.flows.first { $0.id == "checkin" }?.variants.contains("mini") == true)
      state = try await request(
        url, "/api/command", post: PreviewCommand(command: "start", flow: "checkin", variant: "mini")
      ).state()
      #expect(state.stack == ["checkin (mini)"])
      #expect(state.screen == "checkin.sensing")
      state = try await request(url, "/api/command", post: action("tap", "continue")).state()
      #expect(state.screen == "checkin.acting")
      let script = try await request(url, "/api/script").text
      #expect(script.contains("--experiments \(experiments)"))
      let file = workspace.write("mini.yaml", script)
      let outcome = await wellflowRun([file]) { $0.experimentsPath = experiments }
      #expect(outcome.code == 0, "\(outcome.errText)")
    }
  }

  @Test func aGrowthBookPayloadChoosesTheVariantOfAFlowStartedWithoutOne() async throws {
    // An experiment rule that puts everyone in `quick` by hashing: an exposure is recorded.
    let payload = workspace.write(
      "payload.json",
      """
      {"features": {"wellflow.checkin": {"defaultValue": "full", "rules": [
        {"id": "fr_length", "key": "checkin-length", "variations": ["full", "quick"], "weights": [0, 1],
         "meta": [{"key": "0"}, {"key": "1"}]}]}}}
      """)
    try await withServer(growthBook: payload) { url in
      var state = try await request(
        url, "/api/command", post: PreviewCommand(command: "start", flow: "checkin")
      )
      .state()
      #expect(state.stack == ["checkin (quick)"])
      #expect(
        state.events.contains { $0.event == "experiment_viewed" && $0.detail.contains("checkin-length") },
        "\(state.events)")
      // An explicit variant still wins.
      state = try await request(url, "/api/command", post: PreviewCommand(command: "reset")).state()
      state = try await request(
        url, "/api/command", post: PreviewCommand(command: "start", flow: "checkin", variant: "full")
      ).state()
      #expect(state.stack == ["checkin (full)"])
      state = try await request(url, "/api/command", post: PreviewCommand(command: "reset")).state()
      state = try await request(url, "/api/command", post: PreviewCommand(command: "start", flow: "checkin"))
        .state()
      #expect(state.screen == "checkin.sensing")
      let script = try await request(url, "/api/script").text
      #expect(script.contains("--growthbook \(payload)"))
      // The copied script passes with the same payload (quick has no pet screen).
      let file = workspace.write("quick.yaml", script)
      let outcome = await wellflowRun([file]) { $0.growthBookPath = payload }
      #expect(outcome.code == 0, "\(outcome.errText)")
    }
  }

  @Test func aWrongGrowthBookPayloadIsRefusedWithItsPosition() throws {
    let payload = workspace.write(
      "bad.json",
      #"{"features": {"wellflow.checkin": {"defaultValue": "full", "rules": [{"force": "quik"}]}}}"#)
    let error = #expect(throws: PreviewError.self) {
      try PreviewSession.make(experimentsPath: nil, growthBookPath: payload)
    }
    let lines = workspace.relative((error?.description ?? "").components(separatedBy: "\n"))
    #expect(
      lines == [
        "bad.json:1:80: feature 'wellflow.checkin': 'quik' is not a variant of flow 'checkin' (did you mean 'quick'?) (variants: full, quick)",
        "1 problem found in the GrowthBook payload",
      ])
  }

  @Test func theEventStreamPushesTheStateOnEveryChange() async throws {
    try await withServer { url in
      let port = try #require(url.port)
      let stream = try EventStreamClient(port: port)
      defer { stream.close() }
      let first = try await stream.nextData()
      #expect(first.contains("\"revision\":"))
      _ = try await request(
        url, "/api/command", post: PreviewCommand(command: "start", flow: "onboarding", variant: "short"))
      var pushed = ""
      for _ in 0..<10 {
        pushed = try await stream.nextData()
        if pushed.contains("\"screen\":\"onboarding.welcome\"") { break }
      }
      #expect(pushed.contains("\"screen\":\"onboarding.welcome\""))
      #expect(pushed.contains("aria-valuetext=\\\"Step 1 of 3\\\""))
    }
  }

  @Test func badCommandsAreRefusedWithAMessage() async throws {
    try await withServer { url in
      let unknown = try await request(url, "/api/command", post: PreviewCommand(command: "dance"))
      #expect(unknown.status == 400)
      #expect(unknown.text.contains("unknown command 'dance'"))
      let noTimer = try await request(
        url, "/api/command", post: PreviewCommand(command: "advance", toNextTimer: true))
      #expect(noTimer.text.contains("no timer is pending"))
      let badAmount = try await request(
        url, "/api/command", post: PreviewCommand(command: "advance", amount: "-1d"))
      #expect(badAmount.text.contains("advance takes an amount and a unit"))
      let noFlow = try await request(url, "/api/command", post: action("tap", "continue"))
      #expect(noFlow.text.contains("no flow is presented"))
      let missing = try await request(url, "/nowhere")
      #expect(missing.status == 404)
    }
  }

  /// Typed control and format characters are written as escapes, and the copied script
  /// runs with the text as typed (the loader refuses them raw in a file).
  @Test func typedControlAndFormatCharactersAreCopiedEscapedAndTheScriptRuns() async throws {
    let typed = "clear\u{1B}[2J bell\u{07} \u{202E}desrever\u{202C} nel\u{85} \u{2028}\u{FEFF} 👨\u{200D}👩 é"
    try await withServer { url in
      _ = try await request(url, "/api/command", post: PreviewCommand(command: "start", flow: "mood.log"))
      let entered = try await request(url, "/api/command", post: action("enter", "notes", text: typed))
      #expect(entered.status == 200, "\(entered.text)")
      let script = try await request(url, "/api/script").text
      #expect(
        script.contains(
          #"  - enter: {notes: "clear\u001B[2J bell\u0007 \u202Edesrever\u202C nel\u0085 \u2028\uFEFF 👨"#
            + "\u{200D}👩 é\"}"
        ), "\(script)")
      #expect(
        !script.unicodeScalars.contains {
          $0.properties.generalCategory == .control && $0 != "\n" || $0 == "\u{202E}"
        })
      // The runner reads back exactly what was typed.
      let file = workspace.write(
        "typed-controls.yaml",
        script + "  - tap: save\n  - expect: {data: {mood.latest.notes: \(yamlQuoted(typed))}}\n")
      let outcome = await wellflowRun([file])
      #expect(outcome.code == 0, "\(outcome.errText)")
    }
  }

  /// A connection that never finishes its request is closed after the request timeout
  /// (`serve`'s mechanism); an event stream, a request read whole, is not cut off by it.
  @Test func aHalfSentRequestIsClosedAfterTheRequestTimeout() async throws {
    let session = try PreviewSession.make(experimentsPath: nil)
    try await withServer(session: session, requestTimeout: 0.2) { url in
      let port = try #require(url.port)
      let events = try EventStreamClient(port: port)
      defer { events.close() }
      _ = try await events.nextData()
      // A request whose head never ends: only the timeout answers it.
      let halfSent = try EventStreamClient(
        port: port, request: "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")
      defer { halfSent.close() }
      let rest = await halfSent.remainder()
      #expect(rest == .closed(""))
      // The stream outlived the timeout (the half-sent request waited for it) and still pushes.
      let revision = session.revision
      _ = try? await session.perform(PreviewCommand(command: "dance"))
      var pushed = try JSONDecoder().decode(PreviewState.self, from: Data(try await events.nextData().utf8))
      while pushed.revision <= revision {
        pushed = try JSONDecoder().decode(PreviewState.self, from: Data(try await events.nextData().utf8))
      }
      #expect(pushed.revision > revision)
    }
  }

  /// Every open page gets each change, computed once for all of them.
  @Test func oneChangeIsComputedOnceForAllOpenPages() async throws {
    let session = try PreviewSession.make(experimentsPath: nil)
    try await withServer(session: session) { url in
      let port = try #require(url.port)
      // The app's first change (its host opening) is heard before the count starts.
      let deadline = ContinuousClock.now + .seconds(600)
      while session.revision < 1, ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(10))
      }
      #expect(session.revision >= 1)
      let pages = try (0..<6).map { _ in try EventStreamClient(port: port) }
      defer { for page in pages { page.close() } }
      func next(_ page: EventStreamClient) async throws -> PreviewState {
        try JSONDecoder().decode(PreviewState.self, from: Data(try await page.nextData().utf8))
      }
      for page in pages {
        var state = try await next(page)
        while state.revision < session.revision { state = try await next(page) }
      }
      let (before, revision) = (session.stateComputations, session.revision)
      // A refused command is one change: the pages show it happened.
      await #expect(throws: PreviewError.self) { try await session.perform(PreviewCommand(command: "dance")) }
      for page in pages {
        #expect(try await next(page).revision == revision + 1)
      }
      #expect(session.stateComputations - before == 1)
    }
  }

  /// `wellflow preview` itself, as a person runs it: SIGTERM or SIGINT (Ctrl-C) ends the
  /// pages' event streams (their responses end properly, open or already closed by the
  /// page) and then the process. The 10-minute bounds only stop a hang.
  @Test(arguments: [SIGTERM, SIGINT])
  func aSignalEndsTheEventStreamsAndThePreview(signal: Int32) async throws {
    let preview = try PreviewProcess()
    defer { preview.kill() }
    let banner = try #require(
      await preview.waitForLine { $0.hasPrefix("previewing the flows on http://127.0.0.1:") },
      "\(preview.output)")
    #expect(banner.hasSuffix(" (Ctrl-C stops)"))
    let port = try #require(
      Int(banner.dropFirst("previewing the flows on http://127.0.0.1:".count).prefix { $0.isNumber }))
    let pages = try (0..<2).map { _ in try EventStreamClient(port: port) }
    defer { for page in pages { page.close() } }
    for page in pages { _ = try await page.nextData() }
    let closedPage = try EventStreamClient(port: port)
    _ = try await closedPage.nextData()
    closedPage.close()

    preview.signal(signal)
    for page in pages {
      let rest = await page.remainder()
      // The last chunk of the response: the stream was ended, not cut off.
      guard case .closed(let text) = rest else {
        Issue.record("the stream did not end: \(rest)")
        continue
      }
      #expect(text.hasSuffix("0\r\n\r\n"), "\(text)")
    }
    let status = await preview.waitForExit(deadline: .seconds(600))
    #expect(status == .exited(0), "\(preview.output)")
  }
}

/// `wellflow preview --port 0` (or other arguments), the executable built beside the tests,
/// in a process of its own.
final class PreviewProcess: @unchecked Sendable {
  enum Status: Equatable {
    case exited(Int32)
    case signalled(Int32)
    case stillRunning
  }

  private let process = Process()
  private let lines = Locked<[String]>([])

  /// `wellflow ARGUMENTS` in `folder` (the current one if nil).
  init(_ arguments: [String] = ["preview", "--port", "0"], in folder: URL? = nil) throws {
    process.executableURL = try Self.executable()
    process.arguments = arguments
    if let folder { process.currentDirectoryURL = folder }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    Self.readLines(from: pipe.fileHandleForReading, into: lines)
  }

  /// Reads `handle` to its end on a thread of its own, a line at a time into `lines`;
  /// `ended` runs once the output has ended.
  static func readLines(
    from handle: FileHandle, into lines: Locked<[String]>, ended: @escaping @Sendable () -> Void = {}
  ) {
    Thread {
      defer { ended() }
      var pending = Data()
      while case let data = handle.availableData, !data.isEmpty {
        pending.append(data)
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
          lines.withLock { $0.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)) }
          pending.removeSubrange(pending.startIndex...newline)
        }
      }
    }.start()
  }

  var output: [String] { lines.current }

  /// The first line that matches, waiting up to 10 minutes (a bound on a hang, not a speed).
  func waitForLine(_ matches: @escaping (String) -> Bool) async -> String? {
    let deadline = ContinuousClock.now + .seconds(600)
    while ContinuousClock.now < deadline {
      if let line = lines.current.first(where: matches) { return line }
      if !process.isRunning { break }
      try? await Task.sleep(for: .milliseconds(10))
    }
    // A sleep that ended late (every thread busy) still sees a line that came meanwhile.
    return lines.current.first(where: matches)
  }

  func signal(_ signal: Int32) { Foundation.kill(process.processIdentifier, signal) }
  func kill() { if process.isRunning { signal(SIGKILL) } }

  func waitForExit(deadline: Duration) async -> Status {
    let end = ContinuousClock.now + deadline
    while process.isRunning, ContinuousClock.now < end { try? await Task.sleep(for: .milliseconds(10)) }
    guard !process.isRunning else { return .stillRunning }
    return process.terminationReason == .exit
      ? .exited(process.terminationStatus) : .signalled(process.terminationStatus)
  }

  /// `wellflow` in the products folder the test bundle was built into.
  static func executable() throws -> URL {
    var folders = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
    folders += Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
    for folder in folders {
      var url = folder
      // Inside an .xctest bundle on macOS the products folder is a few levels up.
      for _ in 0..<4 {
        let candidate = url.appendingPathComponent("wellflow")
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isFolder),
          !isFolder.boolValue,
          FileManager.default.isExecutableFile(atPath: candidate.path)
        {
          return candidate
        }
        url.deleteLastPathComponent()
      }
    }
    throw PreviewError(
      "wellflow not found near \(folders.map(\.path)); build it first (swift build --build-tests)")
  }
}

/// A bare HTTP client for `GET /api/events`: reads Server-Sent Events off a socket.
final class EventStreamClient: @unchecked Sendable {
  private let socketFD: Int32
  private var buffer = ""

  init(
    port: Int,
    request: String = "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"
  ) throws {
    #if canImport(Glibc)
      socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      socketFD = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else { throw PreviewError("cannot connect to the preview") }
    var timeout = timeval(tv_sec: 300, tv_usec: 0)
    setsockopt(socketFD, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    _ = request.withCString { send(socketFD, $0, strlen($0), 0) }
  }

  /// The next `data:` payload.
  func nextData() async throws -> String {
    try await Self.onThread { [self] in Result { try self.readData() } }.get()
  }

  /// Runs a blocking read on a thread of its own: many pages reading at once would
  /// otherwise hold every thread of the concurrency pool, the server's handlers included.
  private static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
      Thread { continuation.resume(returning: body()) }.start()
    }
  }

  private func readData() throws -> String {
    while true {
      if let start = buffer.range(of: "data: "),
        let end = buffer.range(of: "\n\n", range: start.upperBound..<buffer.endIndex)
      {
        let payload = String(buffer[start.upperBound..<end.lowerBound])
        buffer.removeSubrange(buffer.startIndex..<end.upperBound)
        return payload
      }
      var bytes = [UInt8](repeating: 0, count: 65_536)
      let count = recv(socketFD, &bytes, bytes.count, 0)
      guard count > 0 else { throw PreviewError("the event stream ended") }
      buffer += String(decoding: bytes[0..<count], as: UTF8.self)
    }
  }

  enum Remainder: Equatable {
    /// The server closed the connection after sending this.
    case closed(String)
    /// Nothing came for the socket's 300 s read timeout (a bound on a hang), or an error.
    case open(String)
  }

  /// What else arrives until the server closes the connection.
  func remainder() async -> Remainder {
    await Self.onThread { [self] in
      var text = buffer
      buffer = ""
      while true {
        var bytes = [UInt8](repeating: 0, count: 65_536)
        let count = recv(socketFD, &bytes, bytes.count, 0)
        if count == 0 { return .closed(text) }
        if count < 0 { return .open(text) }
        text += String(decoding: bytes[0..<count], as: UTF8.self)
      }
    }
  }

  func close() {
    shutdown(socketFD, Int32(SHUT_RDWR))
    #if canImport(Glibc)
      Glibc.close(socketFD)
    #else
      Darwin.close(socketFD)
    #endif
  }
}
