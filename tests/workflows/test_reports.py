"""`drafter report`: md stays short, HTML is one self-contained file (opened in a real headless Chromium), JUnit
XML parses with junitparser (one test case per candidate)."""

import dataclasses
import os
import subprocess
import sys
from pathlib import Path
from collections import Counter
from html.parser import HTMLParser

import pytest
from junitparser import Failure, JUnitXml
from markupsafe import escape

from drafter.report import load_report, render
from drafter.report.markdown import SHOWN_REJECTIONS, SHOWN_SURVIVORS
from drafter.report.entries import CandidateEntry, MutantEntry, TargetEntry

CHROMIUM = "/usr/bin/chromium"
REPO = Path(__file__).resolve().parents[2]


class Tables(HTMLParser):
    """Tables of a document by class: rows of (cell text, cell class)."""

    def __init__(self):
        super().__init__()
        self.tables: list[tuple[dict, list[list[tuple[str, str]]]]] = []
        self._cell: list[str] | None = None
        self._cell_class = ""

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self.tables.append((attrs, []))
        elif tag == "tr" and self.tables:
            self.tables[-1][1].append([])
        elif tag in ("td", "th") and self.tables:
            self._cell, self._cell_class = [], attrs.get("class") or ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][1][-1].append(("".join(self._cell).strip(), self._cell_class))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)

    def by_class(self, name: str):
        return [(attrs, rows) for attrs, rows in self.tables if name in (attrs.get("class") or "").split()]


def _faced(report, target_id):
    return [c for c in report.candidates if c.target == target_id and c.stage in ("sabotage", "kept")]


def _check_dom(html: str, report) -> None:
    """The summary and one kill-matrix table per target with mutants, each cell where the report says."""
    tables = Tables()
    tables.feed(html)
    [(_, summary)] = tables.by_class("summary")
    values = {row[0][0]: row[1][0] for row in summary}
    s = report.summary
    assert (values["targets"], values["kept"], values["rejected"]) == (str(s["targets"]), str(s["kept"]), str(s["rejected"]))
    assert values["mutants survived"] == str(s["mutants"]["survived"])
    matrices = {attrs["data-target"]: rows for attrs, rows in tables.by_class("kill-matrix")}
    with_mutants = {t.id for t in report.targets if t.mutants and _faced(report, t.id)}
    assert set(matrices) == with_mutants and matrices
    for target_id, rows in matrices.items():
        faced = _faced(report, target_id)
        mutants = [m for m in report.mutants if m.target == target_id]
        assert len(rows) == 1 + len(mutants) and all(len(r) == 1 + len(faced) for r in rows)
        expected = Counter(c.outcomes.get(m.id, "none") for m in mutants for c in faced if m.status != "invalid")
        seen = Counter(cls.split()[1] for row in rows[1:] for _, cls in row[1:])
        assert seen == expected


def test_junit_has_one_case_per_candidate_kept_pass_rejected_fail(billing_run, tmp_path):
    report = load_report(billing_run.run_dir)
    path = tmp_path / "drafter.xml"
    path.write_text(render(report, "junit"))
    xml = JUnitXml.fromfile(str(path))
    cases = {(case.classname, case.name): case for suite in xml for case in suite}
    assert len(cases) == len(report.candidates)
    for c in report.candidates:
        case = cases[(c.target, c.name)]
        if c.status == "kept":
            assert case.is_passed, c.id
        else:
            [failure] = case.result
            assert isinstance(failure, Failure) and failure.message == f"{c.stage}: {c.reason}"
    assert sum(s.failures for s in xml) == report.summary["rejected"] and report.summary["kept"] > 0


def test_json_re_renders_report_json_byte_for_byte(billing_run):
    assert render(load_report(billing_run.run_dir), "json") == (billing_run.run_dir / "report.json").read_text()


def _bloated(report):
    """The report plus 12 survivors for a target with a sound candidate, 3 for a target no candidate reached, and
    14 rejections of one reason: what a large real run looks like."""
    faced_target = next(t.id for t in report.targets if _faced(report, t.id))
    ghost = TargetEntry("shop.billing:ghost", "f" * 16, "shop/billing.py", 1, 0, 0, 3, 0, note="no candidate")
    extra = [MutantEntry(f"{faced_target}#extra-{i}", faced_target, "extra", f"extra hole {i}", 1, "survived", (),
                         f"--- a\n+++ b\n@@ -1 +1 @@\n-old {i}\n+new {i}\n") for i in range(12)]
    extra += [MutantEntry(f"shop.billing:ghost#m-{i}", "shop.billing:ghost", "x", f"ghost hole {i}", 1, "survived",
                          (), "--- a\n+++ b\n") for i in range(3)]
    rejected = [CandidateEntry(f"shop.billing:ghost::bad_{i}", "shop.billing:ghost", f"bad_{i}", "invariant",
                               "rejected", "lint", "no_assertion", "nothing asserts", None, (), (), None, None, None)
                for i in range(14)]
    return dataclasses.replace(report, targets=report.targets + (ghost,), mutants=report.mutants + tuple(extra),
                               candidates=report.candidates + tuple(rejected)), faced_target


