import Foundation

/// How a flow came to be presented (recorded in analytics, read by features).
public struct FlowTrigger: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public var rawValue: String
  public init(rawValue: String) { self.rawValue = rawValue }

  /// A launch rule presented it (the daily check-in).
  public static let launch = FlowTrigger(rawValue: "launch")
  /// The person opened it.
  public static let manual = FlowTrigger(rawValue: "manual")
  /// A notification opened it.
  public static let notification = FlowTrigger(rawValue: "notification")
  /// A follow-up rule presented it after another flow ended (a context check-in).
  public static let event = FlowTrigger(rawValue: "event")

  public var description: String { rawValue }
}

/// A request to present a flow: by id, optionally a variant, with a trigger.
public struct FlowRequest: Sendable, Equatable, CustomStringConvertible {
  public var flow: String
  public var variant: String?
  public var trigger: FlowTrigger

  public init(flow: String, variant: String? = nil, trigger: FlowTrigger = .manual) {
    self.flow = flow
    self.variant = variant
    self.trigger = trigger
  }

  public var description: String {
    flow + (variant.map { " (\($0))" } ?? "")
  }
}

/// A screen a flow can show, declared up front so scripts can be checked before they
/// run: its id, its element ids and the alerts it can raise with their buttons.
public struct ScreenDeclaration: Sendable, Equatable {
  public var id: String
  public var elements: [String]
  public var alerts: [AlertDeclaration]
  /// The elements a person types into: reports show their values as lengths only.
  public var textFields: [String]
  /// The option ids of each choice whose options never change (the check-in's emotions),
  /// so scripts' option values are checked before they run. A choice whose options come
  /// from data (a list of entries) is left out and checked when it is shown.
  public var options: [String: [String]]

  public init(
    _ id: String, elements: [String], alerts: [AlertDeclaration] = [], textFields: [String] = [],
    options: [String: [String]] = [:]
  ) {
    self.id = id
    self.elements = elements
    self.alerts = alerts
    self.textFields = textFields
    self.options = options
  }
}

public struct AlertDeclaration: Sendable, Equatable {
  public var id: String
  public var buttons: [String]
  public init(_ id: String, buttons: [String]) {
    self.id = id
    self.buttons = buttons
  }
}

/// What a flow's factory receives.
@MainActor
public struct FlowContext {
  public let request: FlowRequest
  /// The variant to build (the request's, or the flow's default).
  public let variant: String
  public let environment: HostEnvironment
  /// Runs async work that the host tracks, so a runner can `settle()`.
  public let work: WorkTracker

  /// Hosts build contexts; tests build one to drive a factory's coordinator directly.
  public init(request: FlowRequest, variant: String, environment: HostEnvironment, work: WorkTracker) {
    self.request = request
    self.variant = variant
    self.environment = environment
    self.work = work
  }

  public var trigger: FlowTrigger { request.trigger }
}

/// A flow a feature registers.
public struct FlowDefinition: Sendable {
  public let id: String
  public let summary: String
  public let variants: [String]
  public let defaultVariant: String
  public let screens: [ScreenDeclaration]
  public let make: @MainActor (FlowContext) -> any PresentableFlow
  /// Set by a flow whose variants are lists of its steps, so new variants can be
  /// declared without code (`variants:` in an experiment file).
  public let stepVariants: StepVariants?
  /// Each variant's step list, for variants built from steps (including the flow's own
  /// when it says so).
  public let variantSteps: [String: [String]]
  /// Data the flow needs before every screen can be reached (a list of entries needs an
  /// entry to edit), made through the app's own ports. Tools that explore a flow from a
  /// fresh app (`explore`, `graph`, `flows`) create it first; nothing else calls it.
  public let sampleData: (@MainActor @Sendable (HostEnvironment) async throws -> Void)?

  public init(
    id: String, summary: String, variants: [String], defaultVariant: String? = nil,
    screens: [ScreenDeclaration], stepVariants: StepVariants? = nil, variantSteps: [String: [String]] = [:],
    sampleData: (@MainActor @Sendable (HostEnvironment) async throws -> Void)? = nil,
    make: @escaping @MainActor (FlowContext) -> any PresentableFlow
  ) {
    self.id = id
    self.summary = summary
    self.variants = variants
    self.defaultVariant = defaultVariant ?? variants.first ?? "default"
    self.screens = screens
    self.stepVariants = stepVariants
    self.variantSteps = variantSteps
    self.sampleData = sampleData
    self.make = make
  }
}

