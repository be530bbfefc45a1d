"""Flake ledger: the three policies, keyed results, confidence bounds, locking and malformed files."""

import json
import subprocess
import sys

import pytest

from gate import ledger as L

T = "tests/test_x.py::test_flaky"


def _ledger(tmp_path, policy="hysteresis", **params):
    path = tmp_path / "ledger.json"
    L.init_ledger(path, policy, params)
    return path


def _runs(test, outcomes, lane="vote", host="h1", seed=None, prefix="c"):
    return [L.Result(test, f"{prefix}{i}", host, o, lane, seed) for i, o in enumerate(outcomes)]


def test_one_failure_never_freezes_but_sparse_failures_do(tmp_path):
    path = _ledger(tmp_path)
    L.record(path, _runs(T, ["pass"] * 19 + ["fail"]))
    state = L.state_of(L.load_ledger(path), T)
    assert state.status == "active" and state.votes  # one failure in a full window: a regression, not a flake

    sparse = ["fail" if i % 2 else "pass" for i in range(20)]  # ten failures over twenty runs
    L.record(path, _runs("tests/test_x.py::test_other", sparse))
    assert L.state_of(L.load_ledger(path), "tests/test_x.py::test_other").status == "frozen"


def test_window_must_be_full_before_freezing(tmp_path):
    path = _ledger(tmp_path)
    L.record(path, _runs(T, ["fail"] * 19))
    assert L.state_of(L.load_ledger(path), T).status == "active"
    L.record(path, _runs(T, ["fail"], prefix="late"))
    assert L.state_of(L.load_ledger(path), T).status == "frozen"


def test_frozen_test_exits_after_clean_quarantine_runs_and_bound_can_hold_it(tmp_path, h):
    path = _ledger(tmp_path, window_n=4, enter_rate=0.5, exit_m=10, exit_rate=0.1)
    L.record(path, _runs(T, ["fail", "pass", "fail", "pass"]))
    assert L.state_of(L.load_ledger(path), T).status == "frozen"
    L.record(path, _runs(T, ["pass"] * 8 + ["fail", "pass"], lane="quarantine", prefix="q"))
    state = L.state_of(L.load_ledger(path), T)
    assert state.status == "active"  # 1/10 <= 0.1 raw
    bounded = _ledger(tmp_path / "b", window_n=4, enter_rate=0.5, exit_m=10, exit_rate=0.1, exit_bound="wilson95")
    L.record(bounded, _runs(T, ["fail", "pass", "fail", "pass"]) +
             _runs(T, ["pass"] * 8 + ["fail", "pass"], lane="quarantine", prefix="q"))
    state = L.state_of(L.load_ledger(bounded), T)
    assert state.status == "frozen"  # the 95% upper bound on 1/10 is far above 0.1
    assert state.figures["quarantine_fail_rate"] == 0.1 and state.figures["quarantine_upper95"] > 0.4
    code, data = h.gate_json("flake", "status", "--ledger", bounded)  # status shows the raw rate and the bound
    assert code == 0 and data["tests"][T]["quarantine_fail_rate"] == 0.1
    assert data["tests"][T]["quarantine_upper95"] == round(L.wilson_upper(1, 10), 4)


def test_wilson_bound_one_in_fifty_is_near_ten_percent():
    assert 0.09 < L.wilson_upper(1, 50) < 0.11
    assert L.wilson_upper(0, 0) == 1.0


def test_reruns_on_one_commit_and_host_count_once_and_a_failure_sticks(tmp_path):
    path = _ledger(tmp_path)
    L.record(path, [L.Result(T, "c1", "h1", "fail")] + [L.Result(T, "c1", "h1", "pass")] * 5)
    L.record(path, [L.Result(T, "c1", "h2", "pass")])
    rows = L.load_ledger(path).results
    assert [(r.host, r.outcome) for r in rows] == [("h1", "fail"), ("h2", "pass")]


def test_fail_closed_until_reproducer(tmp_path, h):
    repo = tmp_path / "repo"
    (repo / "oracle" / "reproducers").mkdir(parents=True)
    path = repo / "oracle" / "ledger.json"
    L.init_ledger(path, "fail_closed_until_reproducer")
    L.record(path, [L.Result("tests/test_a.py::test_ok", "c1", "h", "pass"), L.Result(T, "c1", "h", "fail")])
    L.record(path, [L.Result(T, "c2", "h", "pass")])
    states = L.states(L.load_ledger(path), repo)
    assert states[T].status == "red" and states["tests/test_a.py::test_ok"].status == "active"
    code, data = h.gate_json("flake", "status", "--ledger", path)
    assert code == 2 and data["red"] == [T]  # a later pass does not clear a recorded flake

    repro = repo / "oracle" / "reproducers" / "flaky.py"
    repro.write_text("# reproduces the flake\n")
    assert h.gate("flake", "admit", "--ledger", path, "--test", T, "--by", "owner", "--reproducer",
                  "oracle/reproducers/flaky.py", "--repo", repo).returncode == 0
    code, data = h.gate_json("flake", "status", "--ledger", path, "--repo", repo)
    assert code == 0 and data["tests"][T]["status"] == "quarantined"
    repro.write_text("# edited after admission\n")
    code, data = h.gate_json("flake", "status", "--ledger", path, "--repo", repo)
    assert code == 2 and data["tests"][T]["status"] == "red" and "does not match" in data["tests"][T]["reason"]


