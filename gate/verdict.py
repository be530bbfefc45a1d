"""`oracle-gate run`: every part in order, stopping at the first failing class, and the merge predicate."""

import dataclasses
import datetime
import hashlib
import json
import os
import random
import secrets
import shlex
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from gate.check import Check, GateError, failed, read_json, stable_json, write_atomic
from gate.deny import deny_changes, read_deny_list
from gate.isolate import copy_oracle, copy_production, isolated_argv, plugin_args, sandbox_options
from gate.ledger import Result, default_host, load_ledger, record
from gate.lock import compare_digests, verify_lock, verify_sidecars
from gate.seal import has_drafted_lock, verify_drafted_locks, verify_manifest
from gate.snapshot import compare_snapshot, surface
from gate.writeset import COPY_IGNORED, apply_patch, escaping_symlinks

REQUIRED_STAGES = ("apply", "deny", "seal", "properties", "oracle-after", "base-rerun", "ledger")
# --pytest-args may only change what pytest prints and how soon it stops. Anything else (paths, -k, -m, --deselect,
# -p, -o, -c, --continue-on-collection-errors, another seed or ledger) could change which tests run or how.
OUTPUT_FLAGS = frozenset({"-q", "--quiet", "-v", "-vv", "-vvv", "--verbose", "-x", "--exitfirst", "-s", "-l",
                          "--showlocals", "--no-header", "--hypothesis-show-statistics"})
OUTPUT_OPTIONS = frozenset({"--tb", "--maxfail", "--durations", "--color", "--capture", "--timeout",
                            "--hypothesis-verbosity"})
# Report files may be written anywhere but into the app checkout (the base rerun copies it afterwards) and the
# gate's own copies; which of these the installed pytest knows is for it to say.
REPORT_FILE_OPTIONS = frozenset({"--junitxml", "--junit-xml", "--report-log", "--result-log", "--resultlog"})


@dataclass(frozen=True)
class GateVerdict:
    checks: tuple[Check, ...]
    required: tuple[str, ...]
    seed: int | None = None

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

    def summary(self) -> dict:
        """The properties run's summary (the gate's pytest plugin wrote it); empty when they did not run."""
        return next((c.data.get("pytest") or {} for c in self.checks if c.name == "properties"), {})

    def sandbox(self) -> str | None:
        return _where(self.summary()) if self.summary() else None

    def failures(self) -> list[dict]:
        """Every failed property with its error, Hypothesis's falsifying examples and the seed to reproduce it."""
        return [{"test": test, "error": f.get("error"), "falsifying_examples": list(f.get("falsifying_examples", ())),
                 "seed": self.seed} for test, f in sorted(self.summary().get("failures", {}).items())]

    def to_json(self) -> dict[str, Any]:
        return {"may_merge": self.may_merge, "blocked_at": self.blocked_at, "verdict": self.line(),
                "seed": self.seed, "sandbox": self.sandbox(), "failures": self.failures(),
                "checks": [c.to_json() for c in self.checks]}


def may_merge(checks: tuple[Check, ...], required: tuple[str, ...]) -> bool:
    """The merge predicate: every required stage ran, and every check that ran passed."""
    ran = {check.name for check in checks}
    return all(stage in ran for stage in required) and all(check.ok for check in checks)


def pytest_passthrough(pytest_args: str, guarded: tuple[Path, ...] = ()) -> list[str]:
    """The words of --pytest-args (report file paths made absolute), or GateError naming the first one that could
    change which tests vote or that writes a report inside a guarded folder."""
    try:
        words = shlex.split(pytest_args)
    except ValueError as exc:
        raise GateError(f"--pytest-args {pytest_args!r} cannot be split: {exc}") from None
    passed = []
    for word in words:
        option, has_value, value = word.partition("=")
        if option in REPORT_FILE_OPTIONS:
            passed.append(_report_file(word, option, value if has_value else "", guarded))
            continue
        passed.append(word)
        if not (word in OUTPUT_FLAGS or (has_value and option in OUTPUT_OPTIONS) or
                (word.startswith("-r") and word[2:].isalpha())):
            allowed = sorted(OUTPUT_FLAGS) + [f"{o}=…" for o in sorted(OUTPUT_OPTIONS)] + ["-rCHARS"]
            raise GateError(f"--pytest-args: {word!r} could change which tests vote; only output and stop options "
                            f"pass through: {' '.join(allowed)}, and report files outside the repository "
                            f"({' '.join(f'{o}=PATH' for o in sorted(REPORT_FILE_OPTIONS))})")
    return passed


