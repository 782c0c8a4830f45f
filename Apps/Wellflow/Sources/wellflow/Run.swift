import ArgumentParser
import Foundation
import WellflowCore

/// The command is its configuration: every option is declared once, in WellflowCore, and
/// the command adds no level of options around it.
typealias Run = RunConfiguration

extension Run: AsyncParsableCommand {
  public func run() async throws {
    var configuration = self
    configuration.executable = RunConfiguration.ownExecutable()
    let code = await RunCommand.execute(configuration)
    if code != 0 { throw ExitCode(code) }
  }
}
