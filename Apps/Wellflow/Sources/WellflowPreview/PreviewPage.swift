import Crypto
import FlowHTML
import Foundation

/// The preview's one page: controls, the phone (drawn by the server with `ScreenHTML`)
/// and panels for the clock, relaunch, queries, events and the script so far. It loads
/// nothing from elsewhere and is pushed each change over Server-Sent Events.
enum PreviewPage {
  static var html: String {
    ScreenHTML.document(title: "wellflow preview", body: body, extraStyle: style, script: script)
  }

  /// The page as served, made once.
  static let page = html

  /// Allows the page's own inline script and style sheet (named by their hashes), requests
  /// to its own server, and nothing else: no script or style from elsewhere, no plugin, no
  /// form sent anywhere, no framing by any page (`frame-ancestors`, with X-Frame-Options
  /// for older browsers).
  static let contentSecurityPolicy =
    "default-src 'none'; script-src \(inlineHash(of: "script", in: page)); "
    + "style-src \(inlineHash(of: "style", in: page)); connect-src 'self'; img-src 'self'; "
    + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

  /// `'sha256-…'` of the text of the first `<tag>` element, as a browser hashes it.
  static func inlineHash(of tag: String, in html: String) -> String {
    guard let open = html.range(of: "<\(tag)>"),
      let close = html.range(of: "</\(tag)>", range: open.upperBound..<html.endIndex)
    else { return "'none'" }
    return "'sha256-\(sha256Base64(String(html[open.upperBound..<close.lowerBound])))'"
  }

  static func sha256Base64(_ text: String) -> String {
    Data(SHA256.hash(data: Data(text.utf8))).base64EncodedString()
  }