def _report_file(word: str, option: str, value: str, guarded: tuple[Path, ...]) -> str:
    """`OPTION=/absolute/path` for a report file outside every guarded folder (relative to where the gate runs, not
    to pytest's working folder)."""
    if not value:
        raise GateError(f"--pytest-args: {word!r} needs its path in the same word: {option}=PATH")
    target = Path(value).expanduser().resolve()
    for folder in guarded:
        if _relative(target, folder) is not None:
            raise GateError(f"--pytest-args: {word!r} writes {target}, inside {Path(folder).resolve()}; write "
                            "reports outside the repository and the gate's working folder")
    return f"{option}={target}"


def _inside(path: Path, app: Path, copy: Path) -> Path:
    """The same file inside the patched copy when path lies in the app folder."""
    try:
        return copy / Path(path).resolve().relative_to(app.resolve())
    except ValueError:
        return Path(path)


def _relative(path: Path, app: Path) -> str | None:
    try:
        return Path(path).resolve().relative_to(app.resolve()).as_posix()
    except ValueError:
        return None


def _rewritten(base: Path, copy: Path, name: str) -> Check | None:
    """A failed check when the patched copy of a seal file (manifest, lock) differs from the base's: the seals are
    evidence the patch must not rewrite, even if the deny list forgot them."""
    if copy == Path(base) or (copy.is_file() and copy.read_bytes() == Path(base).read_bytes()):
        return None
    return Check(name, False, (f"changed: {base} (the patch rewrote the seal file itself)",))


def fresh_seed() -> int:
    """A seed the patch cannot predict: a break that dodges one seed's inputs is caught by the next run's."""
    return secrets.randbelow(2 ** 32)


# Hypothesis loads its "ci" profile (derandomize=True) when one of these is set: on a CI machine every seed would
# draw the same inputs, and the fresh seed a patch cannot predict would be moot.
HYPOTHESIS_CI_MARKERS = ("CI", "__TOX_ENVIRONMENT_VARIABLE_ORIGINAL_CI", "TF_BUILD", "bamboo.buildKey", "BUILDKITE",
                         "CIRCLECI", "CIRRUS_CI", "CODEBUILD_BUILD_ID", "GITHUB_ACTIONS", "GITLAB_CI",
                         "HEROKU_TEST_RUN_ID", "TEAMCITY_VERSION")
NOT_PASSED_TO_PYTEST = frozenset(HYPOTHESIS_CI_MARKERS + ("COV_CORE_SOURCE",))


@dataclass
class PytestRun:
    """One isolated pytest run of the oracle copy against some production tree."""

    oracle_copy: Path
    production: Path
    base: Path
    ledger: Path
    results: Path
    seed: int
    timeout: float
    merge_job: bool
    pytest_args: tuple[str, ...] = ()
    sandbox: dict | None = None  # proxy options; None runs production code in the properties' process
    wall: Path | None = None  # in-process, the only folder the run may write (a Landlock wall around it all)
    clock: float | None = None  # in-process, the POSIX time the run's clock starts at (the clock-shifted vote)

    def run(self, *node_ids: str) -> tuple[int | None, str, dict | None]:
        """(exit status or None on timeout, output tail, gate summary or None)."""
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("PYTEST_", "PYTHON", "HYPOTHESIS")) and k not in NOT_PASSED_TO_PYTEST}
        env.update(PYTHONHASHSEED=str(self.seed), PYTHONDONTWRITEBYTECODE="1", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
                   PYTHONPYCACHEPREFIX=str(self.results.parent / "pyc"))
        if self.clock is not None:
            env["ORACLE_GATE_CLOCK"] = repr(self.clock)
        if self.wall is not None:
            (self.wall / "tmp").mkdir(parents=True, exist_ok=True)
            env["TMPDIR"] = str(self.wall / "tmp")
        words = [*plugin_args(), "-p", "no:cacheprovider",
                 # `--opt=value` form only: pytest guesses its rootdir and ini file from any argument that looks
                 # like a path.
                 f"--rootdir={self.oracle_copy}", "--strict-markers", f"--hypothesis-seed={self.seed}",
                 f"--gate-ledger={self.ledger}", f"--gate-results={self.results}", "--gate-skips-reported",
                 *(["--gate-merge-job"] if self.merge_job else []), *self.pytest_args, *node_ids]
        env["ORACLE_GATE_PYTEST_ARGS"] = json.dumps(words)
        argv = isolated_argv(self.production, self.base, self.sandbox, self.wall)
        proc = subprocess.Popen(argv, cwd=self.oracle_copy, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)
        try:
            output, _ = proc.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return None, "", None
        tail = "\n".join(output.strip().splitlines()[-15:])
        if not self.results.is_file():
            return proc.returncode, tail, None
        return proc.returncode, tail, read_json(self.results, "gate pytest summary")


