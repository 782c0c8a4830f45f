import FlowHTML
import FlowKit
import Testing

@Suite struct ScreenHTMLTests {
  let screen = Screen(
    id: "checkin.shaping", title: "Shape <it>", message: "A & B", progress: StepProgress(index: 3, count: 6),
    elements: [
      .slider("score", "How do you feel?", range: 1...10, step: 1, value: 7, caption: "Pleasant"),
      .singleChoice(
        "prompt", "Prompt",
        options: [ChoiceOption(id: "1", label: "What helped?"), ChoiceOption(id: "2", label: "Why?")],
        selected: "2"),
      .multipleChoice(
        "labels", "Labels",
        options: [ChoiceOption(id: "calm", label: "Calm"), ChoiceOption(id: "proud", label: "Proud")],
        selected: ["proud"]),
      .text("response", "Response", limit: 500, text: "slept \"well\""),
      .toggle("enabled", "Reminders", isOn: true),
      .info("count", "Entries", value: .number(3)),
      .button("continue", "Continue", enabled: false),
    ],
    canGoBack: true, canClose: true)

  @Test func reportShowsLabelsProgressAndAriaButTypedTextAsItsLength() {
    let html = ScreenHTML.phone(screen, options: .report)
    #expect(html.contains("data-screen=\"checkin.shaping\""))
    #expect(html.contains("Shape &lt;it&gt;"))
    #expect(html.contains("A &amp; B"))
    #expect(html.contains("aria-valuetext=\"Step 3 of 6\""))
    #expect(html.contains("aria-valuetext=\"7, Pleasant\""))
    #expect(html.contains(">What helped?</button>"))
    #expect(html.contains("aria-checked=\"true\" data-el=\"prompt\" data-option=\"2\""))
    #expect(html.contains("aria-checked=\"true\" data-el=\"labels\" data-option=\"proud\""))
    #expect(html.contains("aria-checked=\"false\" data-el=\"labels\" data-option=\"calm\""))
    #expect(html.contains("role=\"switch\" aria-checked=\"true\""))
    #expect(html.contains("text field, 12 characters"))
    #expect(!html.contains("slept"))
    #expect(html.contains("data-el=\"continue\" data-kind=\"button\" aria-label=\"Continue\" disabled"))
    #expect(html.contains("data-action=\"back\""))
    #expect(html.contains("<div class=\"wf-phone\" inert"))
  }

  @Test func previewShowsTypedTextEscapedAndIsInteractive() {
    let html = ScreenHTML.phone(screen, options: .preview)
    #expect(html.contains("slept &quot;well&quot;</textarea>"))
    #expect(html.contains("maxlength=\"500\""))
    #expect(!html.contains(" inert"))
  }

  @Test func alertIsAModalAndTheScreenBehindItIsInert() {
    var screen = screen
    screen.alert = Alert(
      id: "checkin.confirmExit", title: "Leave?", message: "Nothing is saved.",
      buttons: [AlertButton(id: "exit", label: "Exit"), AlertButton(id: "stay", label: "Stay")])
    let html = ScreenHTML.phone(screen, options: .preview)
    #expect(html.contains("role=\"alertdialog\" aria-modal=\"true\""))
    #expect(html.contains("data-alert=\"checkin.confirmExit\""))
    #expect(html.contains("Nothing is saved."))
    #expect(html.contains("<div class=\"wf-screen\" inert aria-hidden=\"true\">"))
    #expect(html.contains("data-el=\"stay\""))
  }

  @Test func noScreenIsHome() {
    #expect(ScreenHTML.phone(nil, options: .report).contains("data-screen=\"none\""))
  }

  @Test func accessibilityValues() {
    #expect(ScreenHTML.accessibilityValue(screen.elements[1], showsTypedText: false) == "Why?")
    #expect(
      ScreenHTML.accessibilityValue(screen.elements[3], showsTypedText: false) == "text field, 12 characters")
    #expect(ScreenHTML.accessibilityValue(screen.elements[3], showsTypedText: true) == "slept \"well\"")
    #expect(ScreenHTML.accessibilityValue(screen.elements[6], showsTypedText: true) == nil)
  }

  @Test func escapeDropsControlCharacters() {
    #expect(ScreenHTML.escape("a\u{1}b<'>") == "ab&lt;&#39;&gt;")
  }

  @Test func documentLoadsNothingFromElsewhere() {
    let page = ScreenHTML.document(title: "t", body: ScreenHTML.phone(screen, options: .report))
    #expect(!page.contains("http://") && !page.contains("https://"))
    #expect(page.hasPrefix("<!DOCTYPE html>"))
  }

  @Test func funnelAndIntervalsSkipWhatIsNotFinite() {
    let funnel = SVGCharts.funnel(
      [
        .init(label: "exposed", value: 100), .init(label: "completed", value: 40),
        .init(label: "bad", value: .nan),
      ],
      title: "quick")
    #expect(funnel.contains(">40 (40.0%)</text>"))
    #expect(!funnel.contains("bad"))
    #expect(funnel.contains("width=\"300\""))
    let whiskers = SVGCharts.intervals(
      [
        .init(label: "full", estimate: 0.5, lower: 0.25, upper: 0.75),
        .init(label: "broken", estimate: .infinity, lower: 0, upper: 1),
      ], title: "completion")
    #expect(whiskers.contains("x1=\"200\" y1=\"40\" x2=\"380\" y2=\"40\""))
    #expect(!whiskers.contains("broken"))
    #expect(whiskers.contains(">50.0%</text>"))
  }
}
