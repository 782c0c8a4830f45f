#!/usr/bin/env python3
"""Checks `wellflow preview` and the HTML reports in a real browser (headless Chromium).

It starts `wellflow preview` on a free port, clicks through onboarding and a full
check-in, copies the steps as a script and runs it with `wellflow run`, checks that a
change made outside the page is pushed to it, opens a failing run's HTML report and an
experiment report, and saves screenshots.

    python3 Tools/BrowserCheck/browser_check.py --wellflow .build/debug/wellflow --out .build/ci/browser
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

TIMEOUT = 20


def fail(message):
    print(f"browser check FAILED: {message}", file=sys.stderr)
    sys.exit(1)


class Check:
    def __init__(self, wellflow, out):
        self.wellflow = os.path.abspath(wellflow)
        self.out = os.path.abspath(out)
        os.makedirs(self.out, exist_ok=True)
        self.temp = tempfile.mkdtemp(prefix="wellflow-browser-")
        self.preview = None
        self.driver = None
        self.shots = []

    # --- the browser -------------------------------------------------------------------

    def start_browser(self):
        options = webdriver.ChromeOptions()
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1100",
                         "--disable-gpu", "--no-first-run", "--disable-extensions"]:
            options.add_argument(argument)
        for binary in ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]:
            if os.path.exists(binary):
                options.binary_location = binary
                break
        driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
        self.driver = webdriver.Chrome(service=Service(driver_path), options=options)

    def shot(self, name):
        path = os.path.join(self.out, f"{len(self.shots) + 1:02d}-{name}.png")
        self.driver.save_screenshot(path)
        self.shots.append(path)
        print(f"  screenshot {path}")

    def wait(self, condition, what):
        try:
            # The page redraws the phone whenever the app pushes a change.
            return WebDriverWait(self.driver, TIMEOUT, ignored_exceptions=(StaleElementReferenceException,)).until(
                lambda d: condition(d))
        except TimeoutException:
            self.shot("timeout")
            fail(f"timed out waiting for {what}")

    def attribute(self, css, name):
        """An attribute read in the page in one go, so a redraw cannot make it stale."""
        return self.driver.execute_script(
            "const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;",
            css, name)

    def screen_id(self):
        return self.attribute("#phone .wf-phone", "data-screen")

    def wait_screen(self, screen):
        self.wait(lambda d: self.screen_id() == screen, f"screen {screen} (showing {self.screen_id()})")

    def element(self, css):
        return self.wait(lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, css)), None), css)

    def click(self, css):
        def clicked(driver):
            elements = driver.find_elements(By.CSS_SELECTOR, css)
            if not elements or not elements[0].is_enabled():
                return False
            elements[0].click()
            return True
        self.wait(clicked, f"{css} to be clicked")

    def tap(self, element_id, then=None):
        self.click(f'#phone [data-el="{element_id}"][data-kind="button"]')
        if then:
            self.wait_screen(then)

    def choose(self, element_id, option):
        css = f'#phone [data-el="{element_id}"][data-option="{option}"]'
        self.click(css)
        self.wait(lambda d: self.attribute(css, "aria-checked") == "true", f"{css} chosen")

    def error_text(self):
        box = self.driver.find_element(By.ID, "error")
        return "" if box.get_attribute("hidden") is not None else box.text

    # --- the preview --------------------------------------------------------------------

    def start_preview(self):
        self.preview = subprocess.Popen([self.wellflow, "preview", "--port", "0"], stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        line = self.preview.stdout.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+)", line)
        if not match:
            fail(f"wellflow preview did not say where it listens: {line!r}")
        self.url = match.group(1)
        print(f"  preview at {self.url}")

    def preview_walkthrough(self):
        driver = self.driver
        driver.get(self.url)
        self.wait(lambda d: d.find_element(By.ID, "live").text == "live", "the event stream to connect")
        self.wait_screen("none")
        if "http" in "".join(e.get_attribute("src") or "" for e in driver.find_elements(By.CSS_SELECTOR, "[src]")):
            fail("the page loads something from elsewhere")

        # Onboarding, from the launch rules.
        self.click("#launch")
        self.wait_screen("onboarding.welcome")
        progress = self.attribute("#phone .wf-progress", "aria-valuetext")
        if progress != "Step 1 of 4":
            fail(f"progress reads {progress!r}")
        self.shot("onboarding-welcome")
        self.tap("continue", then="onboarding.features")
        self.tap("continue", then="onboarding.skill")
        if self.attribute('#phone [data-el="continue"]', "disabled") is None:
            fail("continue is enabled before a skill is chosen")
        self.choose("skill", "beginner")
        self.shot("onboarding-skill-chosen")
        self.tap("continue", then="onboarding.finale")
        self.tap("continue", then="checkin.pet")

        # The full daily check-in.
        self.shot("checkin-pet")
        self.tap("begin", then="checkin.sensing")
        self.wait(lambda d: self.element('#phone input[data-el="score"]').send_keys(
            Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT) or True, "the score slider")
        self.wait(lambda d: self.attribute('#phone input[data-el="score"]', "aria-valuetext") == "8, Pleasant",
                  "the score 8 with its caption")
        self.shot("checkin-sensing-score-8")
        self.tap("continue", then="checkin.naming")
        self.choose("emotion", "happy")
        self.choose("labels", "calm")
        self.choose("labels", "proud")
        labels = self.driver.execute_script(
            "return [...document.querySelectorAll('#phone [data-el=\"labels\"][aria-checked=\"true\"]')]"
            ".map(b => b.dataset.option);")
        if sorted(labels) != ["calm", "proud"]:
            fail("the labels calm and proud are not both chosen")
        self.shot("checkin-naming")
        self.tap("continue", then="checkin.shaping")
        first_prompt = self.attribute('#phone [data-el="prompt"][data-option]', "data-option")
        self.choose("prompt", first_prompt)
        # Leaving the field enters its text.
        self.wait(lambda d: self.element('#phone textarea[data-el="response"]').send_keys(
            "a long walk helped", Keys.TAB) or True, "the response field")
        self.wait(lambda d: "enter: {response:" in d.find_element(By.ID, "script").get_attribute("value"),
                  "the typed response to reach the app")
        self.tap("continue", then="checkin.attributing")
        self.choose("associations", "family")
        self.tap("continue", then="checkin.evaluating")
        self.choose("evaluation", "accept")
        self.tap("continue", then="checkin.acting")
        self.shot("checkin-acting")

        # Close raises the exit alert as a modal; stay keeps the check-in.
        self.click('#phone [data-action="close"]')
        self.wait(lambda d: self.attribute('#phone [role="alertdialog"]', "data-alert") == "checkin.confirmExit",
                  "the exit alert")
        if not self.element('#phone [role="alertdialog"]').is_displayed():
            fail("the exit alert is not shown as a dialog")
        self.shot("checkin-exit-alert")
        self.click('#phone .wf-alert [data-el="stay"]')
        self.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, '#phone [role="alertdialog"]'), "the alert to go")
        self.tap("complete", then="none")

        # The panels: the saved mood and the events.
        def query(name):
            return self.driver.execute_script(
                "const row = document.querySelector(`#queries tr[data-query=\"${arguments[0]}\"]`);"
                "return row ? row.cells[1].textContent : null;", name)
        self.wait(lambda d: query("mood.count") == "1", f"mood.count 1 (is {query('mood.count')})")
        if query("mood.latest.score") != "8":
            fail(f"mood.latest.score is {query('mood.latest.score')}")
        notes = query("mood.latest.notes") or ""
        if "walk" in notes:
            fail("the typed notes are shown in the queries panel")
        events = self.driver.find_element(By.ID, "events").text
        for event in ["flow_completed", "mood_saved", "screen_viewed"]:
            if event not in events:
                fail(f"the events panel has no {event}")
        self.shot("checkin-done-panels")

        # Copy as script: the steps taken run green.
        self.click("#copy")
        self.wait(lambda d: d.find_element(By.ID, "copied").text == "copied", "the script to be copied")
        script = self.driver.find_element(By.ID, "script").get_attribute("value")
        path = os.path.join(self.temp, "from-preview.yaml")
        with open(path, "w") as file:
            file.write(script)
        run = subprocess.run([self.wellflow, "run", path], capture_output=True, text=True)
        print(f"  wellflow run of the copied script: exit {run.returncode}")
        if run.returncode != 0:
            fail(f"the copied script does not pass:\n{script}\n{run.stdout}\n{run.stderr}")
        shutil.copy(path, os.path.join(self.out, "from-preview.yaml"))

        # A change made outside the page is pushed to it (no polling, no click).
        request = urllib.request.Request(
            self.url + "/api/command", data=json.dumps({"command": "start", "flow": "mood.history"}).encode(),
            headers={"Content-Type": "application/json"}, method="POST")
        urllib.request.urlopen(request).read()
        self.wait_screen("mood.history")
        self.shot("pushed-mood-history")

        # The clock panel: mood.history waits for midnight; advancing fires that timer.
        self.wait(lambda d: d.find_element(By.ID, "next-timer").text.startswith("next timer: 2026-01-06 00:00:00"),
                  "the history's midnight timer")
        self.click("#next")
        self.wait(lambda d: d.find_element(By.ID, "clock").text.startswith("2026-01-06 00:00:00"),
                  "the clock to reach midnight")
        self.wait_screen("mood.history")

    # --- the reports --------------------------------------------------------------------

    def failing_report(self):
        script = os.path.join(self.temp, "fails.yaml")
        with open(script, "w") as file:
            file.write("name: a failing check-in\n"
                       "steps:\n"
                       "  - start: mood.log\n"
                       "  - enter: {notes: \"secret words\"}\n"
                       "  - set: {score: 3}\n"
                       "  - expect: {screen: mood.history}\n")
        report = os.path.join(self.temp, "report.html")
        run = subprocess.run([self.wellflow, "run", script, "--html", report, "--quiet"], capture_output=True,
                             text=True)
        if run.returncode != 1:
            fail(f"the failing script exited {run.returncode}: {run.stderr}")
        shutil.copy(report, os.path.join(self.out, "failing-run-report.html"))
        self.driver.get("file://" + report)
        message = self.element("#failures .wr-message")
        expected = f"{script}:6:5: expect failed: screen is mood.log, expected mood.history"
        if message.text != expected or not message.is_displayed():
            fail(f"the failure reads {message.text!r}, expected {expected!r}")
        phone = self.element("#failures .wr-failure-screen .wf-phone")
        if phone.get_attribute("data-screen") != "mood.log" or not phone.is_displayed():
            fail("the screen the run failed on is not shown")
        if "secret" in self.driver.page_source:
            fail("the typed notes appear in the report")
        if "12 characters" not in phone.text:
            fail(f"the notes are not shown as their length: {phone.text!r}")
        self.shot("failing-run-report")

    def experiment_report(self, root):
        events = os.path.join(self.temp, "events.ndjson")
        subprocess.run([self.wellflow, "run", os.path.join(root, "Apps/Wellflow/Scripts/experiment-onboarding.yaml"),
                        "--experiments", os.path.join(root, "Apps/Wellflow/Experiments/onboarding-length.yaml"),
                        "--users", "60", "--quiet", "--events", events], check=True, capture_output=True)
        html = os.path.join(self.temp, "experiment.html")
        subprocess.run([self.wellflow, "report", events, "--experiment", "onboarding-length", "--html", html],
                       check=True, capture_output=True)
        shutil.copy(html, os.path.join(self.out, "experiment-report.html"))
        self.driver.get("file://" + html)
        funnels = self.driver.find_elements(By.CSS_SELECTOR, ".rp-funnel svg")
        whiskers = self.driver.find_elements(By.CSS_SELECTOR, ".wf-intervals .wf-whisker")
        if len(funnels) < 2 or len(whiskers) < 2:
            fail(f"the experiment report shows {len(funnels)} funnels and {len(whiskers)} intervals")
        wide = self.driver.execute_script(
            "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        if wide[0] > wide[1]:
            fail(f"the experiment report is {wide[0]} px wide in a {wide[1]} px window: the page scrolls sideways")
        self.shot("experiment-report")

    def close(self):
        if self.driver:
            self.driver.quit()
        if self.preview:
            self.preview.terminate()
            try:
                self.preview.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.preview.kill()
        shutil.rmtree(self.temp, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wellflow", default=".build/debug/wellflow")
    parser.add_argument("--out", default=".build/ci/browser")
    arguments = parser.parse_args()
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    check = Check(arguments.wellflow, arguments.out)
    try:
        check.start_preview()
        check.start_browser()
        print("== preview: onboarding and a full check-in")
        check.preview_walkthrough()
        print("== a failing run's HTML report")
        check.failing_report()
        print("== an experiment's HTML report")
        check.experiment_report(root)
    finally:
        check.close()
    print(f"browser check passed ({len(check.shots)} screenshots in {check.out})")


if __name__ == "__main__":
    main()
