"""What a CI job sees: no candidate or target output in the log (it is in the run folder), exit codes it can fail
on, and every option's default in --help."""

import dataclasses
import json
import os
import re
import subprocess
import sys

import pytest
import typer

from drafter import cli
from drafter.report.entries import overall_score

NOISY = '''import sys


def double(x: int) -> int:
    """Twice x."""
    print("PROD-STDOUT-NOISE", x)
    print("PROD-STDERR-NOISE", x, file=sys.stderr)
    return x * 2
'''
REPLY = {"noisy.calc:double": {"candidates": [{
    "name": "double_is_even", "kind": "invariant", "inputs": {"x": "st.integers(min_value=-100, max_value=100)"},
    "assume": [], "body": "print('CAND-STDOUT-NOISE', x)\nout = double(x)\nassert out % 2 == 0\nassert out == x + x",
    "counterexample": "x + 1"}]}}
RUNTIME_NOISE = re.compile(r"CAND-STDOUT-NOISE|PROD-STD(OUT|ERR)-NOISE -?\d")  # printed values, not mutant diffs


def test_candidate_and_target_prints_go_to_the_run_folder_never_the_console(tmp_path):
    (tmp_path / "src" / "noisy").mkdir(parents=True)
    (tmp_path / "src" / "noisy" / "__init__.py").write_text("")
    (tmp_path / "src" / "noisy" / "calc.py").write_text(NOISY)
    (tmp_path / "replies.json").write_text(json.dumps(REPLY))
    done = subprocess.run([sys.executable, "-m", "drafter.cli", "run", "src", "--model", "replay:replies.json",
                           "--workspace", "ws", "--seeds", "2", "--max-examples", "20", "--jobs", "2",
                           "--fail-under-kept", "1"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert not RUNTIME_NOISE.search(done.stdout) and not RUNTIME_NOISE.search(done.stderr)
    logs = "".join(p.read_text() for p in (tmp_path / "ws" / "latest" / "logs").glob("worker-*.log"))
    assert "CAND-STDOUT-NOISE" in logs and re.search(r"PROD-STDERR-NOISE -?\d", logs)
    report = json.loads((tmp_path / "ws" / "latest" / "report.json").read_text())
    assert report["summary"]["kept"] == 1  # capturing changed nothing about the verdicts


def test_fail_under_score_exits_3_below_the_score_and_0_at_or_above(billing_run, capsys):
    score = overall_score(billing_run.report)
    assert score is not None and 0 < score < 1
    cli._print_run(billing_run, None, score)  # at the score: passes
    with pytest.raises(typer.Exit) as below:
        cli._print_run(billing_run, None, min(1.0, score + 0.01))
    assert below.value.exit_code == 3
    assert f"mutation score {score:.3f}, below --fail-under-score" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["run", "refresh", "draft", "promote", "report"])
def test_help_shows_every_options_default(command):
    done = subprocess.run([sys.executable, "-m", "drafter.cli", command, "--help"], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "400", "NO_COLOR": "1", "TERM": "dumb"})
    rows = [line for line in done.stdout.splitlines() if re.match(r"^│\s+(\*\s+)?--[a-z]", line)]
    options = [r for r in rows if "--help" not in r and "[required]" not in r]
    assert len(options) >= (10 if command in ("run", "refresh", "draft") else 1)
    missing = [re.search(r"--[a-z-]+", r).group() for r in options if "default" not in r.lower()]
    assert missing == [], f"{command} --help lacks defaults for {missing}"
    if command == "run":
        for expected in ("Default: 100.", "Default: 5.", "Default: 60.", "Default: 3.", "Default: 4."):
            assert expected in done.stdout


def test_a_run_ends_with_its_time_per_stage_and_a_tampered_record_loses_only_that(billing_run, capsys, tmp_path):
    cli._print_run(billing_run, None)
    out = capsys.readouterr().out
    assert "Time per stage" in out and "CPU s" in out
    assert all(name in out for name in ("extract", "soundness", "sabotage", "triage", "report", "total"))

    meta = json.loads((billing_run.run_dir / "run.json").read_text())
    meta["stages"]["soundness"]["cpu_seconds"] = -3.0
    (tmp_path / "run.json").write_text(json.dumps(meta))
    cli._print_run(dataclasses.replace(billing_run, run_dir=tmp_path), None)
    shown = capsys.readouterr()
    assert "time per stage not shown" in shown.err and "stages.soundness" in shown.err
    assert "Time per stage" not in shown.out and f"{billing_run.report.summary['kept']} kept" in shown.out
