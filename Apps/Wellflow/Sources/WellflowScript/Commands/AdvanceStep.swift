import FlowKit
import Foundation

/// `- advance: 1d`: moves the app's clock, firing the timers due on the way.
struct AdvanceStep: ScriptCommand {
  static let name = "advance"
  static let takes = CommandValue.required

  let advance: ClockAdvance

  static func load(_ input: CommandInput, into loader: inout ScriptLoader) -> LoadedCommand? {
    guard let advance = loader.clockAdvance(input.value) else { return nil }
    return (Self(advance: advance), "advance \(input.value.text)")
  }

  static func schema(in builder: inout SchemaBuilder) -> SchemaJSON {
    SchemaBuilder.described(
      "An amount and a unit: s, m, h or d (calendar days at the same local time), e.g. 1d or 90m.",
      SchemaBuilder.anyOf([
        .object([("type", .string("string")), ("pattern", .string("^[0-9]+(\\.[0-9]+)?[smhd]$"))]),
        builder.variable(),
      ]))
  }

  @MainActor func run(_ running: RunningStep) async throws(ScriptRunner.StepFailure) -> StepCompletion {
    let clock = running.session.clock
    let now = clock.now
    let next =
      switch advance {
      case .seconds(let seconds): now.addingTimeInterval(seconds)
      case .days(let days): clock.calendar.date(byAdding: .day, value: days, to: now)
      }
    guard let next, next < ScriptRunner.endOfTime else {
      throw running.fail("advance failed: the clock would pass the end of year 9999")
    }
    // The host fires the timers due on the way, each at its own time.
    if let host = running.host { await host.advanceClock(to: next) } else { clock.set(next) }
    return .settle
  }
}

public enum ClockAdvance: Sendable, Equatable {
  case seconds(Double)
  case days(Int)
}
