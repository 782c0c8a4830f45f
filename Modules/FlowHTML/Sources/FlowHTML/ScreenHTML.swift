import FlowKit
import Foundation

/// Turns a flow's screen into HTML: a phone-sized page with the screen's real labels,
/// captions, progress and alert (as a modal), and each element's accessibility label
/// and value as ARIA attributes. One renderer for the browser preview and the HTML
/// reports; the preview makes it interactive, reports show it as it was.
public enum ScreenHTML {
  /// How a rendering is used.
  public struct Options: Sendable, Equatable {
    /// Text a person typed: shown as itself (the preview, where the person typed it) or
    /// as its length (`text field, 19 characters`), as reports must.
    public var showsTypedText: Bool
    /// Elements carry the attributes the preview's page acts on and accept input;
    /// otherwise the screen is a picture (inert).
    public var isInteractive: Bool

    public init(showsTypedText: Bool, isInteractive: Bool) {
      self.showsTypedText = showsTypedText
      self.isInteractive = isInteractive
    }

    /// A report's picture of a screen: typed text as its length, nothing acts.
    public static let report = Options(showsTypedText: false, isInteractive: false)
    /// The preview's live screen.
    public static let preview = Options(showsTypedText: true, isInteractive: true)
  }

  /// The phone: `screen`, or the home screen when no flow is presented.
  public static func phone(_ screen: Screen?, options: Options) -> String {
    var html = "<div class=\"wf-phone\"\(options.isInteractive ? "" : " inert")"
    guard let screen else {
      html += " data-screen=\"none\"><div class=\"wf-home\" role=\"status\">"
      html += "<p class=\"wf-home-title\">Home</p><p>No flow is presented.</p></div></div>"
      return html
    }
    html += " data-screen=\"\(escape(screen.id))\">"
    html += "<div class=\"wf-screen\"\(screen.alert == nil ? "" : " inert aria-hidden=\"true\"")>"
    html += navigation(screen)
    if let progress = screen.progress { html += progressBar(progress) }
    html += "<h1 class=\"wf-title\">\(escape(screen.title))</h1>"
    if let message = screen.message { html += "<p class=\"wf-message\">\(escape(message))</p>" }
    html += "<div class=\"wf-elements\">"
    for element in screen.elements { html += self.element(element, options: options) }
    html += "</div></div>"
    if let alert = screen.alert { html += self.alert(alert) }
    html += "<p class=\"wf-screen-id\">\(escape(screen.id))</p></div>"
    return html
  }

  /// The accessibility value text: the element's own (`Element.accessibilityValue`), except
  /// that typed text shows as its length where typed text is not shown.
  public static func accessibilityValue(_ element: Element, showsTypedText: Bool) -> String? {
    if case .text = element.kind, !showsTypedText {
      guard case .text(let text) = element.value else { return nil }
      return describeFreeText(text)
    }
    return element.accessibilityValue
  }

  static func chosenIDs(_ value: ElementValue) -> [String] {
    switch value {
    case .text(let id): [id]
    case .list(let ids): ids
    default: []
    }
  }

  private static func navigation(_ screen: Screen) -> String {
    guard screen.canGoBack || screen.canClose else { return "" }
    var html = "<nav class=\"wf-nav\">"
    html +=
      screen.canGoBack
      ? "<button type=\"button\" class=\"wf-nav-back\" data-action=\"back\" aria-label=\"Back\">‹ Back</button>"
      : "<span></span>"
    if screen.canClose {
      html +=
        "<button type=\"button\" class=\"wf-nav-close\" data-action=\"close\" aria-label=\"Close\">✕</button>"
    }
    return html + "</nav>"
  }

  private static func progressBar(_ progress: StepProgress) -> String {
    let count = max(0, min(progress.count, 100))
    var html =
      "<div class=\"wf-progress\" role=\"progressbar\" aria-valuemin=\"1\" aria-valuemax=\"\(progress.count)\" aria-valuenow=\"\(progress.index)\" aria-valuetext=\"Step \(progress.index) of \(progress.count)\">"
    for index in 0..<count {
      html +=
        "<span class=\"wf-dot\(index + 1 == progress.index ? " wf-current" : index + 1 < progress.index ? " wf-done" : "")\"></span>"
    }
    return html + "<span class=\"wf-progress-text\">\(progress.index) of \(progress.count)</span></div>"
  }

  private static func element(_ element: Element, options: Options) -> String {
    let id = escape(element.id)
    let label = escape(element.label)
    let disabled = element.isEnabled ? "" : " disabled"
    let value = accessibilityValue(element, showsTypedText: options.showsTypedText)
    let common = "data-el=\"\(id)\" data-kind=\"\(kindName(element.kind))\""
    switch element.kind {
    case .button:
      return
        "<button type=\"button\" class=\"wf-button\" \(common) aria-label=\"\(label)\"\(disabled)>\(label)</button>"
    case .choice(let choices, let multiple):
      let chosen = Set(chosenIDs(element.value))
      var html =
        "<fieldset class=\"wf-choice\(choices.count > 8 ? " wf-many" : "")\" \(common) role=\"\(multiple ? "group" : "radiogroup")\" aria-label=\"\(label)\"\(disabled)>"
      html += "<legend>\(label)\(multiple ? " <span class=\"wf-hint\">(any)</span>" : "")</legend>"
      for option in choices {
        let isChosen = chosen.contains(option.id)
        html +=
          "<button type=\"button\" class=\"wf-option\(isChosen ? " wf-chosen" : "")\" role=\"\(multiple ? "checkbox" : "radio")\" aria-checked=\"\(isChosen)\" data-el=\"\(id)\" data-option=\"\(escape(option.id))\" data-multiple=\"\(multiple)\" aria-label=\"\(escape(option.label))\"\(disabled)>\(escape(option.label))</button>"
      }
      return html + "</fieldset>"
    case .text(let limit):
      let text = if case .text(let text) = element.value { text } else { "" }
      var html = "<div class=\"wf-field\"><label class=\"wf-label\" for=\"wf-\(id)\">\(label)</label>"
      if options.showsTypedText {
        html +=
          "<textarea id=\"wf-\(id)\" class=\"wf-text\" \(common) maxlength=\"\(limit)\" rows=\"3\" aria-label=\"\(label)\"\(disabled)>\(escape(text))</textarea>"
        html += "<span class=\"wf-count\">\(text.count)/\(limit)</span>"
      } else {
        html +=
          "<div id=\"wf-\(id)\" class=\"wf-text wf-typed\" \(common) role=\"textbox\" aria-label=\"\(label)\" aria-valuetext=\"\(escape(value ?? ""))\">\(escape(describeFreeText(text)))</div>"
        html += "<span class=\"wf-count\">limit \(limit)</span>"
      }
      return html + "</div>"
    case .slider(let range, let step, let caption):
      let number = if case .number(let current) = element.value { current } else { range.lowerBound }
      var html =
        "<div class=\"wf-field wf-slider\"><label class=\"wf-label\" for=\"wf-\(id)\">\(label)</label>"
      html += "<div class=\"wf-slider-row\"><span class=\"wf-range\">\(formatNumber(range.lowerBound))</span>"
      html +=
        "<input type=\"range\" id=\"wf-\(id)\" \(common) min=\"\(formatNumber(range.lowerBound))\" max=\"\(formatNumber(range.upperBound))\" step=\"\(step > 0 ? formatNumber(step) : "any")\" value=\"\(formatNumber(number))\" aria-label=\"\(label)\" aria-valuetext=\"\(escape(value ?? ""))\"\(disabled)>"
      html += "<span class=\"wf-range\">\(formatNumber(range.upperBound))</span></div>"
      html += "<output class=\"wf-slider-value\" for=\"wf-\(id)\"><b>\(formatNumber(number))</b>"
      if let caption { html += " <span class=\"wf-caption\">\(escape(caption))</span>" }
      return html + "</output></div>"
    case .toggle:
      let isOn = element.value == .bool(true)
      return
        "<div class=\"wf-field wf-toggle-row\"><span class=\"wf-label\">\(label)</span><button type=\"button\" class=\"wf-toggle\(isOn ? " wf-on" : "")\" role=\"switch\" aria-checked=\"\(isOn)\" \(common) aria-label=\"\(label)\"\(disabled)><span></span></button></div>"
    case .info:
      return
        "<div class=\"wf-info\" \(common) role=\"group\" aria-label=\"\(label)\" aria-description=\"\(escape(value ?? ""))\"><span class=\"wf-label\">\(label)</span><span class=\"wf-info-value\">\(escape(value ?? ""))</span></div>"
    }
  }

  private static func alert(_ alert: Alert) -> String {
    let id = escape(alert.id)
    var html =
      "<div class=\"wf-backdrop\"><div class=\"wf-alert\" role=\"alertdialog\" aria-modal=\"true\" aria-labelledby=\"wf-alert-title\" aria-describedby=\"wf-alert-message\" data-alert=\"\(id)\">"
    html += "<h2 id=\"wf-alert-title\">\(escape(alert.title))</h2>"
    html += "<p id=\"wf-alert-message\">\(escape(alert.message))</p><div class=\"wf-alert-buttons\">"
    for button in alert.buttons {
      html +=
        "<button type=\"button\" class=\"wf-alert-button\" data-el=\"\(escape(button.id))\" data-kind=\"button\" aria-label=\"\(escape(button.label))\">\(escape(button.label))</button>"
    }
    return html + "</div></div></div>"
  }

  static func kindName(_ kind: ElementKind) -> String {
    switch kind {
    case .button: "button"
    case .choice(_, let multiple): multiple ? "multi" : "single"
    case .text: "text"
    case .slider: "slider"
    case .toggle: "toggle"
    case .info: "info"
    }
  }

  /// Text as HTML text or attribute value. Control characters other than tab and
  /// newline are dropped: they have no place in a page.
  public static func escape(_ text: String) -> String {
    var escaped = ""
    escaped.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": escaped += "&amp;"
      case "<": escaped += "&lt;"
      case ">": escaped += "&gt;"
      case "\"": escaped += "&quot;"
      case "'": escaped += "&#39;"
      case "\n", "\t": escaped.unicodeScalars.append(scalar)
      default:
        if scalar.value < 0x20 || scalar.value == 0x7F { continue }
        escaped.unicodeScalars.append(scalar)
      }
    }
    return escaped
  }

  /// A whole page: `body` with the renderer's style sheet and `extraStyle`, nothing
  /// loaded from elsewhere.
  public static func document(title: String, body: String, extraStyle: String = "", script: String? = nil)
    -> String
  {
    var html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
    html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
    html += "<title>\(escape(title))</title><style>\n\(styleSheet)\n\(extraStyle)\n</style></head>\n<body>\n"
    html += body
    if let script { html += "\n<script>\n\(script)\n</script>" }
    return html + "\n</body></html>\n"
  }

  /// The phone's style sheet (system fonts only).
  public static let styleSheet = """
    :root { --wf-accent: #4f46e5; --wf-ink: #1f2330; --wf-muted: #6b7080; --wf-line: #dcdfe8; }
    body { font-family: -apple-system, system-ui, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
      color: var(--wf-ink); background: #f3f4f8; margin: 0; }
    .wf-phone { position: relative; box-sizing: border-box; width: 375px; min-height: 667px; background: #fff;
      border: 10px solid #1f2330; border-radius: 36px; padding: 28px 20px 32px; overflow: hidden;
      box-shadow: 0 8px 24px rgba(0,0,0,.15); }
    .wf-phone[inert] { pointer-events: none; }
    .wf-small .wf-phone { transform: scale(.62); transform-origin: top left; margin-bottom: -250px;
      margin-right: -140px; }
    .wf-home { text-align: center; color: var(--wf-muted); padding-top: 200px; }
    .wf-home-title { font-size: 22px; font-weight: 600; color: var(--wf-ink); }
    .wf-nav { display: flex; justify-content: space-between; margin-bottom: 8px; }
    .wf-nav button { border: 0; background: none; color: var(--wf-accent); font-size: 16px; cursor: pointer;
      padding: 4px 2px; }
    .wf-progress { display: flex; align-items: center; gap: 6px; margin: 4px 0 12px; }
    .wf-dot { width: 8px; height: 8px; border-radius: 50%; background: var(--wf-line); }
    .wf-dot.wf-done { background: #a5a8f0; }
    .wf-dot.wf-current { background: var(--wf-accent); width: 20px; border-radius: 4px; }
    .wf-progress-text { margin-left: auto; font-size: 12px; color: var(--wf-muted); }
    .wf-title { font-size: 24px; line-height: 1.25; margin: 8px 0 8px; }
    .wf-message { color: var(--wf-muted); margin: 0 0 12px; white-space: pre-wrap; }
    .wf-elements { display: flex; flex-direction: column; gap: 12px; }
    .wf-button { border: 0; border-radius: 12px; padding: 14px; font-size: 17px; font-weight: 600;
      background: var(--wf-accent); color: #fff; cursor: pointer; }
    .wf-button:disabled { background: #c7c9d6; cursor: not-allowed; }
    .wf-choice { border: 0; padding: 0; margin: 0; display: flex; flex-wrap: wrap; gap: 8px; }
    .wf-choice legend { font-weight: 600; margin-bottom: 6px; padding: 0; }
    .wf-hint { font-weight: 400; color: var(--wf-muted); font-size: 13px; }
    .wf-option { border: 1px solid var(--wf-line); background: #fff; border-radius: 10px; padding: 10px 12px;
      font-size: 15px; cursor: pointer; color: var(--wf-ink); flex: 1 1 100%; text-align: left; }
    .wf-many .wf-option { flex: 0 0 auto; border-radius: 16px; padding: 6px 10px; font-size: 13px; }
    .wf-choice.wf-many { max-height: 190px; overflow-y: auto; }
    .wf-option.wf-chosen { border-color: var(--wf-accent); background: #eef0ff; color: var(--wf-accent);
      font-weight: 600; }
    .wf-option:disabled { opacity: .45; cursor: not-allowed; }
    .wf-field { display: flex; flex-direction: column; gap: 6px; }
    .wf-label { font-weight: 600; }
    .wf-text { border: 1px solid var(--wf-line); border-radius: 10px; padding: 10px; font: inherit;
      resize: vertical; }
    .wf-typed { color: var(--wf-muted); font-style: italic; }
    .wf-count { align-self: flex-end; font-size: 12px; color: var(--wf-muted); }
    .wf-slider-row { display: flex; align-items: center; gap: 8px; }
    .wf-slider-row input { flex: 1; accent-color: var(--wf-accent); }
    .wf-range { font-size: 12px; color: var(--wf-muted); }
    .wf-slider-value { text-align: center; font-size: 18px; }
    .wf-caption { color: var(--wf-accent); }
    .wf-toggle-row { flex-direction: row; justify-content: space-between; align-items: center; }
    .wf-toggle { width: 50px; height: 30px; border-radius: 15px; border: 0; background: #c7c9d6;
      position: relative; cursor: pointer; }
    .wf-toggle span { position: absolute; top: 3px; left: 3px; width: 24px; height: 24px; border-radius: 50%;
      background: #fff; transition: left .15s; }
    .wf-toggle.wf-on { background: #34c759; }
    .wf-toggle.wf-on span { left: 23px; }
    .wf-info { display: flex; justify-content: space-between; border-bottom: 1px solid var(--wf-line);
      padding: 6px 0; }
    .wf-info-value { font-variant-numeric: tabular-nums; }
    .wf-backdrop { position: absolute; inset: 0; background: rgba(20,22,30,.45); display: flex;
      align-items: center; justify-content: center; }
    .wf-alert { background: #fff; border-radius: 16px; width: 270px; text-align: center;
      box-shadow: 0 10px 30px rgba(0,0,0,.3); overflow: hidden; }
    .wf-alert h2 { font-size: 17px; margin: 18px 16px 6px; }
    .wf-alert p { font-size: 14px; margin: 0 16px 16px; color: var(--wf-ink); }
    .wf-alert-buttons { display: flex; border-top: 1px solid var(--wf-line); }
    .wf-alert-button { flex: 1; border: 0; background: none; padding: 12px; font-size: 16px;
      color: var(--wf-accent); cursor: pointer; }
    .wf-alert-button + .wf-alert-button { border-left: 1px solid var(--wf-line); }
    .wf-screen-id { position: absolute; bottom: 6px; left: 0; right: 0; text-align: center;
      font: 11px ui-monospace, Menlo, Consolas, monospace; color: #9aa0b0; margin: 0; }
    """
}