def _properties(patched: PytestRun, oracle: str) -> tuple[Check, dict | None]:
    code, tail, summary = patched.run()
    if code is None:
        return Check("properties", False, (f"pytest exceeded the wall-clock cap of {patched.timeout:g}s",)), None
    if summary is None:
        return Check("properties", False, (f"pytest (exit {code}) ended without the gate's summary: "
                                           "killed, exited early, or the plugin did not load", tail)), None
    try:
        run_problems, regressions = list(summary["problems"]["run"]), list(summary["problems"]["regressions"])
    except (KeyError, TypeError):
        raise GateError(f"gate pytest summary {patched.results} lacks its problems lists") from None
    if code not in (0, 1) or (code == 1) != summary["blocked"]:
        run_problems = run_problems + [f"pytest exit status {code} does not match the gate's summary"]
    reasons = [f"incomplete: {p}" for p in run_problems] + [f"property failed: {p}" for p in regressions]
    examples = [f"{one_line(example)} ({test}; reproduce: --seed {patched.seed})"
                for test, failure in sorted(summary.get("failures", {}).items())
                for example in failure.get("falsifying_examples", ())]
    ok = not reasons
    if ok:
        voted = [r["test"] for r in summary["results"] if r["lane"] == "vote" and r["outcome"] != "skip"]
        from_oracle = sum(1 for t in voted if t.startswith(oracle.rstrip("/") + "/"))
        reasons = [f"{len(voted)} voting tests passed (evidence that voted: {from_oracle} oracle properties, "
                   f"{len(voted) - from_oracle} production tests); "
                   f"{summary['collected'] - len(voted)} skipped or witness results", _where(summary)]
    else:
        # pytest's own tail only when the summary cannot explain the block: it points at the gate's temporary
        # copies (deleted by now) and Hypothesis's patch files in them.
        explained = not run_problems and all(t.rsplit(" (", 1)[0] in summary.get("failures", {}) for t in regressions)
        reasons = reasons + examples + [_where(summary)] + ([] if explained else [tail])
    return Check("properties", ok, tuple(reasons), {"pytest": summary}), summary


def one_line(example: str) -> str:
    """Hypothesis's multi-line `Falsifying example: test(\\n    xs=[0, 1],\\n)` as one line for logs and messages."""
    text = " ".join(line.strip() for line in example.splitlines() if line.strip())
    return text.replace("( ", "(").replace(", )", ")").replace(",)", ")")


def _where(summary: dict) -> str:
    box = summary.get("sandbox") or {}
    if box.get("in_process"):
        return "production code ran in the properties' own process (--trust-patch-code)"
    wall = box.get("wall") or "none on this kernel, the audit hook only"
    return (f"production code ran in a sandbox process: {box.get('calls', 0)} calls over the channel, "
            f"{box.get('seconds', 0):.2f} s; file-system wall: {wall}")


