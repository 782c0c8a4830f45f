import ArgumentParser
import FlowKit
import Foundation
import ProgressBackend
import WellflowCore

struct Token: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "token",
    abstract: "Print a bearer token for USER: an HS256 JWT whose sub is the user.")

  @Argument(help: "The user id the token names.")
  var user: String

  @Option(name: .customLong("jwt-secret"), help: "The secret the server was started with.")
  var jwtSecret: String?

  @Option(
    name: .customLong("jwt-secret-file"),
    help: "Read the secret from this file (else --jwt-secret, $WELLFLOW_JWT_SECRET, the default).")
  var jwtSecretFile: String?

  @Option(help: "How long the token lasts: a number and s, m, h or d (e.g. 90m, 1h, 7d).")
  var ttl: String = "1h"

  @Option(name: .customLong("jwt-issuer"), help: "The iss to put in the token (serve --jwt-issuer).")
  var jwtIssuer: String?

  @Option(name: .customLong("jwt-audience"), help: "The aud to put in the token (serve --jwt-audience).")
  var jwtAudience: String?

  func validate() throws {
    guard JWT.parseTTL(ttl) != nil else {
      throw ValidationError("--ttl takes e.g. 90s, 30m, 1h or 7d (at most 3660d), got '\(ttl)'")
    }
    // The server refuses a token for such a user, so none is printed.
    if let problem = UserID.problem(with: user) {
      throw ValidationError("USER \(problem) (\(UserID.rule))")
    }
  }

  func run() throws {
    let secrets: ServerSecrets
    do {
      secrets = try ServerSecrets.resolve(
        apiKey: .init(), jwtSecret: .init(value: jwtSecret, file: jwtSecretFile), host: nil,
        environment: ProcessInfo.processInfo.environment)
    } catch {
      throw ValidationError("\(error)")
    }
    StandardStreams.out(
      try JWT.issue(
        subject: user, secret: secrets.jwtSecret, now: Date(), ttl: JWT.parseTTL(ttl)!, issuer: jwtIssuer,
        audience: jwtAudience) + "\n")
  }
}