extension FlowDefinition {
  /// The same flow, built by `make` (usually a wrapper around the flow's own `make`).
  public func replacingMake(_ make: @escaping @MainActor (FlowContext) -> any PresentableFlow)
    -> FlowDefinition
  {
    FlowDefinition(
      id: id, summary: summary, variants: variants, defaultVariant: defaultVariant, screens: screens,
      stepVariants: stepVariants, variantSteps: variantSteps, sampleData: sampleData, make: make)
  }
}

/// How a flow builds a variant from an ordered subset of its steps.
public struct StepVariants: Sendable {
  /// The flow's step names, in the order the flow shows them.
  public let steps: [String]
  /// Why a list of steps (already known to be an ordered subset of `steps`) cannot make a
  /// variant, in words a person can act on; nil when it can.
  public let check: @Sendable ([String]) -> String?
  /// Builds the variant showing `steps`, in that order.
  public let make: @MainActor (FlowContext, [String]) -> any PresentableFlow

  public init(
    steps: [String], check: @escaping @Sendable ([String]) -> String? = { _ in nil },
    make: @escaping @MainActor (FlowContext, [String]) -> any PresentableFlow
  ) {
    self.steps = steps
    self.check = check
    self.make = make
  }

  /// Why `list` cannot make a variant: empty, unknown or repeated steps, steps out of
  /// the flow's order, then the flow's own rule. nil when it can.
  public func problem(with list: [String]) -> String? {
    guard !list.isEmpty else { return "a variant needs at least one step" }
    var previous = -1
    for step in list {
      guard let index = steps.firstIndex(of: step) else {
        return "unknown step '\(step)' (steps: \(steps.joined(separator: ", ")))"
      }
      guard index > previous else {
        return list.filter({ $0 == step }).count > 1
          ? "step '\(step)' is listed twice"
          : "step '\(step)' is out of order (the flow's order: \(steps.joined(separator: ", ")))"
      }
      previous = index
    }
    return check(list)
  }
}

/// The type of a query's answer, so scripts' expected values can be checked early.
public enum QueryType: String, Sendable, Equatable {
  case bool, number, text, list
}

/// A value a query answers. Flags answer `false` and counts `0`, never `none`.
public enum QueryValue: Sendable, Equatable, CustomStringConvertible {
  case none
  case bool(Bool)
  case number(Double)
  case text(String)
  case list([String])

  public var description: String {
    switch self {
    case .none: "null"
    case .bool(let bool): "\(bool)"
    case .number(let number): formatNumber(number)
    case .text(let text): "\"\(text)\""
    case .list(let items): "[\(items.joined(separator: ", "))]"
    }
  }
}

/// Data that scripts may read with `expect: {data: …}`.
public struct QueryDefinition: Sendable {
  public let id: String
  public let type: QueryType
  public let summary: String
  /// Answers with text a person typed (notes): reports show it as its length.
  public let isFreeText: Bool
  public let resolve: @MainActor (HostEnvironment) async throws -> QueryValue

  public init(
    _ id: String, type: QueryType, summary: String, isFreeText: Bool = false,
    resolve: @escaping @MainActor (HostEnvironment) async throws -> QueryValue
  ) {
    self.id = id
    self.type = type
    self.summary = summary
    self.isFreeText = isFreeText
    self.resolve = resolve
  }
}

/// Asked at launch in priority order (highest first): the first whose condition holds
/// names the flow to present.
public struct LaunchRule: Sendable {
  public let id: String
  public let priority: Int
  public let request: FlowRequest
  public let applies: @MainActor (HostEnvironment) async throws -> Bool

  public init(
    id: String, priority: Int, request: FlowRequest,
    applies: @escaping @MainActor (HostEnvironment) async throws -> Bool
  ) {
    self.id = id
    self.priority = priority
    self.request = request
    self.applies = applies
  }
}

