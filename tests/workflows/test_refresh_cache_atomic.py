"""The scheduled job's workflow: refresh drafts only what changed, replies are cached, and runs are atomic."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from drafter import pipeline
from drafter.config import Settings
from drafter.refresh import NOTHING_CHANGED, REFRESHED, find_baseline, refresh

MODULE = '''
def double(x: int) -> int:
    """Twice x."""
    return x * 2


def halve(x: int) -> int:
    """Half of x, rounded down."""
    return x // 2


def negate(x: int) -> int:
    """Minus x."""
    return -x
'''


def _source(tmp_path: Path, text: str = MODULE) -> Path:
    package = tmp_path / "src" / "pkg"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text("")
    (package / "calc.py").write_text(text)
    return tmp_path / "src"


def _empty_replies(openai_server, oa):
    openai_server.responder = lambda request: oa.Scripted(200, oa.completion('{"candidates": []}'))


def _settings(tmp_path, openai_server, **extra) -> Settings:
    return Settings(workspace=tmp_path / "ws", model="openai:local", base_url=openai_server.base_url, jobs=1,
                    max_examples=10, seeds=1, retries=0, **extra)


def test_refresh_calls_the_model_only_for_new_and_changed_signatures(tmp_path, openai_server, oa, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    _empty_replies(openai_server, oa)
    src = _source(tmp_path)
    settings = _settings(tmp_path, openai_server, cache=False)
    latest = tmp_path / "ws" / "latest"

    first = refresh(src, settings)
    assert first.exit_code == REFRESHED and first.plan.baseline is None
    assert len(openai_server.requests) == 3
    first_run = latest.resolve()

    unchanged = refresh(src, settings)
    assert unchanged.exit_code == NOTHING_CHANGED and unchanged.run is None
    assert len(openai_server.requests) == 3  # no call
    assert latest.resolve() == first_run and len(list((tmp_path / "ws" / "runs").iterdir())) == 2  # run + lock file

    _source(tmp_path, MODULE.replace("return x * 2", "return x + x"))  # body only: the contract is the same
    assert refresh(src, settings).exit_code == NOTHING_CHANGED
    assert len(openai_server.requests) == 3

    changed = (MODULE.replace('"""Minus x."""', '"""The additive inverse of x."""')
               .replace("def halve", "def halve_down")
               + '\n\ndef triple(x: int) -> int:\n    """Three times x."""\n    return 3 * x\n')
    _source(tmp_path, changed)
    result = refresh(src, settings)
    assert result.exit_code == REFRESHED
    assert result.plan.changed == ("pkg.calc:halve_down", "pkg.calc:negate", "pkg.calc:triple")
    assert result.plan.removed == ("pkg.calc:halve",)
    assert result.plan.unchanged == ("pkg.calc:double",)
    assert len(openai_server.requests) == 6  # one call per new or changed target
    report = json.loads((latest / "report.json").read_text())
    assert {t["id"]: t["carried_from"] for t in report["targets"]} == {
        "pkg.calc:double": first_run.name, "pkg.calc:halve_down": None, "pkg.calc:negate": None,
        "pkg.calc:triple": None}
    assert report["summary"]["carried"]["removed"] == ["pkg.calc:halve"]


def test_identical_rerun_is_served_from_the_reply_cache(tmp_path, openai_server, oa, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    _empty_replies(openai_server, oa)
    src = _source(tmp_path)
    pipeline.draft(src, _settings(tmp_path, openai_server))
    assert len(openai_server.requests) == 3
    again = pipeline.draft(src, _settings(tmp_path, openai_server))
    assert len(openai_server.requests) == 3  # all three from the cache
    assert any("3 of 3 replies reused" in w for w in again.warnings)
    calls = json.loads((again.run_dir / "model_calls.json").read_text())
    assert [c["cached"] for c in calls] == [True, True, True]
    assert [r.text for r in again.replies] == ['{"candidates": []}'] * 3

    # another temperature is another key; --no-cache asks again whatever is stored
    pipeline.draft(src, _settings(tmp_path, openai_server, temperature=0.7))
    assert len(openai_server.requests) == 6
    pipeline.draft(src, _settings(tmp_path, openai_server, cache=False))
    assert len(openai_server.requests) == 9


def test_a_corrupt_cache_entry_is_ignored_with_a_warning(tmp_path, openai_server, oa, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    _empty_replies(openai_server, oa)
    src = _source(tmp_path, 'def one(x: int) -> int:\n    """x."""\n    return x\n')
    pipeline.draft(src, _settings(tmp_path, openai_server))
    [entry] = (tmp_path / "ws" / "cache" / "replies").rglob("*.json")
    entry.write_text('{"text": ')
    again = pipeline.draft(src, _settings(tmp_path, openai_server))
    assert len(openai_server.requests) == 2
    assert any(str(entry) in w and "ignored" in w for w in again.warnings)
    assert json.loads(entry.read_text())["text"] == '{"candidates": []}'  # rewritten whole


def test_an_interrupted_run_stays_incomplete_and_is_never_a_baseline(tmp_path, monkeypatch):
    src = _source(tmp_path)
    settings = Settings(workspace=tmp_path / "ws", jobs=1, max_examples=10, seeds=1)
    first = pipeline.draft(src, settings)
    latest = tmp_path / "ws" / "latest"
    assert latest.resolve() == first.run_dir and (first.run_dir / "run.json").is_file()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(pipeline, "soundness_stage", interrupted)
    with pytest.raises(KeyboardInterrupt):
        pipeline.run(src, settings)
    [partial] = (tmp_path / "ws" / "runs").glob("*.incomplete")
    assert (partial / "candidates.json").is_file()  # what it had is kept
    assert "interrupted (SIGINT)" in (partial / "INCOMPLETE.txt").read_text()
    assert latest.resolve() == first.run_dir  # readers still see the last complete run
    assert find_baseline(tmp_path / "ws", src.resolve()) is None  # draft-only runs have no report either
    monkeypatch.undo()

    # a clean start: the next run is complete, becomes `latest` and the baseline
    done = pipeline.run(src, settings)
    assert not done.run_dir.name.endswith(".incomplete") and latest.resolve() == done.run_dir
    assert done.report.run_id == done.run_dir.name
    assert find_baseline(tmp_path / "ws", src.resolve()) == done.run_dir
    assert (done.run_dir / "report.json").is_file() and not (done.run_dir / "INCOMPLETE.txt").exists()


def _until(condition, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.1)
    pytest.fail(f"waited {seconds:g} s for {what}")


def _processes_mentioning(*texts: str) -> list[int]:
    """Processes other than this one whose command line has all of `texts` (a run's workers, its import check)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                cmdline = (entry / "cmdline").read_bytes().decode("utf-8", "replace")
                if all(text in cmdline for text in texts):
                    found.append(int(entry.name))
            except OSError:
                pass  # gone meanwhile
    return found


def _drafter_run(src: Path, workspace: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "from drafter.cli import app; app()", "run", str(src),
                             "--workspace", str(workspace), "--jobs", "1", "--max-examples", "10", "--seeds", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="finds the run's processes through /proc")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_a_signalled_drafter_run_is_kept_incomplete_and_the_next_run_starts_clean(tmp_path, signum):
    src = _source(tmp_path)
    workspace = tmp_path / "ws"
    latest = workspace / "latest"
    previous = pipeline.run(src, Settings(workspace=workspace, jobs=1, max_examples=10, seeds=1)).run_dir \
        if signum == signal.SIGINT else None  # SIGKILL: a workspace with no complete run yet
    # A module that sleeps at import holds the run in its import check long enough to be signalled there; the
    # file it leaves in the boxed scratch folder says it is sleeping.
    slow = src / "pkg" / "slow.py"
    slow.write_text('import os, tempfile, time\nopen(os.path.join(tempfile.gettempdir(), "sleeping"), "w").close()\n'
                    'time.sleep(60)\n\n\ndef nap(x: int) -> int:\n    """x."""\n    return x\n')

    drafter = _drafter_run(src, workspace)
    try:
        [marker] = _until(lambda: list(workspace.glob("runs/*.incomplete/scratch/sleeping")), 60,
                          "the run's import check to reach the sleeping module")
        partial = marker.parent.parent
        assert _processes_mentioning(str(workspace), "importcheck")
        drafter.send_signal(signum)
        _, stderr = drafter.communicate(timeout=30)
    finally:
        drafter.kill()

    assert drafter.returncode == (130 if signum == signal.SIGINT else -signal.SIGKILL), stderr
    note = (partial / "INCOMPLETE.txt").read_text()
    assert "has not finished" in note
    assert ("interrupted (SIGINT)" in note) == (signum == signal.SIGINT)
    if previous is None:
        assert not latest.exists() and not latest.is_symlink()
    else:
        assert latest.resolve() == previous
    # Its import check and workers die with it, whatever the signal: nothing stays behind sleeping in SRC code.
    _until(lambda: not _processes_mentioning(str(workspace)), 10, "the run's child processes to end")

    slow.unlink()
    rerun = _drafter_run(src, workspace)
    stdout, stderr = rerun.communicate(timeout=240)
    assert rerun.returncode == 0, stdout + stderr
    done = latest.resolve()
    assert done not in (previous, partial) and (done / "report.json").is_file() and (done / "run.json").is_file()
    assert not (done / "INCOMPLETE.txt").exists() and (partial / "INCOMPLETE.txt").is_file()  # the partial is kept


@pytest.mark.parametrize("which", ["run folder", "replies folder"])
def test_a_past_run_replays_offline(tmp_path, openai_server, oa, monkeypatch, which):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    openai_server.responder = lambda request: oa.Scripted(200, oa.completion(
        '{"candidates": [], "note": "said by the server for ' + openai_server.target_of(request) + '"}'))
    src = _source(tmp_path)
    recorded = pipeline.draft(src, _settings(tmp_path, openai_server))
    path = recorded.run_dir if which == "run folder" else recorded.run_dir / "replies"
    replayed = pipeline.draft(src, Settings(workspace=tmp_path / "ws", model=f"replay:{path}"))
    assert len(openai_server.requests) == 3
    assert [r.text for r in replayed.replies] == [r.text for r in recorded.replies]
    assert replayed.target_notes == recorded.target_notes


def test_two_runs_at_once_on_one_workspace_get_separate_complete_folders(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    src = _source(tmp_path)
    settings = Settings(workspace=tmp_path / "ws")
    with ThreadPoolExecutor(2) as pool:
        outcomes = list(pool.map(lambda _: pipeline.draft(src, settings), range(2)))
    first, second = (o.run_dir for o in outcomes)
    assert first != second
    assert all((d / "run.json").is_file() and (d / "candidates.json").is_file() for d in (first, second))
    assert (tmp_path / "ws" / "latest").resolve() == max(first, second, key=lambda d: (len(d.name), d.name))
    assert not list((tmp_path / "ws" / "runs").glob("*.incomplete"))


def test_cli_in_a_log_prints_plain_progress_lines_and_fails_under_kept(tmp_path):
    from typer.testing import CliRunner

    from drafter.cli import app

    src = _source(tmp_path, 'def one(x: int) -> int:\n    """x."""\n    return x\n')
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps({"pkg.calc:one": {"candidates": []}}))
    result = CliRunner().invoke(app, ["run", str(src), "--model", f"replay:{replies}", "--workspace",
                                      str(tmp_path / "ws"), "--jobs", "1", "--fail-under-kept", "1"])
    assert result.exit_code == 3, result.output
    assert "only 0 kept, fewer than --fail-under-kept 1" in result.output
    assert "[drafter] model: 0/1 done" in result.output and "[drafter] model: 1/1 done" in result.output
    assert "\x1b" not in result.output and "\r" not in result.output  # no bars or cursor moves in a log
