import FlowKit
import Foundation
import Testing

/// A flow of steps `a`…`d` that can make variants of any ordered subset ending on `d`.
private func composableFlow() -> FlowDefinition {
  let all = ["a", "b", "c", "d"]
  return FlowDefinition(
    id: "f", summary: "steps", variants: ["full"],
    screens: all.map { ScreenDeclaration("f.\($0)", elements: ["next", "note"]) },
    stepVariants: StepVariants(
      steps: all, check: { $0.last == "d" ? nil : "f must end on step d" },
      make: { context, steps in
        StepCoordinator(id: "f", steps: steps.map { "f.\($0)" }, store: context.environment.keyValueStore)
      }),
    make: { context in
      StepCoordinator(id: "f", steps: all.map { "f.\($0)" }, store: context.environment.keyValueStore)
    })
}

@MainActor
@Suite("Variants made of steps")
struct StepVariantTests {
  @Test func aVariantOfStepsShowsThoseStepsInOrder() throws {
    let fixture = try HostFixture { registry in
      try registry.register(composableFlow())
      try registry.registerVariant("mini", of: "f", steps: ["b", "d"])
    }
    #expect(fixture.host.registry.flow("f")?.variants == ["full", "mini"])
    #expect(fixture.host.registry.flow("f")?.variantSteps["mini"] == ["b", "d"])
    try fixture.host.present(FlowRequest(flow: "f", variant: "mini"))
    var seen: [String] = []
    while let screen = fixture.host.screen {
      seen.append("\(screen.id) \(screen.progress!.index)/\(screen.progress!.count)")
      try fixture.host.send(.tap("next"))
    }
    #expect(seen == ["f.b 1/2", "f.d 2/2"])
    try fixture.host.present(FlowRequest(flow: "f"))
    #expect(fixture.host.screen?.id == "f.a")
  }

  @Test func listsThatCannotMakeAVariantAreRejectedWithTheReason() throws {
    var registry = FlowRegistry()
    try registry.register(composableFlow())
    let cases: [([String], String)] = [
      ([], "a variant needs at least one step"),
      (["a", "x", "d"], "unknown step 'x' (steps: a, b, c, d)"),
      (["c", "b", "d"], "step 'b' is out of order (the flow's order: a, b, c, d)"),
      (["b", "b", "d"], "step 'b' is listed twice"),
      (["a", "b"], "f must end on step d"),
    ]
    for (steps, problem) in cases {
      #expect(throws: RegistryError.invalidVariantSteps(flow: "f", variant: "v", problem: problem)) {
        try registry.registerVariant("v", of: "f", steps: steps)
      }
    }
    #expect(
      RegistryError.invalidVariantSteps(flow: "f", variant: "v", problem: "f must end on step d").description
        == "variant 'v' of flow 'f': f must end on step d")
    #expect(registry.flow("f")?.variants == ["full"])
  }

  @Test func aFlowWithoutStepVariantsOrAnUnknownFlowIsRefused() throws {
    var registry = FlowRegistry()
    try registry.register(flowDefinition("plain"))
    #expect(throws: RegistryError.variantStepsUnsupported(flow: "plain", variant: "v")) {
      try registry.registerVariant("v", of: "plain", steps: ["plain.one"])
    }
    #expect(throws: RegistryError.variantOfUnknownFlow(flow: "nope", variant: "v")) {
      try registry.registerVariant("v", of: "nope", steps: ["a"])
    }
    try registry.register(composableFlow())
    #expect(throws: RegistryError.duplicateVariant(flow: "f", variant: "full")) {
      try registry.registerVariant("full", of: "f", steps: ["d"])
    }
  }

  @Test func aCodeVariantAddedLaterKeepsTheStepList() throws {
    var registry = FlowRegistry()
    try registry.register(composableFlow())
    try registry.registerVariant("mini", of: "f", steps: ["d"])
    try registry.registerVariant("coded", of: "f") { context in
      StepCoordinator(id: "f", steps: ["f.c"], store: context.environment.keyValueStore)
    }
    let flow = try #require(registry.flow("f"))
    #expect(flow.variants == ["full", "mini", "coded"])
    #expect(flow.variantSteps == ["mini": ["d"]])
    #expect(flow.stepVariants?.steps == ["a", "b", "c", "d"])
  }
}
