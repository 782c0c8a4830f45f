import FlowKit
import Foundation

/// What the explorer learns about one presented coordinator.
@MainActor
final class FlowProbe {
  var made = false
  weak var coordinator: (any PresentableFlow)?
  weak var wrapper: ObservedFlow?
  var typeName = ""
  var endings: [FlowEnding] = []
}

/// The probe of the replay being built, read by the wrapped factory.
@MainActor
final class ProbeSlot {
  var current: FlowProbe?
}

/// Forwards to the flow, counting every ending it reports (the host ignores all but
/// the first, so only here can a second one be seen).
@MainActor
final class ObservedFlow: PresentableFlow {
  private let inner: any PresentableFlow
  private let probe: FlowProbe

  init(_ inner: any PresentableFlow, probe: FlowProbe) {
    self.inner = inner
    self.probe = probe
    probe.made = true
    probe.coordinator = inner
    probe.typeName = String(describing: type(of: inner))
    probe.wrapper = self
  }

  var screen: Screen { inner.screen }
  var isRunning: Bool { inner.isRunning }
  func send(_ action: UserAction) throws(ActionError) { try inner.send(action) }
  func perform(_ action: UserAction) throws(ActionError) { try inner.perform(action) }
  func cancel(_ reason: CancelReason) { inner.cancel(reason) }

  func start(reportingTo report: @escaping @MainActor (FlowEnding) -> Void) {
    let probe = probe
    inner.start { ending in
      probe.endings.append(ending)
      report(ending)
    }
  }
}

extension FlowExplorer {
  /// The same registry with the explored flow wrapped so its endings and its
  /// coordinator's lifetime can be observed.
  static func observing(_ registry: FlowRegistry, flow: String, slot: ProbeSlot) throws(RegistryError)
    -> FlowRegistry
  {
    var wrapped = FlowRegistry()
    for definition in registry.flows {
      var make = definition.make
      if definition.id == flow {
        let base = make
        make = { @MainActor context in
          let inner = base(context)
          guard let probe = slot.current, !probe.made else { return inner }
          return ObservedFlow(inner, probe: probe)
        }
      }
      try wrapped.register(
        FlowDefinition(
          id: definition.id, summary: definition.summary, variants: definition.variants,
          defaultVariant: definition.defaultVariant, screens: definition.screens,
          stepVariants: definition.stepVariants, variantSteps: definition.variantSteps, make: make))
    }
    for query in registry.queries { try wrapped.register(query) }
    for rule in registry.launchRules { try wrapped.register(rule) }
    return wrapped
  }
}