/// A context check-in: when flow `after` ends with `outcome` and `applies` holds, the
/// host presents `request` on top of whatever is shown, with trigger `event`. A flow
/// whose own output names a next flow (a check-in asking for the journal) goes there
/// instead; of several rules for the same ending, the first registered that applies wins.
///
///     registry.register(FollowUpRule(id: "low-mood-journal", after: "mood.log",
///         present: FlowRequest(flow: "journal")) { environment, ending in
///       (ending.output as? MoodEntry).map { $0.score <= 3 } ?? false
///     })
public struct FollowUpRule: Sendable {
  public let id: String
  /// The flow whose ending is watched.
  public let after: String
  public let outcome: FlowEnding.Outcome
  /// What to present; its trigger is always `event`.
  public let request: FlowRequest
  public let applies: @MainActor (HostEnvironment, FlowEnding) async throws -> Bool

  public init(
    id: String, after: String, outcome: FlowEnding.Outcome = .completed, present request: FlowRequest,
    applies: @escaping @MainActor (HostEnvironment, FlowEnding) async throws -> Bool = { _, _ in true }
  ) {
    self.id = id
    self.after = after
    self.outcome = outcome
    var request = request
    request.trigger = .event
    self.request = request
    self.applies = applies
  }
}

/// Work a feature starts beside its flows whenever a host is made (reminders arming
/// their delivery on the host's clock). It runs once per host, after composition.
public struct HostActivation: Sendable {
  public let id: String
  public let activate: @MainActor (FlowHost) -> Void

  public init(id: String, activate: @escaping @MainActor (FlowHost) -> Void) {
    self.id = id
    self.activate = activate
  }
}

public enum RegistryError: Error, Equatable, CustomStringConvertible {
  case duplicateFlow(String)
  case duplicateFollowUp(String)
  case followUpNamesUnknownFlow(rule: String, flow: String)
  case duplicateQuery(String)
  case duplicateRule(String)
  case duplicateNotification(String)
  case duplicateTargetingAttribute(String)
  case unknownDefaultVariant(flow: String, variant: String)
  case duplicateVariant(flow: String, variant: String)
  case ruleNamesUnknownFlow(rule: String, flow: String)
  case variantOfUnknownFlow(flow: String, variant: String)
  case variantStepsUnsupported(flow: String, variant: String)
  case invalidVariantSteps(flow: String, variant: String, problem: String)
  /// What a feature registers could not be made (`problem` says why, in one line).
  case invalidFeature(feature: String, problem: String)

  public var description: String {
    switch self {
    case .duplicateFlow(let id): "a flow with id '\(id)' is already registered"
    case .duplicateQuery(let id): "a query with id '\(id)' is already registered"
    case .duplicateFollowUp(let id): "a follow-up rule with id '\(id)' is already registered"
    case .followUpNamesUnknownFlow(let rule, let flow):
      "follow-up rule '\(rule)' names '\(flow)', which is not registered"
    case .duplicateRule(let id): "a launch rule with id '\(id)' is already registered"
    case .duplicateNotification(let id): "a notification with id '\(id)' is already registered"
    case .duplicateTargetingAttribute(let name): "a targeting attribute named '\(name)' is already registered"
    case .unknownDefaultVariant(let flow, let variant):
      "flow '\(flow)' names default variant '\(variant)', which is not among its variants"
    case .duplicateVariant(let flow, let variant): "flow '\(flow)' already has a variant '\(variant)'"
    case .ruleNamesUnknownFlow(let rule, let flow):
      "launch rule '\(rule)' presents '\(flow)', which is not registered"
    case .variantOfUnknownFlow(let flow, let variant):
      "cannot add variant '\(variant)' to flow '\(flow)', which is not registered"
    case .variantStepsUnsupported(let flow, let variant):
      "cannot build variant '\(variant)' of flow '\(flow)' from steps: the flow does not support variants made of steps"
    case .invalidVariantSteps(let flow, let variant, let problem):
      "variant '\(variant)' of flow '\(flow)': \(problem)"
    case .invalidFeature(let feature, let problem): "feature '\(feature)' cannot register: \(problem)"
    }
  }
}

