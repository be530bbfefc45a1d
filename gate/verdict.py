"""`oracle-gate run`: every part in order, stopping at the first failing class, and the merge predicate."""

import hashlib
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import gate
from gate.check import Check, GateError, failed, read_json, stable_json, write_atomic
from gate.deny import check_deny
from gate.ledger import Result, default_host, load_ledger, record
from gate.lock import verify_lock, verify_sidecars
from gate.seal import verify_manifest
from gate.snapshot import compare_snapshot

REQUIRED_STAGES = ("deny", "apply", "seal", "properties", "ledger")
COPY_IGNORED = shutil.ignore_patterns(".git", "__pycache__", ".pytest_cache", ".hypothesis")
HYPOTHESIS_SEED = "0"
# --pytest-args may only change what pytest prints and how soon it stops. Anything else (paths, -k, -m, --deselect,
# -p, -o, -c, --continue-on-collection-errors, another seed or ledger) could change which tests run or how.
OUTPUT_FLAGS = frozenset({"-q", "--quiet", "-v", "-vv", "-vvv", "--verbose", "-x", "--exitfirst", "-s", "-l",
                          "--showlocals", "--no-header", "--hypothesis-show-statistics"})
OUTPUT_OPTIONS = frozenset({"--tb", "--maxfail", "--durations", "--color", "--capture", "--timeout",
                            "--hypothesis-verbosity"})


@dataclass(frozen=True)
class GateVerdict:
    checks: tuple[Check, ...]
    required: tuple[str, ...]

    @property
    def may_merge(self) -> bool:
        return may_merge(self.checks, self.required)

    @property
    def blocked_at(self) -> str | None:
        return next((c.name for c in self.checks if not c.ok), None)

    def line(self) -> str:
        if self.may_merge:
            return f"PASS: may merge ({', '.join(c.name for c in self.checks)} all passed)"
        stage = self.blocked_at or "incomplete: " + ", ".join(s for s in self.required
                                                               if s not in {c.name for c in self.checks})
        return f"BLOCKED at {stage}"

    def to_json(self) -> dict[str, Any]:
        return {"may_merge": self.may_merge, "blocked_at": self.blocked_at, "verdict": self.line(),
                "checks": [c.to_json() for c in self.checks]}


def may_merge(checks: tuple[Check, ...], required: tuple[str, ...]) -> bool:
    """The merge predicate: every required stage ran, and every check that ran passed."""
    ran = {check.name for check in checks}
    return all(stage in ran for stage in required) and all(check.ok for check in checks)


def pytest_passthrough(pytest_args: str) -> list[str]:
    """The words of --pytest-args, or GateError naming the first one that could change which tests vote."""
    try:
        words = shlex.split(pytest_args)
    except ValueError as exc:
        raise GateError(f"--pytest-args {pytest_args!r} cannot be split: {exc}") from None
    for word in words:
        option, has_value, _ = word.partition("=")
        if not (word in OUTPUT_FLAGS or (has_value and option in OUTPUT_OPTIONS) or
                (word.startswith("-r") and word[2:].isalpha())):
            allowed = sorted(OUTPUT_FLAGS) + [f"{o}=…" for o in sorted(OUTPUT_OPTIONS)] + ["-rCHARS"]
            raise GateError(f"--pytest-args: {word!r} could change which tests vote; only output and stop options "
                            f"pass through: {' '.join(allowed)}")
    return words


def _inside(path: Path, app: Path, copy: Path) -> Path:
    """The same file inside the patched copy when path lies in the app folder."""
    try:
        return copy / Path(path).resolve().relative_to(app.resolve())
    except ValueError:
        return Path(path)


def _rewritten(base: Path, copy: Path, name: str) -> Check | None:
    """A failed check when the patched copy of a seal file (manifest, lock) differs from the base's: the seals are
    evidence the patch must not rewrite, even if the deny list forgot them."""
    if copy == Path(base) or (copy.is_file() and copy.read_bytes() == Path(base).read_bytes()):
        return None
    return Check(name, False, (f"changed: {base} (the patch rewrote the seal file itself)",))


def _apply(app: Path, patch: Path, work: Path) -> Check:
    shutil.copytree(app, work, ignore=COPY_IGNORED, symlinks=True)
    # The ceiling stops git from treating an enclosing repository as the target of the patch.
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(work.parent)}
    done = subprocess.run(["git", "apply", "--whitespace=nowarn", str(Path(patch).resolve())], cwd=work,
                          capture_output=True, text=True, env=env)
    if done.returncode != 0:
        return Check("apply", False, (f"patch {patch} does not apply to {app}: {done.stderr.strip()}",))
    return Check("apply", True, (f"patch applied to a copy of {app}",))