def _against_base(summary: dict, base_run: PytestRun, seed: int) -> Check:
    """Skips and witness failures compared with the base under the same seed: a skip the base also shows is not
    incomplete, a skip only the patch causes blocks; a witness that fails on the patch and passes on the base is a
    regression of the patch, frozen or not."""
    skipped = list(summary.get("skipped", []))
    witness_failed = list(summary["witness_failures"])
    if not skipped and not witness_failed:
        return Check("base-rerun", True, ("no skips or witness failures to compare with the base",))
    code, tail, base = base_run.run(*dict.fromkeys(skipped + witness_failed))
    if base is None:
        return Check("base-rerun", False, (f"the base rerun (exit {code}) ended without the gate's summary", tail))
    on_base = {r["test"]: r["outcome"] for r in base["results"]}
    problems = [f"skipped on the patch only: {t} ({on_base.get(t, 'not collected')} on the base)"
                for t in skipped if on_base.get(t) != "skip"]
    problems += [f"regression: {t} fails on the patch and passes on the base under seed {seed}"
                 for t in witness_failed if on_base.get(t) == "pass"]
    notes = [f"skipped on the base too: {t}" for t in skipped if on_base.get(t) == "skip"]
    notes += [f"fails on the base too (witness): {t}" for t in witness_failed if on_base.get(t) != "pass"]
    return Check("base-rerun", not problems, tuple(problems + notes))


def _record(ledger: Path, summary: dict, commit: str, host: str, seed: int) -> int:
    rows = [Result(r["test"], commit, host, r["outcome"], r["lane"], str(seed)) for r in summary["results"]]
    record(ledger, rows)
    return len(rows)


def _oracle_unchanged(before: dict[str, dict[str, str]], after: dict[str, dict[str, str]]) -> Check:
    findings = [f"{where}: {line}" for where in before
                for line in compare_digests(before[where], after[where])]
    return Check("oracle-after", not findings, tuple(findings) or (
        "oracle surface unchanged after the properties ran (oracle copy and patched tree)",))