/// A feature module's one entry point into the app.
public protocol FlowFeature: Sendable {
  /// The ports (service keys) its flows, queries and launch rules read from
  /// `environment.services`. Composing a host without one of them throws
  /// `CompositionError.missingServices`, naming the feature and the port, instead of
  /// stopping inside a flow. Empty by default: a feature that only uses the key-value
  /// store, the clock and analytics needs no port.
  static var requiredServices: [any ServiceKey.Type] { get }
  /// The bundle holding the feature's string tables, one per language it ships, at
  /// `Localization/<language>.lproj/Localizable.strings` (a resource of the feature's own
  /// module: `.module`). Nil for a feature that shows no text of its own.
  static var stringTables: Bundle? { get }
  /// What the feature brings for modules other than FlowKit, which pick out their own
  /// kind by a cast to a concrete type: a `StoringFeature`'s storage, a `SyncingFeature`'s
  /// sync resources (those protocols fill it). A cast of the feature to their protocol
  /// would make the runtime scan every conformance in the binary, at every start.
  /// Empty by default. Throws when they cannot be made (registering the feature then
  /// fails too).
  static var contributions: [any Sendable] { get throws }
  static func register(in registry: inout FlowRegistry) throws(RegistryError)
}

extension FlowFeature {
  public static var requiredServices: [any ServiceKey.Type] { [] }
  public static var stringTables: Bundle? { nil }
  public static var contributions: [any Sendable] { [] }
}

/// Everything the registered features offer: flows, queries, launch rules.
public struct FlowRegistry: Sendable {
  public private(set) var flows: [FlowDefinition] = []
  public private(set) var queries: [QueryDefinition] = []
  public private(set) var launchRules: [LaunchRule] = []
  /// Context check-ins, in registration order. None is active unless registered.
  public private(set) var followUpRules: [FollowUpRule] = []
  public private(set) var activations: [HostActivation] = []
  /// The ports each registered feature declared, in registration order.
  public private(set) var requirements: [ServiceRequirement] = []
  /// The notifications features deliver, and what opening each does.
  public private(set) var notifications: [NotificationDefinition] = []
  /// What experiment targeting may read about the user, by attribute name.
  public private(set) var targetingAttributes: [TargetingAttribute] = []

  public init() {}

  public func flow(_ id: String) -> FlowDefinition? { flows.first { $0.id == id } }
  public func query(_ id: String) -> QueryDefinition? { queries.first { $0.id == id } }

  public mutating func register(_ flow: FlowDefinition) throws(RegistryError) {
    guard self.flow(flow.id) == nil else { throw .duplicateFlow(flow.id) }
    var seen = Set<String>()
    for variant in flow.variants where !seen.insert(variant).inserted {
      throw .duplicateVariant(flow: flow.id, variant: variant)
    }
    guard flow.variants.contains(flow.defaultVariant) else {
      throw .unknownDefaultVariant(flow: flow.id, variant: flow.defaultVariant)
    }
    flows.append(flow)
  }

  /// Adds a variant to a registered flow: a new check-in variant is a registration,
  /// not an edit of the flow's code. `make` builds it; the flow's other variants keep
  /// their factory.
  public mutating func registerVariant(
    _ variant: String, of flowID: String, screens: [ScreenDeclaration] = [],
    make: @escaping @MainActor (FlowContext) -> any PresentableFlow
  ) throws(RegistryError) {
    guard let index = flows.firstIndex(where: { $0.id == flowID }) else {
      throw .variantOfUnknownFlow(flow: flowID, variant: variant)
    }
    let base = flows[index]
    guard !base.variants.contains(variant) else { throw .duplicateVariant(flow: flowID, variant: variant) }
    let knownScreens = Set(base.screens.map(\.id))
    flows[index] = FlowDefinition(
      id: base.id, summary: base.summary, variants: base.variants + [variant],
      defaultVariant: base.defaultVariant,
      screens: base.screens + screens.filter { !knownScreens.contains($0.id) },
      stepVariants: base.stepVariants, variantSteps: base.variantSteps,
      make: { context in context.variant == variant ? make(context) : base.make(context) })
  }