def test_reproduction_policy_needs_three_distinct_hosts_or_commits(tmp_path):
    path = _ledger(tmp_path, "reproduction")
    same_place = [L.Result(T, "c1", "h1", "fail", seed="42")] * 3
    L.record(path, same_place)
    assert L.state_of(L.load_ledger(path), T).status == "suspect"  # witness evidence; the test still votes
    L.record(path, [L.Result(T, "c1", "h2", "fail", seed="42"), L.Result(T, "c1", "h3", "fail", seed="42")])
    assert L.state_of(L.load_ledger(path), T).status == "quarantined"
    L.record(path, _runs(T, ["pass"] * 5, prefix="later"))
    state = L.state_of(L.load_ledger(path), T)
    assert state.status == "quarantined" and "expir" not in json.dumps(L.load_ledger(path).to_json())
    L.release(path, T)
    assert L.state_of(L.load_ledger(path), T).status == "active"


def test_record_never_changes_membership_admit_and_release_do(tmp_path, h):
    path = _ledger(tmp_path)
    assert h.gate("flake", "record", "--trusted", "--ledger", path, "--commit", "c1", "--test", T, "--outcome", "fail").returncode == 0
    assert L.load_ledger(path).tests == {}
    assert h.gate("flake", "admit", "--ledger", path, "--test", T, "--by", "owner").returncode == 0
    assert L.state_of(L.load_ledger(path), T).status == "frozen"
    assert h.gate("flake", "release", "--ledger", path, "--test", T).returncode == 0
    assert L.load_ledger(path).tests == {} and L.state_of(L.load_ledger(path), T).status == "active"
    assert h.gate("flake", "release", "--ledger", path, "--test", T).returncode == 3


@pytest.mark.parametrize(("text", "key"), [
    ("{", "not valid JSON"),
    ('{"version": 1, "policy": "hysteresis", "params": {"window_n": 0}}', "params.window_n"),
    ('{"version": 1, "policy": "hysteresis", "results": [{"test": "t", "commit": "c", "host": "h", '
     '"outcome": "maybe"}]}', "results[0].outcome"),
    ('{"version": 2, "policy": "hysteresis"}', '"version"'),
])
def test_malformed_ledger_is_a_clear_failure(tmp_path, h, text, key):
    path = tmp_path / "ledger.json"
    path.write_text(text)
    for args in (["status"], ["record", "--trusted", "--commit", "c", "--test", T, "--outcome", "pass"]):
        done = h.gate("flake", *args, "--ledger", path)
        assert done.returncode == 3 and key in done.stderr and "ledger.json" in done.stderr
    assert path.read_text() == text  # nothing was overwritten
    good = tmp_path / "good.json"
    L.init_ledger(good, "hysteresis")
    assert h.gate("flake", "status", "--ledger", good).returncode == 0


WRITER = """
import sys
from gate import ledger as L
path, tag = sys.argv[1], sys.argv[2]
for i in range(40):
    L.record(path, [L.Result(f"t::{tag}", f"c{i}", tag, "pass" if i % 3 else "fail")])
"""


def test_concurrent_record_processes_lose_no_result(tmp_path, h):
    path = _ledger(tmp_path)
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), tag], env=h.cli_env())
               for tag in ("a", "b")]
    summary = tmp_path / "summary.json"
    summary.write_text(json.dumps({"results": [{"test": f"t::cli{i}", "outcome": "pass", "lane": "vote"}
                                               for i in range(5)]}))
    clis = [subprocess.Popen([sys.executable, "-m", "gate.cli", "flake", "record", "--trusted", "--ledger", str(path),
                              "--commit", f"k{n}", "--from", str(summary)], env=h.cli_env(),
                             stdout=subprocess.DEVNULL) for n in range(3)]
    assert [p.wait(timeout=120) for p in writers + clis] == [0] * 5
    rows = L.load_ledger(path).results
    assert len(rows) == 40 + 40 + 3 * 5
    assert len({r.key for r in rows}) == len(rows)
