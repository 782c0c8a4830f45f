import Foundation

/// The API key and JWT secret of `wellflow serve` (and the secret of `wellflow token`),
/// from the first place that has one: a file (`--api-key-file`, `--jwt-secret-file`), the
/// command line (`--api-key`, `--jwt-secret`: readable by anyone on the machine in
/// `/proc`, so `serve` warns), the environment (`WELLFLOW_API_KEY`,
/// `WELLFLOW_JWT_SECRET`), else the development defaults. A server that listens beyond
/// loopback takes no default and no secret from the command line, and a JWT secret of at
/// least `minimumSecretBytes`.
public struct ServerSecrets: Sendable, Equatable {
  public var apiKey: String
  public var jwtSecret: String
  /// What a person should hear before the server starts (printed to standard error).
  public var warnings: [String] = []

  public init(apiKey: String, jwtSecret: String, warnings: [String] = []) {
    self.apiKey = apiKey
    self.jwtSecret = jwtSecret
    self.warnings = warnings
  }

  public static let developmentAPIKey = "wellflow-dev-key"
  public static let developmentJWTSecret = "wellflow-dev-secret"
  public static let apiKeyVariable = "WELLFLOW_API_KEY"
  public static let jwtSecretVariable = "WELLFLOW_JWT_SECRET"
  /// HS256's key should be as long as its hash (RFC 7518 §3.2).
  public static let minimumSecretBytes = 32

  /// Where one secret may come from.
  public struct Source: Sendable {
    public var value: String?
    public var file: String?

    public init(value: String? = nil, file: String? = nil) {
      self.value = value
      self.file = file
    }
  }

  public struct Problem: Error, Equatable, CustomStringConvertible {
    public var description: String

    public init(description: String) { self.description = description }
  }

  /// `host` is where `serve` binds (nil for `token`, which binds nothing).
  public static func resolve(
    apiKey: Source, jwtSecret: Source, host: String?, environment: [String: String],
    readFile: (String) throws -> String = { try String(contentsOfFile: $0, encoding: .utf8) }
  ) throws(Problem) -> ServerSecrets {
    var warnings: [String] = []
    let beyondLoopback = host.map { !isLoopback($0) } ?? false
    func one(_ source: Source, option: String, variable: String, fallback: String, what: String)
      throws(Problem)
      -> (value: String, isDefault: Bool)
    {
      if source.value != nil, source.file != nil {
        throw Problem(description: "give --\(option) or --\(option)-file, not both")
      }
      if let file = source.file {
        let text: String
        do { text = try readFile(file) } catch {
          throw Problem(
            description: "cannot read --\(option)-file '\(file)': \((error as NSError).localizedDescription)")
        }
        // A file written by `echo` ends with a newline that is no part of the secret.
        var value = Substring(text)
        // ("\r\n" is one Character.)
        if value.hasSuffix("\r\n") || value.hasSuffix("\n") { value = value.dropLast() }
        guard !value.isEmpty else { throw Problem(description: "--\(option)-file '\(file)' is empty") }
        return (String(value), false)
      }
      if let value = source.value {
        guard !value.isEmpty else { throw Problem(description: "--\(option) must not be empty") }
        if host != nil {
          guard !beyondLoopback else {
            throw Problem(
              description:
                "--\(option) on the command line is readable by anyone on this machine; a server listening on \(host!) takes \(what) from $\(variable) or --\(option)-file"
            )
          }
          warnings.append(
            "--\(option) on the command line is readable by anyone on this machine (in /proc); $\(variable) or --\(option)-file keeps it private"
          )
        }
        return (value, false)
      }
      if let value = environment[variable], !value.isEmpty { return (value, false) }
      return (fallback, true)
    }
    let key = try one(
      apiKey, option: "api-key", variable: apiKeyVariable, fallback: developmentAPIKey, what: "its API key")
    let secret = try one(
      jwtSecret, option: "jwt-secret", variable: jwtSecretVariable, fallback: developmentJWTSecret,
      what: "its JWT secret")
    if beyondLoopback, let host {
      if key.isDefault || secret.isDefault {
        throw Problem(
          description:
            "a server listening on \(host) is reachable from other machines: give it its own API key and JWT secret in $\(apiKeyVariable) and $\(jwtSecretVariable) (or --api-key-file and --jwt-secret-file), not the development defaults"
        )
      }
      let bytes = secret.value.utf8.count
      if bytes < minimumSecretBytes {
        throw Problem(
          description:
            "a server listening on \(host) needs a JWT secret of at least \(minimumSecretBytes) bytes; this one has \(bytes) (e.g. `openssl rand -hex 32`)"
        )
      }
    }
    return ServerSecrets(apiKey: key.value, jwtSecret: secret.value, warnings: warnings)
  }

  /// Whether `host` is this machine only: 127.0.0.0/8, ::1 or localhost.
  public static func isLoopback(_ host: String) -> Bool {
    let host = host.lowercased()
    if host == "localhost" || host == "::1" || host == "[::1]" { return true }
    let parts = host.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
  }
}