  /// Adds a variant made of an ordered subset of a registered flow's steps (the flow
  /// must offer `stepVariants`): a variant declared in a file, with no code.
  public mutating func registerVariant(_ variant: String, of flowID: String, steps: [String])
    throws(RegistryError)
  {
    guard let base = flow(flowID) else { throw .variantOfUnknownFlow(flow: flowID, variant: variant) }
    guard let stepVariants = base.stepVariants else {
      throw .variantStepsUnsupported(flow: flowID, variant: variant)
    }
    if let problem = stepVariants.problem(with: steps) {
      throw .invalidVariantSteps(flow: flowID, variant: variant, problem: problem)
    }
    try registerVariant(variant, of: flowID) { context in stepVariants.make(context, steps) }
    let index = flows.firstIndex { $0.id == flowID }!
    let added = flows[index]
    var variantSteps = added.variantSteps
    variantSteps[variant] = steps
    flows[index] = FlowDefinition(
      id: added.id, summary: added.summary, variants: added.variants, defaultVariant: added.defaultVariant,
      screens: added.screens, stepVariants: added.stepVariants, variantSteps: variantSteps, make: added.make)
  }

  public mutating func register(_ query: QueryDefinition) throws(RegistryError) {
    guard self.query(query.id) == nil else { throw .duplicateQuery(query.id) }
    queries.append(query)
  }

  public mutating func register(_ rule: LaunchRule) throws(RegistryError) {
    guard !launchRules.contains(where: { $0.id == rule.id }) else { throw .duplicateRule(rule.id) }
    launchRules.append(rule)
    // Highest priority first, equal priorities by id: the order features registered in
    // never changes which rule is asked first.
    launchRules.sort { ($1.priority, $0.id) < ($0.priority, $1.id) }
  }

  public mutating func register(_ rule: FollowUpRule) throws(RegistryError) {
    guard !followUpRules.contains(where: { $0.id == rule.id }) else { throw .duplicateFollowUp(rule.id) }
    followUpRules.append(rule)
  }

  public mutating func register(_ notification: NotificationDefinition) throws(RegistryError) {
    guard self.notification(notification.id) == nil else { throw .duplicateNotification(notification.id) }
    notifications.append(notification)
  }

  public func notification(_ id: String) -> NotificationDefinition? { notifications.first { $0.id == id } }

  public mutating func register(_ attribute: TargetingAttribute) throws(RegistryError) {
    guard !targetingAttributes.contains(where: { $0.name == attribute.name }) else {
      throw .duplicateTargetingAttribute(attribute.name)
    }
    targetingAttributes.append(attribute)
  }

  public mutating func register(_ activation: HostActivation) {
    activations.removeAll { $0.id == activation.id }
    activations.append(activation)
  }

  /// Registers a feature and records the ports it declared (`requiredServices`), so
  /// `FlowHost.compose` can check them before any flow runs.
  public mutating func register(_ feature: any FlowFeature.Type) throws(RegistryError) {
    // The runtime's own name of the type: `String(describing:)` would first search every
    // protocol conformance in the process for a custom description, at every app start.
    require(feature.requiredServices, by: _typeName(feature, qualified: false))
    try feature.register(in: &self)
  }

  /// Records that `feature` needs `keys` (for features registered by hand, not through
  /// `register(_:)`).
  public mutating func require(_ keys: [any ServiceKey.Type], by feature: String) {
    for key in keys {
      let requirement = ServiceRequirement(key, feature: feature)
      if !requirements.contains(requirement) { requirements.append(requirement) }
    }
  }

  /// The same registry with every flow passed through `transform` (a test host or an
  /// explorer wrapping factories to observe coordinators); queries, rules and
  /// requirements are kept.
  public func mapFlows(_ transform: (FlowDefinition) -> FlowDefinition) -> FlowRegistry {
    var mapped = self
    mapped.flows = flows.map(transform)
    return mapped
  }

  /// Checks what can only be checked once every feature registered.
  public func validate() throws(RegistryError) {
    for rule in launchRules where flow(rule.request.flow) == nil {
      throw .ruleNamesUnknownFlow(rule: rule.id, flow: rule.request.flow)
    }
    for rule in followUpRules {
      for flow in [rule.after, rule.request.flow] where self.flow(flow) == nil {
        throw .followUpNamesUnknownFlow(rule: rule.id, flow: flow)
      }
    }
  }

  /// Every screen any flow can show, by id.
  public var declaredScreens: [String: ScreenDeclaration] {
    var screens: [String: ScreenDeclaration] = [:]
    for flow in flows {
      for screen in flow.screens { screens[screen.id] = screen }
    }
    return screens
  }
}
