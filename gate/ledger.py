"""Flake ledger: one JSON file, a policy, human-owned entries and append-only results.

`record` only appends results; `admit`/`release` (human commands) add or remove tests. A test's state is a pure
function of its results, its entry and the policy, so the ledger cannot drift from its evidence.
Results are keyed by (test, commit, host): reruns of one test on one commit on one host count once (a failure
on any rerun sticks).
"""

import math
import socket
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from gate.check import GateError, read_json, sha256_file, stable_json, write_atomic

LEDGER_VERSION = 1
POLICIES = ("hysteresis", "fail_closed_until_reproducer", "reproduction")
DEFAULT_PARAMS: dict[str, dict[str, Any]] = {
    "hysteresis": {"window_n": 20, "enter_rate": 0.20, "exit_m": 50, "exit_rate": 0.02, "exit_bound": "raw"},
    "fail_closed_until_reproducer": {"reproducer_dir": "oracle/reproducers"},
    "reproduction": {"reproductions": 3},
}
OUTCOMES = ("pass", "fail", "skip", "xfail", "timeout")
LANES = ("vote", "quarantine", "witness")
EXIT_BOUNDS = ("raw", "wilson95")
LOCK_TIMEOUT_S = 60


@dataclass(frozen=True)
class Result:
    test: str
    commit: str
    host: str
    outcome: str
    lane: str = "vote"
    seed: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.test, self.commit, self.host)

    def to_json(self) -> dict[str, Any]:
        data = {"test": self.test, "commit": self.commit, "host": self.host, "outcome": self.outcome,
                "lane": self.lane}
        return data | ({"seed": self.seed} if self.seed is not None else {})


@dataclass(frozen=True)
class TestState:
    """status: active | suspect (votes) · frozen | quarantined (witness) · red (blocks every merge)."""

    test: str
    status: str
    reason: str
    figures: dict[str, Any] = field(default_factory=dict)

    @property
    def votes(self) -> bool:
        return self.status in ("active", "suspect", "red")


@dataclass(frozen=True)
class Ledger:
    path: Path
    policy: str
    params: dict[str, Any]
    tests: dict[str, dict[str, Any]]
    results: tuple[Result, ...]

    def to_json(self) -> dict[str, Any]:
        return {"version": LEDGER_VERSION, "policy": self.policy, "params": self.params, "tests": self.tests,
                "results": [r.to_json() for r in self.results]}


def wilson_upper(fails: int, runs: int, z: float = 1.959964) -> float:
    """Upper end of the 95% Wilson score interval on a fail rate (1.0 when there are no runs)."""
    if runs == 0:
        return 1.0
    p = fails / runs
    centre = p + z * z / (2 * runs)
    margin = z * math.sqrt(p * (1 - p) / runs + z * z / (4 * runs * runs))
    return min(1.0, (centre + margin) / (1 + z * z / runs))


# ---- reading and validating -------------------------------------------------------------------------------------

def _need(cond: bool, path: Path, message: str) -> None:
    if not cond:
        raise GateError(f"ledger {path}: {message}")


def _result(path: Path, index: int, row: Any) -> Result:
    where = f"results[{index}]"
    _need(isinstance(row, dict), path, f"{where} must be an object")
    for key in ("test", "commit", "host"):
        _need(isinstance(row.get(key), str) and bool(row[key]), path, f"{where}.{key} must be a non-empty string")
    _need(row.get("outcome") in OUTCOMES, path, f"{where}.outcome must be one of {', '.join(OUTCOMES)}")
    _need(row.get("lane", "vote") in LANES, path, f"{where}.lane must be one of {', '.join(LANES)}")
    seed = row.get("seed")
    _need(seed is None or isinstance(seed, (str, int)), path, f"{where}.seed must be a string or integer")
    return Result(row["test"], row["commit"], row["host"], row["outcome"], row.get("lane", "vote"),
                  None if seed is None else str(seed))


def _params(path: Path, policy: str, raw: Any) -> dict[str, Any]:
    _need(raw is None or isinstance(raw, dict), path, "params must be an object")
    params = {**DEFAULT_PARAMS[policy], **(raw or {})}
    unknown = sorted(set(params) - set(DEFAULT_PARAMS[policy]))
    _need(not unknown, path, f"params has keys unknown to policy {policy}: {', '.join(unknown)}")
    if policy == "hysteresis":
        for key in ("window_n", "exit_m"):
            _need(isinstance(params[key], int) and not isinstance(params[key], bool) and params[key] >= 1, path,
                  f"params.{key} must be a positive integer")
        for key in ("enter_rate", "exit_rate"):
            _need(isinstance(params[key], (int, float)) and 0 <= params[key] <= 1, path,
                  f"params.{key} must be a rate between 0 and 1")
        _need(params["exit_bound"] in EXIT_BOUNDS, path, f"params.exit_bound must be one of {', '.join(EXIT_BOUNDS)}")
    if policy == "reproduction":
        _need(isinstance(params["reproductions"], int) and params["reproductions"] >= 1, path,
              "params.reproductions must be a positive integer")
    return params


