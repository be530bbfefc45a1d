"""Issue 20: whole runs on hostile source trees and replay files. Each shows the bad input, what the user is told
(exit code, the warning or error naming the file, key or target) and the good target beside it that is drafted."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from drafter.cli import app

LONG = "add_" + "x" * 300  # a target whose run-folder file names were longer than the OS allows
ADD = "tiny.calc:add"
INTS = "st.integers(-100, 100)"
GOOD = {"name": "add_commutes", "kind": "invariant", "inputs": {"a": INTS, "b": INTS}, "assume": [],
        "body": "assert add(a, b) == add(b, a)", "counterexample": "an add that ignores an argument"}


def tiny_src(root: Path) -> Path:
    src = root / "src"
    (src / "tiny").mkdir(parents=True)
    (src / "tiny" / "__init__.py").write_text('"""Tiny."""\n')
    (src / "tiny" / "calc.py").write_text(
        'def add(a: int, b: int) -> int:\n    """Return the sum of a and b."""\n    return a + b\n\n\n'
        f'def {LONG}(a: int) -> int:\n    """Return a."""\n    return a\n')
    return src


def drafter(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


@pytest.mark.slow
def test_a_fifo_a_too_long_target_name_an_unknown_replay_key_and_a_surrogate_body_lose_nothing_else(tmp_path):
    src = tiny_src(tmp_path)
    os.mkfifo(src / "tiny" / "pipe.py")  # the heuristic's source reading opened it and blocked for ever
    surrogate = dict(GOOD, name="with_surrogate", body="assert add(a, b) == add(b, a)  # \ud800")
    replies = {ADD: {"candidates": [GOOD, surrogate]},
               f"tiny.calc:{LONG}": {"candidates": [dict(GOOD, name="is_identity", inputs={"a": INTS},
                                                          body=f"assert {LONG}(a) == a")]},
               "tiny.calc:subtract": {"candidates": [GOOD]}}
    (tmp_path / "replies.json").write_text(json.dumps(replies))
    unblock = threading.Timer(120, lambda: open(src / "tiny" / "pipe.py", "w").close())  # a hang ends, as a failure
    unblock.start()
    try:
        for model in (f"replay:{tmp_path / 'replies.json'}", "heuristic"):
            result = drafter("run", src, "--model", model, "--workspace", tmp_path / "ws", "--max-examples", "10",
                             "--seeds", "1", "--jobs", "1", "--select", "tiny.calc:*")
            assert result.exit_code == 0, result.output
    finally:
        assert unblock.is_alive(), "the run blocked on the FIFO"
        unblock.cancel()
    text = " ".join(result.output.split())
    runs = sorted(p for p in (tmp_path / "ws" / "runs").iterdir() if p.is_dir())
    replay_report = json.loads((runs[0] / "report.json").read_text())
    warnings = " ".join(replay_report["warnings"])
    assert "replies for targets that were not extracted: tiny.calc:subtract" in warnings
    status = {c["id"]: (c["status"], c["reason"], c["detail"]) for c in replay_report["candidates"]}
    assert status[f"{ADD}::add_commutes"][0] == "kept"
    assert status[f"{ADD}::with_surrogate"][1] == "bad_schema" and "lone surrogate" in status[f"{ADD}::with_surrogate"][2]
    assert status[f"tiny.calc:{LONG}::is_identity"][0] in ("kept", "rejected")  # drafted, not the end of the run
    assert all(len(os.fsencode(p.name)) <= 255 for p in runs[0].rglob("*"))
    assert "run folder" in text or "report" in text


def test_a_replay_rounds_key_that_is_not_a_round_number_and_no_readable_module_are_named(tmp_path):
    src = tiny_src(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({ADD: {"candidates": [GOOD]}, "rounds": {"²": {ADD: {"candidates": [GOOD]}}}}))
    result = drafter("draft", src, "--model", f"replay:{bad}", "--workspace", tmp_path / "ws")
    assert result.exit_code == 2 and "\"rounds\" key '²' must be a round number from 2" in " ".join(result.output.split())
    good = tmp_path / "good.json"
    good.write_text(json.dumps({ADD: {"candidates": [GOOD]}, "rounds": {"2": {ADD: {"candidates": [GOOD]}}}}))
    assert drafter("draft", src, "--model", f"replay:{good}", "--workspace", tmp_path / "ws",
                   "--select", ADD).exit_code == 0

    unreadable = tmp_path / "only_bad"
    unreadable.mkdir()
    (unreadable / "latin.py").write_bytes(b'"""Caf\xe9."""\n\ndef brew(x):\n    return x\n')
    result = drafter("draft", unreadable, "--workspace", tmp_path / "ws")
    assert result.exit_code == 2 and "skipped as unreadable: latin.py:" in " ".join(result.output.split())
