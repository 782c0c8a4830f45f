import Foundation
import Testing
import WellflowCore

/// Where `serve` and `token` take their secrets from, and when `serve` refuses to start.
@Suite struct ServerSecretsTests {
  typealias Source = ServerSecrets.Source
  let strong = String(repeating: "s", count: 32)

  func resolve(
    apiKey: Source = .init(), jwtSecret: Source = .init(), host: String? = "127.0.0.1",
    environment: [String: String] = [:], files: [String: String] = [:]
  ) throws(ServerSecrets.Problem) -> ServerSecrets {
    try ServerSecrets.resolve(
      apiKey: apiKey, jwtSecret: jwtSecret, host: host, environment: environment,
      readFile: { path in
        guard let text = files[path] else { throw CocoaError(.fileReadNoSuchFile) }
        return text
      })
  }

  @Test func onLoopbackTheDefaultsServeAndACommandLineSecretIsWarnedAbout() throws {
    let defaults = try resolve()
    #expect(defaults == ServerSecrets(apiKey: "wellflow-dev-key", jwtSecret: "wellflow-dev-secret"))
    let given = try resolve(apiKey: .init(value: "k"), jwtSecret: .init(value: "s"), host: "localhost")
    #expect(given.apiKey == "k" && given.jwtSecret == "s")
    #expect(
      given.warnings == [
        "--api-key on the command line is readable by anyone on this machine (in /proc); $WELLFLOW_API_KEY or --api-key-file keeps it private",
        "--jwt-secret on the command line is readable by anyone on this machine (in /proc); $WELLFLOW_JWT_SECRET or --jwt-secret-file keeps it private",
      ])
    // `token` binds nothing: no warning.
    #expect(try resolve(jwtSecret: .init(value: "s"), host: nil).warnings.isEmpty)
  }

  @Test func aFileWinsOverTheEnvironmentAndLosesItsOneTrailingNewline() throws {
    let secrets = try resolve(
      apiKey: .init(file: "/k"), jwtSecret: .init(file: "/s"),
      environment: ["WELLFLOW_API_KEY": "env-key", "WELLFLOW_JWT_SECRET": "env-secret"],
      files: ["/k": "file-key\n", "/s": strong + "\r\n"])
    #expect(secrets == ServerSecrets(apiKey: "file-key", jwtSecret: strong))
    let fromEnvironment = try resolve(environment: [
      "WELLFLOW_API_KEY": "env-key", "WELLFLOW_JWT_SECRET": strong,
    ])
    #expect(fromEnvironment == ServerSecrets(apiKey: "env-key", jwtSecret: strong))
  }

  @Test func badSourcesAreRefusedWithASentence() {
    #expect(throws: ServerSecrets.Problem(description: "give --jwt-secret or --jwt-secret-file, not both")) {
      try resolve(jwtSecret: .init(value: "s", file: "/s"), files: ["/s": "x"])
    }
    #expect(throws: ServerSecrets.Problem(description: "--api-key-file '/k' is empty")) {
      try resolve(apiKey: .init(file: "/k"), files: ["/k": "\n"])
    }
    #expect(throws: ServerSecrets.Problem(description: "--jwt-secret must not be empty")) {
      try resolve(jwtSecret: .init(value: ""))
    }
    do {
      _ = try resolve(jwtSecret: .init(file: "/missing"))
      Issue.record("a missing file was read")
    } catch {
      #expect(error.description.hasPrefix("cannot read --jwt-secret-file '/missing': "), "\(error)")
    }
  }

  @Test func beyondLoopbackNoDefaultNoCommandLineAndNoShortSecret() throws {
    #expect(
      throws: ServerSecrets.Problem(
        description:
          "a server listening on 0.0.0.0 is reachable from other machines: give it its own API key and JWT secret in $WELLFLOW_API_KEY and $WELLFLOW_JWT_SECRET (or --api-key-file and --jwt-secret-file), not the development defaults"
      )
    ) { try resolve(host: "0.0.0.0") }
    #expect(
      throws: ServerSecrets.Problem(
        description:
          "--jwt-secret on the command line is readable by anyone on this machine; a server listening on 10.0.0.5 takes its JWT secret from $WELLFLOW_JWT_SECRET or --jwt-secret-file"
      )
    ) {
      try resolve(jwtSecret: .init(value: strong), host: "10.0.0.5", environment: ["WELLFLOW_API_KEY": "k"])
    }
    #expect(
      throws: ServerSecrets.Problem(
        description:
          "a server listening on 0.0.0.0 needs a JWT secret of at least 32 bytes; this one has 31 (e.g. `openssl rand -hex 32`)"
      )
    ) {
      try resolve(
        host: "0.0.0.0",
        environment: ["WELLFLOW_API_KEY": "k", "WELLFLOW_JWT_SECRET": String(strong.dropLast())])
    }
    let served = try resolve(
      host: "0.0.0.0", environment: ["WELLFLOW_API_KEY": "k", "WELLFLOW_JWT_SECRET": strong])
    #expect(served == ServerSecrets(apiKey: "k", jwtSecret: strong))
  }

  @Test func loopbackIsThisMachineOnly() {
    for host in ["127.0.0.1", "127.1.2.3", "localhost", "LOCALHOST", "::1", "[::1]"] {
      #expect(ServerSecrets.isLoopback(host), "\(host)")
    }
    for host in ["0.0.0.0", "::", "10.0.0.5", "127.0.0.1.example.com", "127.0.0", "128.0.0.1", "example.com"]
    {
      #expect(!ServerSecrets.isLoopback(host), "\(host)")
    }
  }

  /// Through the real command: refused before it binds, exit 2, one sentence.
  @Test func serveRefusesToStartBeyondLoopbackWithTheDefaults() throws {
    let binary = try PreviewProcess.executable()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wellflow-secrets-\(UUID())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let result = try DocumentedCommands.bash(
      "env -u WELLFLOW_API_KEY -u WELLFLOW_JWT_SECRET \"$WELLFLOW\" serve --host 0.0.0.0 --port 0",
      binary: binary, in: folder)
    #expect(result.status == 2)
    #expect(
      result.output
        == "wellflow serve: a server listening on 0.0.0.0 is reachable from other machines: give it its own API key and JWT secret in $WELLFLOW_API_KEY and $WELLFLOW_JWT_SECRET (or --api-key-file and --jwt-secret-file), not the development defaults\n"
    )
  }
}
