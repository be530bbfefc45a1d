"""The pytest plugin, run for real in a pytest subprocess on a generated test folder."""

import json
import subprocess
import sys

from gate import ledger as L

INI = "[pytest]\nxfail_strict = true\naddopts = -p no:cacheprovider\nmarkers =\n    slowish: registered\n"
OK = "def test_ok():\n    assert True\n"


def _pytest(h, root, *args):
    results = root / "gate-results.json"
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "gate.pytest_plugin", f"--rootdir={root}",
                           f"--gate-results={results}", *args], cwd=root, env=h.cli_env(),
                          capture_output=True, text=True, timeout=120)
    summary = json.loads(results.read_text()) if results.exists() else None
    return done, summary


def _project(tmp_path, h, files, frozen=()):
    root = tmp_path / "proj"
    h.write(root, {"pytest.ini": INI, **files})
    ledger = tmp_path / "ledger.json"
    L.init_ledger(ledger, "hysteresis")
    for test in frozen:
        L.admit(ledger, test, "owner")
    return root, f"--gate-ledger={ledger}"


def test_frozen_tests_run_as_witnesses_and_do_not_change_the_exit_status(tmp_path, h):
    files = {"test_a.py": OK + "\ndef test_frozen_fails():\n    assert False\n\ndef test_frozen_passes():\n    pass\n"}
    root, ledger = _project(tmp_path, h, files, frozen=["test_a.py::test_frozen_fails", "test_a.py::test_frozen_passes"])
    done, summary = _pytest(h, root, ledger)
    assert done.returncode == 0, done.stdout
    lanes = {r["test"]: (r["lane"], r["outcome"]) for r in summary["results"]}
    assert lanes == {"test_a.py::test_ok": ("vote", "pass"), "test_a.py::test_frozen_fails": ("quarantine", "fail"),
                     "test_a.py::test_frozen_passes": ("quarantine", "pass")}  # xfail_strict cannot touch it
    assert summary["witness_failures"] == ["test_a.py::test_frozen_fails"]

    (root / "test_a.py").write_text(files["test_a.py"] + "\ndef test_active_fails():\n    assert 1 == 2\n")
    done, summary = _pytest(h, root, ledger)
    assert done.returncode == 1 and summary["problems"]["regressions"] == ["test_a.py::test_active_fails (fail)"]


def test_a_test_that_exits_or_kills_the_run_cannot_pass(tmp_path, h):
    root, ledger = _project(tmp_path, h, {"test_a.py": OK, "test_b.py": "import sys\n\ndef test_exit():\n"
                                                                         "    sys.exit(0)\n"})
    done, summary = _pytest(h, root, ledger)
    assert done.returncode == 1 and summary["problems"]["regressions"] == ["test_b.py::test_exit (fail)"]

    (root / "test_b.py").write_text("import pytest\n\ndef test_stop():\n    pytest.exit('bye', returncode=0)\n")
    done, summary = _pytest(h, root, ledger)
    assert done.returncode == 1 and "ran to a result" in summary["problems"]["run"][0]

    (root / "test_b.py").write_text("import os\n\ndef test_kill():\n    os._exit(0)\n")
    done, summary = _pytest(h, root, ledger)
    assert summary is None  # the process died with status 0 and no summary: `oracle-gate run` blocks on that
    (root / "test_b.py").unlink()
    done, summary = _pytest(h, root, ledger)
    assert done.returncode == 0 and summary["voting_ran"] == 1


def test_skipped_voting_tests_and_unregistered_markers_fail_closed(tmp_path, h):
    skip = "import pytest\n\n@pytest.mark.skip(reason='flaky')\ndef test_skipped():\n    assert False\n"
    root, ledger = _project(tmp_path, h, {"test_a.py": OK, "test_s.py": skip})
    done, summary = _pytest(h, root, ledger)
    assert done.returncode == 1 and "1 of 2 collected voting tests" in summary["problems"]["run"][0]
    assert {"test": "test_s.py::test_skipped", "outcome": "skip", "lane": "witness"} in summary["results"]

    marked = "import pytest\n\n@pytest.mark.{}\ndef test_marked():\n    pass\n"
    (root / "test_s.py").write_text(marked.format("quarantine_me"))
    done, summary = _pytest(h, root, ledger)
    assert done.returncode == 1 and summary["problems"]["run"] == [
        "unregistered marker quarantine_me on test_s.py::test_marked"]
    (root / "test_s.py").write_text(marked.format("slowish"))
    done, summary = _pytest(h, root, ledger)
    assert done.returncode == 0 and summary["problems"]["run"] == []


def test_malformed_ledger_stops_pytest(tmp_path, h):
    root, _ = _project(tmp_path, h, {"test_a.py": OK})
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 1, "policy": "hysteresis", "tests": []}')
    done, summary = _pytest(h, root, f"--gate-ledger={bad}")
    assert done.returncode != 0 and summary is None and "bad.json" in done.stderr


def test_deselected_tests_collection_errors_and_zero_votes_fail_closed(tmp_path, h):
    # Defence in depth behind `run`'s --pytest-args allow-list: even when pytest is asked to drop tests, it fails.
    root, ledger = _project(tmp_path, h, {"test_a.py": OK, "test_b.py": "def test_other():\n    pass\n"},
                            frozen=["test_c.py::test_frozen"])
    done, summary = _pytest(h, root, ledger, "-k", "test_ok")
    assert done.returncode == 1 and summary["problems"]["run"] == [
        "only 1 of 2 collected voting tests ran to a result (first without one: test_b.py::test_other: deselected)"]

    (root / "test_b.py").write_text("import no_such_module\n\ndef test_other():\n    pass\n")
    done, summary = _pytest(h, root, ledger, "--continue-on-collection-errors")
    assert done.returncode == 1 and summary["problems"]["run"] == ["collection error in test_b.py"]

    (root / "test_b.py").unlink()
    (root / "test_a.py").write_text("def test_frozen():\n    pass\n")
    (root / "test_a.py").rename(root / "test_c.py")
    done, summary = _pytest(h, root, ledger)
    assert done.returncode == 1 and summary["problems"]["run"] == ["zero voting tests were collected"]
    (root / "test_d.py").write_text(OK)
    done, summary = _pytest(h, root, ledger)
    assert done.returncode == 0 and summary["voting_ran"] == 1 and summary["problems"]["run"] == []