def parse_ledger(path: Path, data: Any) -> Ledger:
    _need(isinstance(data, dict), path, "must be a JSON object")
    _need(data.get("version") == LEDGER_VERSION, path, f"key \"version\" must be {LEDGER_VERSION}")
    policy = data.get("policy")
    _need(policy in POLICIES, path, f"key \"policy\" must be one of {', '.join(POLICIES)} (got {policy!r})")
    tests = data.get("tests", {})
    _need(isinstance(tests, dict) and all(isinstance(v, dict) for v in tests.values()), path,
          "key \"tests\" must map test ids to entry objects")
    rows = data.get("results", [])
    _need(isinstance(rows, list), path, "key \"results\" must be a list")
    return Ledger(Path(path), policy, _params(path, policy, data.get("params")), tests,
                  tuple(_result(path, i, row) for i, row in enumerate(rows)))


def load_ledger(path: Path) -> Ledger:
    return parse_ledger(Path(path), read_json(path, "ledger"))


def new_ledger(path: Path, policy: str, params: dict[str, Any] | None = None) -> Ledger:
    if policy not in POLICIES:
        raise GateError(f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")
    return Ledger(Path(path), policy, _params(Path(path), policy, params), {}, ())


# ---- state --------------------------------------------------------------------------------------------------------

def _is_fail(result: Result) -> bool:
    return result.outcome in ("fail", "timeout")


def _rated(results: list[Result]) -> list[Result]:
    """Pass/fail evidence only: skips and xfails are telemetry, not results."""
    return [r for r in results if r.outcome in ("pass", "fail", "timeout")]


def _hysteresis(ledger: Ledger, test: str, results: list[Result]) -> TestState:
    p = ledger.params
    if test in ledger.tests:
        return TestState(test, "frozen", f"admitted by {ledger.tests[test].get('admitted_by', 'a human')}")
    frozen, window, quarantine = False, deque(maxlen=p["window_n"]), []
    for r in _rated(results):
        if not frozen:
            if r.lane == "vote":
                window.append(_is_fail(r))
            if len(window) == p["window_n"] and sum(window) >= p["enter_rate"] * len(window) - 1e-9:
                frozen, quarantine = True, []
        else:
            quarantine.append(_is_fail(r))
            recent = quarantine[-p["exit_m"]:]
            if len(recent) == p["exit_m"] and _exit_ok(p, sum(recent), len(recent)):
                frozen, window = False, deque(maxlen=p["window_n"])
    recent = quarantine[-p["exit_m"]:]
    figures = {"window": f"{sum(window)}/{len(window)} of {p['window_n']}",
               "window_fail_rate": round(sum(window) / len(window), 4) if window else None,
               "quarantine_runs": len(recent), "quarantine_fail_rate": round(sum(recent) / len(recent), 4)
               if recent else None, "quarantine_upper95": round(wilson_upper(sum(recent), len(recent)), 4)}
    if frozen:
        return TestState(test, "frozen", f"window reached fail rate >= {p['enter_rate']}; needs {p['exit_m']} "
                                         f"quarantine runs at <= {p['exit_rate']} ({p['exit_bound']})", figures)
    return TestState(test, "active", "votes; any failure is a regression", figures)


def _exit_ok(p: dict[str, Any], fails: int, runs: int) -> bool:
    if fails > p["exit_rate"] * runs + 1e-9:
        return False
    return p["exit_bound"] == "raw" or wilson_upper(fails, runs) <= p["exit_rate"]


def reproducer_ok(ledger: Ledger, entry: dict[str, Any], repo: Path) -> str | None:
    """None when the entry names a reproducer under the reproducer folder whose bytes match; else why not."""
    reproducer = entry.get("reproducer")
    if not isinstance(reproducer, dict) or not reproducer.get("path") or not reproducer.get("sha256"):
        return "no reproducer recorded in its entry"
    folder = ledger.params["reproducer_dir"].strip("/")
    rel = str(reproducer["path"])
    if not rel.startswith(folder + "/") or ".." in Path(rel).parts:
        return f"reproducer {rel} is not under {folder}/"
    file = repo / rel
    if not file.is_file():
        return f"reproducer {rel} does not exist"
    if sha256_file(file) != reproducer["sha256"]:
        return f"reproducer {rel} does not match the sha256 in its entry"
    return None


def state_of(ledger: Ledger, test: str, repo: Path | None = None) -> TestState:
    results = [r for r in ledger.results if r.test == test]
    fails = [r for r in results if _is_fail(r)]
    if ledger.policy == "hysteresis":
        return _hysteresis(ledger, test, results)
    if ledger.policy == "fail_closed_until_reproducer":
        entry = ledger.tests.get(test)
        if entry is None and not fails:
            return TestState(test, "active", "no recorded failure")
        why_not = reproducer_ok(ledger, entry or {}, repo or ledger.path.parent)
        if why_not:
            return TestState(test, "red", f"recorded flake keeps every merge red: {why_not}",
                             {"failures": len(fails)})
        return TestState(test, "quarantined", "reproducer on file; still cannot green a merge job",
                         {"failures": len(fails)})
    seeded = [r for r in fails if r.seed is not None]
    hosts, commits = {r.host for r in seeded}, {r.commit for r in seeded}
    figures = {"seeded_failures": len(seeded), "distinct_hosts": len(hosts), "distinct_commits": len(commits)}
    need = ledger.params["reproductions"]
    if test in ledger.tests or max(len(hosts), len(commits)) >= need:
        return TestState(test, "quarantined", f"failure reproduced under a frozen seed on >= {need} distinct "
                                              "hosts or commits; only release lifts it", figures)
    if seeded:
        return TestState(test, "suspect", f"seeded failure reproduced {max(len(hosts), len(commits))} < {need} "
                                          "times: witness evidence only, the test still votes", figures)
    return TestState(test, "active", "no seeded failure", figures)


def states(ledger: Ledger, repo: Path | None = None) -> dict[str, TestState]:
    tests = sorted(set(ledger.tests) | {r.test for r in ledger.results})
    return {t: state_of(ledger, t, repo) for t in tests}


# ---- writing (locked, atomic) --------------------------------------------------------------------------------------

def _locked(path: Path) -> FileLock:
    return FileLock(str(path) + ".lock", timeout=LOCK_TIMEOUT_S)


def _save(ledger: Ledger) -> None:
    write_atomic(ledger.path, stable_json(ledger.to_json()))


def _update(path: Path, change) -> Ledger:
    path = Path(path)
    try:
        with _locked(path):
            updated = change(load_ledger(path))
            _save(updated)
            return updated
    except Timeout:
        raise GateError(f"ledger {path}: could not take its lock within {LOCK_TIMEOUT_S}s") from None


def init_ledger(path: Path, policy: str, params: dict[str, Any] | None = None) -> Ledger:
    path = Path(path)
    with _locked(path):
        if path.exists():
            raise GateError(f"ledger {path} already exists")
        ledger = new_ledger(path, policy, params)
        _save(ledger)
    return ledger


def merge_results(existing: tuple[Result, ...], new: list[Result]) -> tuple[Result, ...]:
    """Append results; one (test, commit, host) key holds one result, and a failure on any rerun sticks."""
    rows = list(existing)
    index = {r.key: i for i, r in enumerate(rows)}
    for r in new:
        if r.key in index:
            old = rows[index[r.key]]
            if not _is_fail(old) and (_is_fail(r) or old.outcome not in ("pass",)):
                rows[index[r.key]] = r
        else:
            index[r.key] = len(rows)
            rows.append(r)
    return tuple(rows)


def record(path: Path, results: list[Result]) -> Ledger:
    for r in results:
        if r.outcome not in OUTCOMES or r.lane not in LANES or not (r.test and r.commit and r.host):
            raise GateError(f"cannot record {r}: needs test, commit, host, outcome in {OUTCOMES}, lane in {LANES}")
    return _update(path, lambda led: Ledger(led.path, led.policy, led.params, led.tests,
                                            merge_results(led.results, results)))


def admit(path: Path, test: str, by: str, note: str = "", reproducer: Path | None = None,
          repo: Path | None = None) -> Ledger:
    """Human command: put a test under the policy's quarantine (with a reproducer file if given)."""
    entry: dict[str, Any] = {"admitted_by": by, "note": note}
    if reproducer is not None:
        root = Path(repo) if repo else Path(path).parent
        file = Path(reproducer) if Path(reproducer).is_absolute() else root / reproducer
        if not file.is_file():
            raise GateError(f"reproducer {file} does not exist")
        entry["reproducer"] = {"path": file.resolve().relative_to(root.resolve()).as_posix(),
                               "sha256": sha256_file(file)}

    def change(led: Ledger) -> Ledger:
        return Ledger(led.path, led.policy, led.params, {**led.tests, test: entry}, led.results)
    return _update(path, change)


def release(path: Path, test: str) -> Ledger:
    """Human command: remove a test's entry and its results, so it starts over as active."""
    def change(led: Ledger) -> Ledger:
        if test not in led.tests and not any(r.test == test for r in led.results):
            raise GateError(f"ledger {path}: no test {test!r} to release")
        return Ledger(led.path, led.policy, led.params, {k: v for k, v in led.tests.items() if k != test},
                      tuple(r for r in led.results if r.test != test))
    return _update(path, change)


def default_host() -> str:
    return socket.gethostname() or "unknown-host"