def _pytest(work: Path, ledger: Path, results: Path, pytest_args: list[str], timeout: float,
            merge_job: bool) -> tuple[Check, dict | None]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")}
    gate_parent = str(Path(gate.__file__).resolve().parent.parent)
    env.update(PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1", PYTHONPYCACHEPREFIX=str(results.parent / "pyc"),
               PYTHONPATH=os.pathsep.join([gate_parent] + [p for p in [env.get("PYTHONPATH")] if p]))
    argv = [sys.executable, "-m", "pytest", "-p", "gate.pytest_plugin", "-p", "no:cacheprovider",
            # `--opt=value` form only: pytest guesses its rootdir and ini file from any argument that looks like a
            # path, and a ledger outside the copy would otherwise pull in the unpatched tree's configuration.
            f"--rootdir={work}", "--strict-markers", f"--hypothesis-seed={HYPOTHESIS_SEED}",
            f"--gate-ledger={ledger}", f"--gate-results={results}", *(["--gate-merge-job"] if merge_job else []),
            *pytest_args]
    proc = subprocess.Popen(argv, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return Check("properties", False, (f"pytest exceeded the wall-clock cap of {timeout:g}s",)), None
    tail = "\n".join(output.strip().splitlines()[-15:])
    if not results.is_file():
        return Check("properties", False, (f"pytest (exit {proc.returncode}) ended without the gate's summary: "
                                           "killed, exited early, or the plugin did not load", tail)), None
    summary = read_json(results, "gate pytest summary")
    try:
        run_problems, regressions = list(summary["problems"]["run"]), list(summary["problems"]["regressions"])
    except (KeyError, TypeError):
        raise GateError(f"gate pytest summary {results} lacks its problems lists") from None
    if proc.returncode not in (0, 1) or (proc.returncode == 1) != summary["blocked"]:
        run_problems = run_problems + [f"pytest exit status {proc.returncode} does not match the gate's summary"]
    reasons = [f"incomplete: {p}" for p in run_problems] + [f"property failed: {p}" for p in regressions]
    ok = not reasons
    reasons = reasons or [f"{summary['voting_ran']} voting tests passed; "
                          f"{summary['collected'] - summary['voting_ran']} witness results"]
    return Check("properties", ok, tuple(reasons) + (() if ok else (tail,)), {"pytest": summary}), summary


def _record(ledger: Path, summary: dict, commit: str, host: str) -> int:
    rows = [Result(r["test"], commit, host, r["outcome"], r["lane"]) for r in summary["results"]]
    record(ledger, rows)
    return len(rows)


def run_gate(app: Path, patch: Path, deny: Path, manifest: Path, ledger: Path, snapshot: Path | None = None,
             lock: Path | None = None, lock_root: Path | None = None, pytest_args: str = "",
             timeout: float = 600, commit: str | None = None, host: str | None = None,
             merge_job: bool = False) -> GateVerdict:
    """Deny paths, snapshot, seals and locks, properties, ledger; stop at the first failing class."""
    app = Path(app)
    required = REQUIRED_STAGES + (("snapshot",) if snapshot else ()) + (("lock",) if lock else ())
    checks: list[Check] = []

    def stage(name: str, fn: Callable[[], Check]) -> bool:
        try:
            checks.append(fn())
        except GateError as exc:
            checks.append(failed(name, exc))
        except Exception as exc:  # whatever else goes wrong inside a stage is a block, never a crash
            checks.append(failed(name, f"{type(exc).__name__}: {exc}"))
        return checks[-1].ok

    try:
        pytest_words = pytest_passthrough(pytest_args)
    except GateError as exc:
        return GateVerdict((failed("pytest-args", exc),), required)
    with tempfile.TemporaryDirectory(prefix="oracle-gate-") as tmp:
        work = Path(tmp) / "app"
        if not app.is_dir():
            checks.append(failed("apply", f"app folder {app} does not exist"))
            return GateVerdict(tuple(checks), required)
        if not (stage("deny", lambda: check_deny(deny, patch)) and stage("apply", lambda: _apply(app, patch, work))):
            return GateVerdict(tuple(checks), required)
        if snapshot and not stage("snapshot", lambda: compare_snapshot(work, snapshot)):
            return GateVerdict(tuple(checks), required)
        sealed = _inside(manifest, app, work)
        if not (stage("seal", lambda: _rewritten(manifest, sealed, "seal") or verify_manifest(sealed))
                and stage("sidecars", lambda: verify_sidecars(sealed.parent))):
            return GateVerdict(tuple(checks), required)
        locked = _inside(lock, app, work) if lock else None
        if lock and not stage("lock", lambda: _rewritten(lock, locked, "lock") or verify_lock(
                _inside(lock_root or Path(manifest).parent, app, work), locked)):
            return GateVerdict(tuple(checks), required)
        if not stage("ledger-file", lambda: Check("ledger-file", True, (
                f"ledger {ledger} is readable (policy {load_ledger(ledger).policy})",))):
            return GateVerdict(tuple(checks), required)
        summary: dict | None = None

        def properties() -> Check:
            nonlocal summary
            check, summary = _pytest(work, Path(ledger).resolve(), Path(tmp) / "gate-results.json",
                                     pytest_words, timeout, merge_job)
            return check

        properties_ok = stage("properties", properties)
        if summary is not None:
            # The ledger records this run's bits whether or not the merge goes through.
            run_commit = commit or "patch-" + hashlib.sha256(Path(patch).read_bytes()).hexdigest()[:16]
            stage("record", lambda: Check("record", True, (
                f"recorded {_record(ledger, summary, run_commit, host or default_host())} results "
                f"for {run_commit}",)))
        if not properties_ok:
            return GateVerdict(tuple(checks), required)
        stage("ledger", lambda: _ledger_check(summary))
    return GateVerdict(tuple(checks), required)


def _ledger_check(summary: dict) -> Check:
    """What remains after the voting tests passed: red or merge-blocked ledger entries block; witness failures
    are reported and do not."""
    problems = tuple(summary["problems"]["ledger"])
    witness = tuple(f"witness failure (not a vote): {t}" for t in summary["witness_failures"])
    return Check("ledger", not problems, problems + witness or ("no ledger objections",))


def write_verdict(verdict: GateVerdict, out: Path) -> None:
    write_atomic(out, stable_json(verdict.to_json()))
