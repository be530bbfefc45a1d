"""report.html in a real headless Chromium: the summary leads with the score and the targets that need a reviewer,
the ecosystem's viewer shows a mutant on its source line, and its status filter shows and hides mutants."""

import html
import json
import os
import re
import subprocess
from collections import Counter

import pytest

from drafter.report import load_report, render
from drafter.report.entries import overall_score
from drafter.report.mutation_testing import build_mutation_testing

CHROMIUM = "/usr/bin/chromium"

# Appended to a copy of the page by the test: it walks the viewer's shadow DOM (which --dump-dom does not
# serialise) and writes what it saw into the light DOM. It polls instead of sleeping a fixed time.
PROBE = """<script>
const found = {};
function file() {
  const app = document.querySelector("mutation-test-report-app");
  const view = app.shadowRoot && app.shadowRoot.querySelector("mte-mutant-view");
  const file = view && view.shadowRoot && view.shadowRoot.querySelector("mte-file");
  return file && file.shadowRoot;
}
function dots(root) { return [...root.querySelectorAll("svg[data-mutant-id]")]; }
function done() {
  const pre = document.createElement("pre"); pre.id = "probe"; pre.textContent = JSON.stringify(found);
  document.body.appendChild(pre);
}
let tries = 0;
function step() {
  tries += 1;
  const root = file();
  if (tries > 400) { found.gave_up = true; return done(); }
  if (!root || !dots(root).length) { return setTimeout(step, 50); }
  if (!("before" in found)) {
    found.before = dots(root).map(d => d.getAttribute("data-mutant-id"));
    found.lines = {};
    for (const d of dots(root)) found.lines[d.getAttribute("data-mutant-id")] = d.closest("tr").textContent;
    const filter = root.querySelector("mte-state-filter").shadowRoot.querySelector("#filter-Killed");
    found.killed_checked = filter.checked;
    filter.click();
    return setTimeout(step, 50);
  }
  const after = dots(root).map(d => d.getAttribute("data-mutant-id"));
  if (after.length === found.before.length && tries < 400) return setTimeout(step, 50);
  found.after = after;
  done();
}
location.hash = "#mutant/FILE";
setTimeout(step, 50);
</script></body>"""


def _browser(page, tmp_path) -> str:
    done = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                           "--disable-component-update", "--disable-sync", "--no-first-run",
                           "--virtual-time-budget=60000", f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
                           page.as_uri()], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_the_viewer_shows_the_summary_a_mutant_on_its_line_and_filters(billing_run, tmp_path):
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"no browser at {CHROMIUM}: install it with `apt-get install -y chromium` "
                    "(.ci/run does this before make test)")
    report = load_report(billing_run.run_dir)
    doc = build_mutation_testing(report, billing_run.run_dir)[0]
    [name] = doc["files"]  # billing only: the viewer names a lone file by its base name
    page = tmp_path / "report.html"
    page.write_text(render(report, "html", billing_run.run_dir).replace(
        "</body>", PROBE.replace("FILE", name.rsplit("/", 1)[-1])))
    dom = _browser(page, tmp_path)

    # the summary leads: the score first, then the targets that need a reviewer, lowest score first
    score = re.search(r'data-key="score">([^<]*)<', dom).group(1)
    assert score == f"{overall_score(report) * 100:.1f}%"
    assert dom.index('data-key="score"') < dom.index('id="review"') < dom.index("<mutation-test-report-app")
    review = re.findall(r'<table class="review">(.*?)</table>', dom, re.S)[0]
    listed = re.findall(r"<code>([^<]+)</code>", review)
    needs = {t.id for t in report.targets if t.kept or any(m.target == t.id and m.status in ("survived", "not_reached")
                                                           for m in report.mutants)}
    assert set(listed) == needs and listed
    scores = [t.killed / t.mutants for tid in listed for t in report.targets if t.id == tid and t.mutants]
    assert scores == sorted(scores)

    found = json.loads(html.unescape(re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S).group(1)))
    assert not found.get("gave_up"), found
    rows = {m["id"]: m for m in doc["files"][name]["mutants"]}
    source = doc["files"][name]["source"].splitlines()
    # a mutant sits on its source line: the dot of each shown mutant is on the line its location starts at
    for mutant_id in found["before"]:
        line = source[rows[mutant_id]["location"]["start"]["line"] - 1].strip()
        assert line in found["lines"][mutant_id], (mutant_id, line)
    # by default the viewer shows what needs a look (Survived, NoCoverage) and hides Killed; the filter adds them
    shown = Counter(rows[i]["status"] for i in found["before"])
    assert not found["killed_checked"] and shown["Killed"] == 0
    assert shown["Survived"] == sum(1 for m in rows.values() if m["status"] == "Survived") > 0
    added = Counter(rows[i]["status"] for i in set(found["after"]) - set(found["before"]))
    assert added == Counter({"Killed": sum(1 for m in rows.values() if m["status"] == "Killed")}) and added["Killed"] > 0
