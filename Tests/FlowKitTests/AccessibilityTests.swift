import FlowKit
import Testing

@Suite("Accessibility: labels and value texts")
struct AccessibilityTests {
  let options = [ChoiceOption(id: "calm", label: "Calm"), ChoiceOption(id: "proud", label: "Proud")]

  @Test func everyKindSaysWhatItIsAndHolds() {
    #expect(Element.button("continue", "Continue").accessibilityLabel == "Continue")
    #expect(Element.button("continue", "Continue").accessibilityValue == nil)
    let slider = Element.slider(
      "score", "How pleasant", range: 1...10, step: 1, value: 7, caption: "Pleasant")
    #expect(slider.accessibilityLabel == "How pleasant")
    #expect(slider.accessibilityValue == "7, Pleasant")
    #expect(Element.slider("s", "S", range: 0...1, step: 0.5, value: 0.5).accessibilityValue == "0.5")
    #expect(
      Element.singleChoice("emotion", "Emotion", options: options, selected: "proud").accessibilityValue
        == "Proud")
    #expect(
      Element.singleChoice("emotion", "Emotion", options: options, selected: nil).accessibilityValue == nil)
    #expect(
      Element.multipleChoice("labels", "Also", options: options, selected: ["calm", "proud"])
        .accessibilityValue
        == "Calm, Proud")
    #expect(Element.text("notes", "Notes", limit: 10, text: "hi").accessibilityValue == "hi")
    #expect(Element.info("count", "Entries", value: .number(3)).accessibilityValue == "3")
    #expect(
      Element.toggle("enabled", "Remind me", isOn: true).accessibilityValue == nil,
      "a toggle's state is aria-checked")
  }

  @Test func translatedScreensReadInTheirLanguage() {
    let german = ScreenLocalizer(
      table: StringTable(locale: "de", entries: ["How pleasant": "Wie angenehm", "Pleasant": "Angenehm"]))
    let screen = german.localize(
      Screen(
        id: "s", title: "t",
        elements: [.slider("score", "How pleasant", range: 1...10, step: 1, value: 8, caption: "Pleasant")]))
    #expect(screen.element("score")?.accessibilityLabel == "Wie angenehm")
    #expect(screen.element("score")?.accessibilityValue == "8, Angenehm")
  }
}
