import FlowKit
import Foundation
import WellflowCore

/// What `wellflow run` printed and returned.
struct RunOutcome {
  var code: Int32
  var out: [String]
  var err: [String]

  var outText: String { out.joined(separator: "\n") }
  var errText: String { err.joined(separator: "\n") }
}

@MainActor
func wellflowRun(_ paths: [String], _ configure: (inout RunConfiguration) -> Void = { _ in }) async
  -> RunOutcome
{
  let out = Locked<[String]>([])
  let err = Locked<[String]>([])
  var configuration = RunConfiguration(paths: paths)
  configure(&configuration)
  let code = await RunCommand.execute(
    configuration,
    console: Console(
      out: { text in out.withLock { $0.append(text) } }, err: { text in err.withLock { $0.append(text) } }))
  return RunOutcome(code: code, out: out.current, err: err.current)
}