def run_gate(app: Path, patch: Path, deny: Path, manifest: Path, ledger: Path, snapshot: Path | None = None,
             lock: Path | None = None, lock_root: Path | None = None, pytest_args: str = "",
             timeout: float = 600, commit: str | None = None, host: str | None = None,
             merge_job: bool = False, seed: int | None = None, trusted: bool = False,
             oracle: str = "oracle", trust_patch_code: bool = False, second_vote: bool = True,
             seeds: int = 1, clock_years: int = 0) -> GateVerdict:
    """Apply, deny paths, snapshot, seals and locks, properties, oracle re-hash, ledger; stop at the first
    failing class."""
    app = Path(app)
    seed = fresh_seed() if seed is None else seed
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

    def verdict() -> GateVerdict:
        return GateVerdict(tuple(checks), required, seed)

    with tempfile.TemporaryDirectory(prefix="oracle-gate-") as tmp:
        try:
            pytest_words = pytest_passthrough(pytest_args, (app, Path(tmp)))
        except GateError as exc:
            return GateVerdict((failed("pytest-args", exc),), required, seed)
        work = Path(tmp) / "app"
        changes: list = []

        def applied() -> Check:
            nonlocal changes
            changes = apply_patch(app, patch, work)
            return Check("apply", True, (f"patch applied to a copy of {app}; it writes {len(changes)} paths",),
                         {"write_set": sorted({p for c in changes for p in c.paths})})

        def denied() -> Check:
            found = deny_changes(read_deny_list(deny), changes)  # the base's list: the copy holds the patch
            links = escaping_symlinks(work, changes, oracle)
            return Check("deny", found.ok and not links, tuple(links) + found.reasons if links else found.reasons,
                         {**found.data, "symlinks": links})

        if not (stage("apply", applied) and stage("deny", denied)):
            return verdict()
        ledger_rel = _relative(ledger, app)
        excluded = {ledger_rel, f"{ledger_rel}.lock"} if ledger_rel else set()
        if snapshot and not stage("snapshot", lambda: compare_snapshot(work, snapshot, exclude=excluded)):
            return verdict()
        sealed = _inside(manifest, app, work)
        if not (stage("seal", lambda: _rewritten(manifest, sealed, "seal") or verify_manifest(sealed))
                and stage("sidecars", lambda: verify_sidecars(sealed.parent))
                and (not has_drafted_lock(work / oracle, app / oracle)
                     or stage("drafted-lock", lambda: verify_drafted_locks(work / oracle, app / oracle)))):
            return verdict()
        locked = _inside(lock, app, work) if lock else None
        if lock and not stage("lock", lambda: _rewritten(lock, locked, "lock") or verify_lock(
                _inside(lock_root or Path(manifest).parent, app, work), locked)):
            return verdict()
        if not stage("ledger-file", lambda: Check("ledger-file", True, (
                f"ledger {ledger} is readable (policy {load_ledger(ledger).policy})",))):
            return verdict()
        oracle_copy = Path(tmp) / "oracle-run"
        production = work if trust_patch_code else Path(tmp) / "production"
        before: dict[str, dict[str, str]] = {}

        def copied() -> Check:
            kept = copy_oracle(app, oracle_copy, oracle)
            before.update({"oracle copy": surface(oracle_copy, oracle, excluded),
                           "patched tree": surface(work, oracle, excluded)})
            reasons = [f"properties read the base's {', '.join(kept)} from a copy outside the patched tree"]
            if production != work:
                left_out = copy_production(work, production, app, oracle)
                reasons.append(f"the sandbox imports production code from a copy of the patched tree without its "
                               f"oracle surface ({left_out} paths left out)")
            return Check("oracle-copy", True, tuple(reasons))

        if not stage("oracle-copy", copied):
            return verdict()
        sandbox = None if trust_patch_code else sandbox_options(app, oracle, timeout)
        patched = PytestRun(oracle_copy, production, app, Path(ledger).resolve(), Path(tmp) / "gate-results.json",
                            seed, timeout, merge_job, tuple(pytest_words), sandbox)
        summary: dict | None = None

        def properties() -> Check:
            nonlocal summary
            check, summary = _properties(patched, oracle)
            return check

        properties_ok = stage("properties", properties)
        if properties_ok and seeds > 1:
            properties_ok = stage("more-seeds", lambda: _more_seeds(patched, seeds, summary))
        if properties_ok and sandbox is not None and second_vote:
            # Code that hides from the sandbox is seen here; tampering with this test process was seen there.
            properties_ok = stage("in-process", lambda: _in_process_vote(Path(tmp) / "in-process", app, work, oracle,
                                                                         patched, summary))
        if properties_ok and sandbox is not None and clock_years:
            # A break that switches on at a later date meets properties run with the clock that far ahead.
            now = datetime.datetime.now(datetime.timezone.utc)
            ahead = now.replace(year=now.year + clock_years, day=min(now.day, 28) if now.month == 2 else now.day)
            properties_ok = stage("clock-shifted", lambda: _in_process_vote(
                Path(tmp) / "clock-shifted", app, work, oracle, patched, summary, ahead.timestamp()))
        after_ok = stage("oracle-after", lambda: _oracle_unchanged(before, {
            "oracle copy": surface(oracle_copy, oracle, excluded), "patched tree": surface(work, oracle, excluded)}))
        if summary is not None and after_ok:
            if trusted:
                run_commit = commit or "patch-" + hashlib.sha256(Path(patch).read_bytes()).hexdigest()[:16]
                stage("record", lambda: Check("record", True, (
                    f"recorded {_record(ledger, summary, run_commit, host or default_host(), seed)} results "
                    f"for {run_commit} (trusted run, seed {seed})",)))
            else:
                checks.append(Check("record", True, ("not recorded: only --trusted runs (the base, main, scheduled "
                                                     "reruns) feed the flake ledger",)))
        if not (properties_ok and after_ok):
            return verdict()

        def base_rerun() -> Check:
            base_tree = Path(tmp) / "base"
            if sandbox is None:
                shutil.copytree(app, base_tree, ignore=COPY_IGNORED, symlinks=True)
            else:
                copy_production(app, base_tree, app, oracle)
            base_oracle = Path(tmp) / "oracle-base"
            copy_oracle(app, base_oracle, oracle)
            return _against_base(summary, PytestRun(base_oracle, base_tree, app, Path(ledger).resolve(),
                                                    Path(tmp) / "base-results.json", seed, timeout, merge_job,
                                                    sandbox=sandbox),
                                 seed)

        if not stage("base-rerun", base_rerun):
            return verdict()
        stage("ledger", lambda: _ledger_check(summary))
    return verdict()


