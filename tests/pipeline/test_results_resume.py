"""The result cache and --resume on a vendored real package (inflection, with recorded replies): an identical rerun
runs no soundness check and no kill matrix again; a bad cache entry is ignored, named and replaced; a run killed
with SIGKILL in the middle of sabotage is finished by --resume without redoing what its journal holds, and ends
with the report of an uninterrupted run."""

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from drafter.config import Settings
from drafter.errors import ConfigError
from drafter.pipeline import run

REPO = Path(__file__).resolve().parents[2]
INFLECTION = REPO / "bench" / "vendor" / "inflection"
CACHE_NOTES = ("result cache", "mutant cache:")  # warnings a run that reused work adds
REPLIES = REPO / "bench" / "inflection_replies.json"
OPTIONS = ["--model", f"replay:{REPLIES}", "--max-examples", "10", "--seeds", "2", "--jobs", "2"]


def settings_for(workspace: Path, **extra) -> Settings:
    return Settings(**{"model": f"replay:{REPLIES}", "workspace": workspace, "max_examples": 10, "seeds": 2, "jobs": 2,
                       **extra})


def entries(folder: Path, kind: str) -> list[Path]:
    return sorted((folder / kind).glob("*/*.json"))


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    workspace = tmp_path_factory.mktemp("cache")
    return workspace, run(INFLECTION, settings_for(workspace))


@pytest.mark.slow
def test_an_identical_rerun_runs_nothing_it_knows_and_writes_the_same_report(first_run, stable_report):
    workspace, first = first_run
    cache = workspace / "cache" / "results"
    checks, targets = len(entries(cache, "soundness")), len(entries(cache, "kill"))
    assert checks > 0 and targets > 0
    again = run(INFLECTION, settings_for(workspace))
    assert f"result cache: {checks} of {checks} soundness checks reused" in " ".join(again.warnings)
    assert f"the kill matrices of {targets} of {targets} targets reused" in " ".join(again.warnings)
    assert stable_report(again.report_paths[0], CACHE_NOTES) == stable_report(first.report_paths[0], CACHE_NOTES)
    assert again.report.summary["kept"] == first.report.summary["kept"] > 0
    # Another setting that shapes results is another key: nothing is reused.
    other = run(INFLECTION, settings_for(workspace, max_examples=11, select=("inflection:ordinal",)))
    assert not any(w.startswith("result cache:") and "reused" in w for w in other.warnings)


@pytest.mark.slow
def test_a_bad_cache_entry_is_ignored_named_and_replaced(first_run, tmp_path, stable_report):
    workspace, first = first_run
    cache, journal = workspace / "cache" / "results", first.run_dir / "results"
    # Entries this run's keys name (the cache also holds those of other settings): the same names as its journal's.
    garbled = cache / entries(journal, "soundness")[0].relative_to(journal)
    garbled.write_text("{not json")
    # Well-formed, but it answers one pair fewer than its key names: a lie the validation must catch.
    short = cache / entries(journal, "kill")[0].relative_to(journal)
    entry = json.loads(short.read_text())
    entry["value"]["results"] = entry["value"]["results"][:-1]
    short.write_text(json.dumps(entry))
    again = run(INFLECTION, settings_for(workspace))
    named = [w for w in again.warnings if "result cache entry" in w]
    assert any(str(garbled) in w for w in named) and any(str(short) in w for w in named), named
    assert stable_report(again.report_paths[0], CACHE_NOTES) == stable_report(first.report_paths[0], CACHE_NOTES)
    assert json.loads(garbled.read_text())["value"]["status"] in ("sound", "unsound")  # replaced by a good one
    assert len(json.loads(short.read_text())["value"]["results"]) == len(entry["value"]["results"]) + 1


def test_resume_refuses_a_complete_run_and_other_settings(first_run, tmp_path):
    workspace, first = first_run
    with pytest.raises(ConfigError, match="not an incomplete run"):
        run(INFLECTION, settings_for(workspace), resume=first.run_dir)
    started = tmp_path / "ws" / "runs" / "20990101-000000.incomplete"
    started.mkdir(parents=True)
    (started / "INCOMPLETE.txt").write_text("partial\n")
    record = json.loads((first.run_dir / "started.json").read_text())
    (started / "started.json").write_text(json.dumps(record))
    with pytest.raises(ConfigError, match="--max-examples 10"):
        run(INFLECTION, replace(settings_for(tmp_path / "ws"), max_examples=12), resume=started)


@pytest.mark.slow
def test_a_run_killed_mid_sabotage_is_finished_by_resume_as_if_never_stopped(first_run, tmp_path, stable_report):
    _, uninterrupted = first_run
    workspace = tmp_path / "ws"
    command = [sys.executable, "-m", "drafter.cli", "run", str(INFLECTION), "--workspace", str(workspace),
               "--no-cache", *OPTIONS]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 600
    journal = None
    while time.monotonic() < deadline and process.poll() is None:
        found = list(workspace.glob("runs/*.incomplete/results/kill/*/*.json"))
        if found:  # the first target's kill matrix is written: sabotage is under way
            journal = found[0].parents[2]
            break
        time.sleep(0.05)
    assert journal is not None, "the run ended or stalled before its first kill matrix was written"
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    run_dir = journal.parent
    assert run_dir.name.endswith(".incomplete") and not (workspace / "latest").exists()
    done_checks, done_targets = len(entries(journal, "soundness")), len(entries(journal, "kill"))
    total_targets = len(entries(uninterrupted.run_dir / "results", "kill"))
    assert 0 < done_targets < total_targets, "the kill did not land in the middle of sabotage"

    resumed = subprocess.run([sys.executable, "-m", "drafter.cli", "run", str(INFLECTION), "--no-cache", *OPTIONS,
                              "--resume", str(run_dir)], capture_output=True, text=True, timeout=900)
    assert resumed.returncode == 0, resumed.stderr
    final = workspace / "runs" / run_dir.name.removesuffix(".incomplete")
    assert (workspace / "latest").resolve() == final
    report = json.loads((final / "report.json").read_text())
    reused = " ".join(w for w in report["warnings"] if w.startswith("result cache:"))
    assert f"result cache: {done_checks} of " in reused
    assert f"the kill matrices of {done_targets} of {total_targets} targets reused" in reused
    assert stable_report(final / "report.json", CACHE_NOTES) == stable_report(uninterrupted.report_paths[0], CACHE_NOTES)