  static let body = #"""
    <header class="pv-bar">
      <b>wellflow preview</b>
      <label>Flow <select id="flow" aria-label="Flow"></select></label>
      <label>Variant <select id="variant" aria-label="Variant"></select></label>
      <button type="button" id="start">Start</button>
      <button type="button" id="launch" title="Apply the launch rules">Launch</button>
      <button type="button" id="relaunch" title="Quit and launch on the same data">Relaunch</button>
      <button type="button" id="reset" title="A fresh app, no steps">Reset</button>
      <span id="live" class="pv-live" title="Updates pushed by the app">connecting…</span>
    </header>
    <div id="error" class="pv-error" role="alert" hidden></div>
    <main class="pv-main">
      <section class="pv-phone-column">
        <div id="stack" class="pv-stack"></div>
        <div id="phone"></div>
      </section>
      <section class="pv-panels">
        <div class="pv-panel">
          <h2>Clock</h2>
          <p id="clock" class="pv-mono"></p>
          <p id="next-timer" class="pv-muted"></p>
          <div class="pv-row">
            <button type="button" id="next">Advance to next timer</button>
            <input id="amount" value="1d" size="6" aria-label="Amount to advance (s, m, h, d)">
            <button type="button" id="advance">Advance</button>
          </div>
        </div>
        <div class="pv-panel">
          <h2>Script <span id="step-count" class="pv-muted"></span></h2>
          <div class="pv-row"><button type="button" id="copy">Copy as script</button>
          <span id="copied" class="pv-muted"></span></div>
          <textarea id="script" readonly rows="10" aria-label="The steps taken as a script"></textarea>
        </div>
        <div class="pv-panel">
          <h2>Queries</h2>
          <table id="queries" class="pv-table"></table>
        </div>
        <div class="pv-panel">
          <h2>Events <span id="event-count" class="pv-muted"></span></h2>
          <ol id="events" class="pv-events"></ol>
        </div>
      </section>
    </main>
    """#

  static let style = #"""
    .pv-bar { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; padding: 10px 16px;
      background: #1f2330; color: #fff; }
    .pv-bar label { font-size: 14px; }
    .pv-bar select, .pv-bar button { font: inherit; font-size: 14px; }
    .pv-live { margin-left: auto; font-size: 12px; color: #a5a8f0; }
    .pv-error { margin: 10px 16px 0; padding: 10px; border-radius: 8px; background: #fef2f2; color: #7f1d1d;
      border: 1px solid #fecaca; }
    .pv-main { display: flex; gap: 24px; padding: 16px; align-items: flex-start; flex-wrap: wrap; }
    .pv-stack { font-size: 12px; color: #6b7080; margin-bottom: 6px; min-height: 16px; }
    .pv-panels { flex: 1; min-width: 340px; display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr));
      gap: 12px; }
    .pv-panel { background: #fff; border: 1px solid #dcdfe8; border-radius: 10px; padding: 10px 14px; }
    .pv-panel h2 { font-size: 15px; margin: 4px 0 8px; }
    .pv-row { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
    .pv-muted { color: #6b7080; font-size: 12px; font-weight: 400; }
    .pv-mono, .pv-table, .pv-events, #script { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
    #script { width: 100%; box-sizing: border-box; margin-top: 8px; }
    .pv-table { border-collapse: collapse; width: 100%; }
    .pv-table td { border-top: 1px solid #eef0f5; padding: 2px 4px; vertical-align: top; }
    .pv-table td:last-child { text-align: right; }
    .pv-events { max-height: 260px; overflow-y: auto; padding-left: 0; list-style: none; margin: 0; }
    .pv-events li { border-top: 1px solid #eef0f5; padding: 2px 0; }
    .pv-events b { color: #4f46e5; font-weight: 600; }
    """#

  static let script = #"""
    "use strict";
    const $ = (id) => document.getElementById(id);
    let state = null;
    let queue = Promise.resolve();

    function showError(message) {
      const box = $("error");
      box.textContent = message || "";
      box.hidden = !message;
    }

    // Commands go one after another, in the order the person acted.
    function send(command) {
      queue = queue.then(async () => {
        const response = await fetch("/api/command", {
          method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(command)});
        const answer = await response.json();
        if (!response.ok) { showError(answer.error); return; }
        showError(null);
        render(answer);
      }).catch((error) => showError(String(error)));
      return queue;
    }

    function act(action, fields) { return send(Object.assign({command: "action", action: action}, fields)); }

    function text(tag, content, className) {
      const node = document.createElement(tag);
      node.textContent = content;
      if (className) node.className = className;
      return node;
    }

    function fillFlows(flows) {
      const select = $("flow");
      if (select.options.length === flows.length) return;
      select.replaceChildren(...flows.map((flow) => new Option(flow.id, flow.id)));
      fillVariants();
    }

    function fillVariants() {
      const flow = (state ? state.flows : []).find((f) => f.id === $("flow").value);
      if (!flow) return;
      $("variant").replaceChildren(...flow.variants.map((v) =>
        new Option(v === flow.defaultVariant ? v + " (default)" : v, v)));
      $("variant").value = flow.defaultVariant;
    }

    function render(next) {
      if (state && next.revision < state.revision) return;
      state = next;
      fillFlows(state.flows);
      $("phone").innerHTML = state.screenHTML;
      $("stack").textContent = state.stack.length ? "presented: " + state.stack.join(" › ") : "no flow presented";
      $("clock").textContent = state.clock;
      $("next-timer").textContent = state.nextTimer ? "next timer: " + state.nextTimer : "no timer pending";
      $("next").disabled = !state.nextTimer;
      $("step-count").textContent = "(" + state.steps.length + " step" + (state.steps.length === 1 ? "" : "s") + ")";
      $("queries").replaceChildren(...state.queries.map((q) => {
        const row = document.createElement("tr");
        row.append(text("td", q.id), text("td", q.value));
        row.dataset.query = q.id;
        return row;
      }));
      $("event-count").textContent = "(" + state.eventCount + ")";
      $("events").replaceChildren(...state.events.slice().reverse().map((e) => {
        const item = document.createElement("li");
        item.append(text("span", e.time.slice(11) + " "), text("b", e.event), text("span", " " + e.detail));
        return item;
      }));
      if (state.problems.length) showError(state.problems.join("; "));
      refreshScript();
    }

    async function refreshScript() {
      const response = await fetch("/api/script");
      $("script").value = await response.text();
    }

    $("phone").addEventListener("click", (event) => {
      const target = event.target.closest("[data-action], [data-el]");
      if (!target || target.disabled) return;
      if (target.dataset.action) { act(target.dataset.action, {}); return; }
      const id = target.dataset.el;
      if (target.dataset.option !== undefined) {
        if (target.dataset.multiple === "true") {
          const group = target.closest("fieldset");
          const chosen = [...group.querySelectorAll("[data-option]")]
            .filter((b) => (b === target) !== (b.getAttribute("aria-checked") === "true"))
            .map((b) => b.dataset.option);
          act("select", {id: id, options: chosen});
        } else {
          act("select", {id: id, options: [target.dataset.option]});
        }
        return;
      }
      if (target.dataset.kind === "button") act("tap", {id: id});
      if (target.dataset.kind === "toggle") act("toggle", {id: id, on: target.getAttribute("aria-checked") !== "true"});
    });
    $("phone").addEventListener("change", (event) => {
      const target = event.target;
      if (target.dataset.kind === "text") act("enter", {id: target.dataset.el, text: target.value});
      if (target.dataset.kind === "slider") act("set", {id: target.dataset.el, value: Number(target.value)});
    });
    $("phone").addEventListener("input", (event) => {
      const target = event.target;
      if (target.dataset.kind === "slider") {
        const output = target.closest(".wf-slider").querySelector(".wf-slider-value b");
        if (output) output.textContent = target.value;
      }
    });

    $("flow").addEventListener("change", fillVariants);
    $("start").addEventListener("click", () => send({command: "start", flow: $("flow").value, variant: $("variant").value}));
    $("launch").addEventListener("click", () => send({command: "launch"}));
    $("relaunch").addEventListener("click", () => send({command: "relaunch"}));
    $("reset").addEventListener("click", () => send({command: "reset"}));
    $("next").addEventListener("click", () => send({command: "advance", toNextTimer: true}));
    $("advance").addEventListener("click", () => send({command: "advance", amount: $("amount").value}));
    $("copy").addEventListener("click", async () => {
      await queue;
      await refreshScript();
      const area = $("script");
      try {
        await navigator.clipboard.writeText(area.value);
      } catch (error) {
        area.select();
        document.execCommand("copy");
      }
      $("copied").textContent = "copied";
      setTimeout(() => { $("copied").textContent = ""; }, 1500);
    });

    // The app pushes every change; nothing polls.
    const events = new EventSource("/api/events");
    events.onmessage = (message) => { render(JSON.parse(message.data)); $("live").textContent = "live"; };
    events.onerror = () => { $("live").textContent = "reconnecting…"; };
    """#
}