def test_markdown_lists_survivors_only_where_a_candidate_was_sound_and_truncates_long_lists(billing_run):
    report, faced_target = _bloated(load_report(billing_run.run_dir))
    md = render(report, "md")
    survivors = [m for m in report.mutants if m.target == faced_target and m.status == "survived"]
    assert len(survivors) > SHOWN_SURVIVORS
    assert survivors[0].id in md and survivors[-1].id not in md
    assert f"… and {len(survivors) - SHOWN_SURVIVORS} more surviving mutants of this target in report.html" in md
    assert "ghost hole" not in md  # no candidate of ghost held on the clean code: its mutants are not listed
    assert "bad_0" in md and f"bad_{SHOWN_REJECTIONS}" not in md
    assert f"… and {14 + 1 - SHOWN_REJECTIONS} more rejected as `no_assertion`" in md  # the run has one more
    html = render(report, "html", billing_run.run_dir)
    assert survivors[-1].id in html  # everything is in the HTML


def test_html_is_self_contained_with_kept_code_and_collapsed_survivors(billing_run):
    report = load_report(billing_run.run_dir)
    html = render(report, "html", billing_run.run_dir)
    assert "<script src" not in html and "<link" not in html and 'src="http' not in html  # nothing loaded from outside
    assert (REPO / "drafter" / "report" / "vendor" / "mutation-test-elements.js").read_text()[:200] in html  # inlined
    kept = [c for c in report.candidates if c.status == "kept"]
    code = (billing_run.run_dir / kept[0].file).read_text()
    assert "def test_" in code and str(escape(code)) in html
    assert '<details class="survivors">' in html and "<details open" not in html
    assert html == render(load_report(billing_run.run_dir), "html", billing_run.run_dir)  # deterministic
    assert (billing_run.run_dir / "report.html").read_text() == html  # what the run wrote


def test_the_html_report_renders_in_headless_chromium(billing_run, tmp_path):
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"no browser at {CHROMIUM}: install it with `apt-get install -y chromium` "
                    "(.ci/run does this before make test)")
    report = load_report(billing_run.run_dir)
    page = tmp_path / "report.html"
    page.write_text(render(report, "html", billing_run.run_dir))
    done = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                           "--disable-component-update", "--disable-sync", "--no-first-run",
                           f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "</body></html>" in done.stdout  # the DOM as Chromium serialises it, not the file's text
    _check_dom(done.stdout, report)


def test_a_pair_never_evaluated_shows_as_not_evaluated_not_survived(billing_run):
    report = load_report(billing_run.run_dir)
    faced = next(c for c in report.candidates if c.stage in ("sabotage", "kept") and c.outcomes)
    dropped = next(iter(faced.outcomes))
    cut = dataclasses.replace(faced, outcomes={k: v for k, v in faced.outcomes.items() if k != dropped})
    report = dataclasses.replace(report, candidates=tuple(cut if c.id == faced.id else c for c in report.candidates))
    tables = Tables()
    tables.feed(render(report, "html"))
    rows = dict((a["data-target"], r) for a, r in tables.by_class("kill-matrix"))[faced.target]
    column = [c.id for c in _faced(report, faced.target)].index(faced.id) + 1
    row = next(r for r in rows[1:] if r[0][0] == dropped)
    assert row[column] == ("–", "cell none")
    others = [r[column] for r in rows[1:] if r[0][0] != dropped]
    assert others and all(cls != "cell none" for _, cls in others)


def test_the_cli_writes_each_format_and_refuses_a_bad_one(billing_run, tmp_path):
    for fmt in ("md", "html", "json", "junit"):
        out = tmp_path / f"r.{fmt}"
        done = subprocess.run([sys.executable, "-m", "drafter.cli", "report", str(billing_run.run_dir), "--format", fmt,
                               "--out", str(out)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert out.read_text() == render(load_report(billing_run.run_dir), fmt, billing_run.run_dir)
    bad = subprocess.run([sys.executable, "-m", "drafter.cli", "report", str(billing_run.run_dir), "--format", "pdf"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "--format pdf: choose one of md, html, json, junit, mutation-testing" in bad.stderr
    missing = subprocess.run([sys.executable, "-m", "drafter.cli", "report", str(tmp_path / "nope")],
                             capture_output=True, text=True)
    assert missing.returncode == 2 and "report.json" in missing.stderr
