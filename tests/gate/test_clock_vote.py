"""--clock-years N: the properties run once more in-process, walled, with the whole process's clock N years ahead
(time-machine). A break that switches on at a later date blocks there; an honest patch passes every vote."""

import datetime
import shutil
from pathlib import Path

import pytest

JOURNAL = Path(__file__).resolve().parents[2] / "examples" / "journal"
MONEY = "books/money.py"
HONEST = "    return [(share + (1 if i < extra else 0)) * CENT for i in range(parts)]\n"
# Drops the odd cents from 2031 on: shares no longer sum to the total, which a property checks.
LATER = ("    import time\n    if time.time() > 1924992000:\n        return [share * CENT for i in range(parts)]\n"
         + HONEST)


def _run(h, app, tmp_path, edits, *extra):
    patch = tmp_path / f"p{len(list(tmp_path.glob('*.diff')))}.diff"
    patch.write_text(h.make_patch(app, edits, tmp_path))
    return h.gate_json(*h.run_args(app, patch, *extra))


def _check(verdict, name):
    return next((c for c in verdict["checks"] if c["check"] == name), None)


def test_a_break_that_switches_on_later_blocks_in_the_clock_shifted_vote(tmp_path, h):
    import wall

    if not wall.abi():
        pytest.skip("no Landlock on this kernel: there is no in-process vote to shift")
    assert datetime.datetime.now().year < 2031  # the break below is still asleep today
    app = tmp_path / "books-app"
    shutil.copytree(JOURNAL, app, ignore=shutil.ignore_patterns("__pycache__", "*.lock", ".hypothesis"))
    text = (app / MONEY).read_text()
    assert HONEST in text
    cheat = {MONEY: text.replace(HONEST, LATER)}
    code, verdict = _run(h, app, tmp_path, cheat)
    assert code == 0 and _check(verdict, "clock-shifted") is None  # today's clock: every vote passes
    code, verdict = _run(h, app, tmp_path, cheat, "--clock-years", "10")
    assert (code, verdict["blocked_at"]) == (2, "clock-shifted"), verdict
    reasons = _check(verdict, "clock-shifted")["reasons"]
    assert any("test_allocation_sums_to_the_total" in r for r in reasons), reasons
    honest = {"docs/CHANGELOG.md": (app / "docs" / "CHANGELOG.md").read_text() + "- nothing changed\n"}
    code, verdict = _run(h, app, tmp_path, honest, "--clock-years", "10")
    assert code == 0, verdict
    moved = f"with the clock moved to {datetime.datetime.now(datetime.timezone.utc).year + 10}-"
    assert any(moved in r for r in _check(verdict, "clock-shifted")["reasons"]), verdict