def _more_seeds(first: "PytestRun", seeds: int, summary: dict | None) -> Check:
    """The same properties under seeds-1 further seeds (each drawn from the first, so `--seed` reproduces all):
    a break that dodges the inputs of one seed meets those of others. Any failure blocks."""
    drawn = random.Random(first.seed)
    others = [drawn.randrange(2**32) for _ in range(seeds - 1)]
    examples = {str(first.seed): sum((summary or {}).get("examples", {}).values())}
    problems: list[str] = []
    for n, seed in enumerate(others):
        run = dataclasses.replace(first, seed=seed, results=first.results.with_name(f"seed-{n}-results.json"))
        check, found = _properties(run, "")
        examples[str(seed)] = sum((found or {}).get("examples", {}).values())
        problems += [] if check.ok else [f"seed {seed}: {r}" for r in check.reasons]
    counted = ", ".join(f"{count} under seed {seed}" for seed, count in examples.items())
    return Check("more-seeds", not problems, tuple(problems) or (f"{seeds} seeds, Hypothesis examples run: {counted}",),
                 {"seeds": [first.seed, *others], "examples": examples})


def _in_process_vote(folder: Path, app: Path, work: Path, oracle: str, sandboxed: "PytestRun",
                     first: dict | None, clock: float | None = None) -> Check:
    """The second vote: the same properties under the same seed with production code in the properties' own
    process, inside a kernel wall that lets it write only its own folder; with `clock`, the clock-shifted vote: the
    same, with the whole process's clock starting at that time. Where the kernel has no wall, untrusted code does
    not run outside the sandbox and there is no such vote."""
    from wall import abi

    name, label = ("in-process", "in-process vote") if clock is None else ("clock-shifted", "clock-shifted vote")
    if not abi():
        return Check(name, True, (f"no {label}: this kernel offers no Landlock wall to run it in",))
    oracle_copy = folder / "oracle-run"
    copy_oracle(app, oracle_copy, oracle)
    # Report files are the first vote's: this one may write nothing outside its folder.
    words = tuple(w for w in sandboxed.pytest_args if w.partition("=")[0] not in REPORT_FILE_OPTIONS)
    run = PytestRun(oracle_copy, work, app, sandboxed.ledger, folder / "results.json", sandboxed.seed,
                    sandboxed.timeout, sandboxed.merge_job, words, None, folder, clock)
    check, summary = _properties(run, oracle)
    where = "production code ran in the properties' own process, inside a kernel wall that lets it write only there"
    if clock is not None:
        where += f", with the clock moved to {datetime.datetime.fromtimestamp(clock, datetime.timezone.utc):%Y-%m-%d}"
    reasons = tuple(f"{label}: {where if r == _where(summary or {}) else r}" for r in check.reasons)
    # A skip the sandboxed vote showed too is the base-rerun's to judge; one only this vote shows blocks.
    skipped = [t for t in (summary or {}).get("skipped", []) if t not in (first or {}).get("skipped", [])]
    if check.ok and skipped:
        return Check(name, False, reasons + tuple(f"{label}: skipped here only: {t}" for t in skipped))
    return Check(name, check.ok, reasons)


def _ledger_check(summary: dict) -> Check:
    """What remains after the voting tests passed: red or merge-blocked ledger entries block; witness failures
    are reported and do not."""
    problems = tuple(summary["problems"]["ledger"])
    witness = tuple(f"witness failure (not a vote): {t}" for t in summary["witness_failures"])
    return Check("ledger", not problems, problems + witness or ("no ledger objections",))


def write_verdict(verdict: GateVerdict, out: Path) -> None:
    write_atomic(out, stable_json(verdict.to_json()))
