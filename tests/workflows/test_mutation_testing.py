"""`drafter report RUN --format mutation-testing`: JSON valid against the vendored mutation-testing-report-schema,
on the bundled example and on a vendored real package, with statuses mapped honestly."""

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import dataclasses
import jsonschema
import pytest

from drafter.report import load_report, render
from drafter.report.mutation_testing import STATUS, build_mutation_testing, parse_change

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "drafter" / "report" / "vendor"
                     / "mutation-testing-report-schema.json").read_text())


def _mutants(doc):
    return {m["id"]: (name, m) for name, entry in doc["files"].items() for m in entry["mutants"]}


def _check(run_dir):
    report = load_report(run_dir)
    doc, left_out = build_mutation_testing(report, run_dir)
    jsonschema.Draft7Validator(SCHEMA).validate(doc)
    assert left_out == []
    mutants = _mutants(doc)
    assert set(mutants) == {m.id for m in report.mutants}
    tests = {t["id"] for f in doc["testFiles"].values() for t in f["tests"]}
    assert tests == {c.id for c in report.candidates if c.status == "kept"} and tests
    for m in report.mutants:
        name, row = mutants[m.id]
        assert row["status"] == STATUS[m.status]
        assert set(row.get("killedBy", ())) == set(m.killed_by) <= tests
        assert set(row.get("coveredBy", ())) <= tests
        # the location points at the text the diff removes from the source the file carries
        removed = [line[1:] for line in m.diff.splitlines() if line.startswith("-") and not line.startswith("---")]
        start, end = row["location"]["start"], row["location"]["end"]
        source_line = doc["files"][name]["source"].splitlines()[start["line"] - 1]
        if removed and start["line"] == end["line"]:
            assert source_line[start["column"] - 1:end["column"] - 1] in removed[0] and source_line == removed[0]
    return report, doc


def test_bundled_example_is_valid_and_maps_statuses_honestly(billing_run):
    report, doc = _check(billing_run.run_dir)
    seen = Counter(m["status"] for _, m in _mutants(doc).values())
    assert seen["Killed"] == report.summary["mutants"]["killed"] and seen["Survived"] == report.summary["mutants"]["survived"]
    # a mutant no candidate met is Ignored with the reason, never Survived; a timeout kill stays Timeout
    target = report.targets[0].id
    changed = [dataclasses.replace(m, status="not_evaluated", killed_by=()) if m.target == target else
               dataclasses.replace(m, status="timeout") if m.status == "killed" else m for m in report.mutants]
    doc = build_mutation_testing(dataclasses.replace(report, mutants=tuple(changed)), billing_run.run_dir)[0]
    jsonschema.validate(doc, SCHEMA)
    for m in changed:
        row = _mutants(doc)[m.id][1]
        if m.status == "not_evaluated":
            assert row["status"] == "Ignored" and row["statusReason"].startswith("not evaluated") and "killedBy" not in row
        elif m.status == "timeout":
            assert row["status"] == "Timeout" and "repeated" in row["statusReason"]


@pytest.mark.slow
def test_vendored_real_package_is_valid(inflection_run):
    report, doc = _check(inflection_run.run_dir)
    assert list(doc["files"]) == ["inflection/__init__.py"]
    assert {"Killed", "Survived"} <= {m["status"] for _, m in _mutants(doc).values()}


def test_the_cli_writes_it(billing_run, tmp_path):
    out = tmp_path / "mutation.json"
    done = subprocess.run([sys.executable, "-m", "drafter.cli", "report", str(billing_run.run_dir), "--format",
                           "mutation-testing", "--out", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    jsonschema.validate(json.loads(out.read_text()), SCHEMA)
    assert out.read_text() == render(load_report(billing_run.run_dir), "mutation-testing", billing_run.run_dir)


@pytest.mark.parametrize("diff, start, end, replacement", [
    ("--- a/m.py\n+++ b/m.py\n@@ -3,3 +3,3 @@\n x = 1\n-    return len(xs)\n+    return xs\n y\n", (4, 12), (4, 19), "xs"),
    ("--- a/m.py\n+++ b/m.py\n@@ -3,2 +3,2 @@\n-    return a < b\n+    return a <= b\n", (3, 15), (3, 16), "= "),
    ("--- a/m.py\n+++ b/m.py\n@@ -3,2 +3,2 @@\n-    flag = False\n+    flag = True\n", (3, 12), (3, 17), "True"),
    ("--- a/m.py\n+++ b/m.py\n@@ -3,2 +3,3 @@\n x = 1\n+    a = -a\n     if a:\n", (4, 5), (4, 7), "a = -a\n    if"),
])
def test_a_diff_becomes_a_location_in_the_old_file(diff, start, end, replacement):
    change = parse_change(diff)
    assert (change.path, change.start, change.end, change.replacement) == ("m.py", start, end, replacement)
    assert parse_change("--- a/m.py\n+++ b/m.py\n") is None
