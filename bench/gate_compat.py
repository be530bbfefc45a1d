"""The gate's compatibility bar on real code: a package's own test suite is the oracle; the unpatched base and an
honest refactor must PASS through the sandbox with the same tests passing as under plain pytest.

For each vendored package (bench/vendor/NAME: the package, its tests/ and its licence) a gated repository is built
in a temporary folder (pytest.ini with testpaths = tests, an oracle folder with a deny list, an empty manifest and a
ledger); then, under one seed: plain pytest, `oracle-gate run` on a patch that touches only a changelog, and on the
honest refactor below. Prints per-test agreement, counts and whole-process wall times.

Usage: python bench/gate_compat.py [NAME ...] [--seed N] [-- extra run options, e.g. --trust-patch-code]
"""

import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VENDOR = REPO / "bench" / "vendor"
# An honest refactor per package: (file, old text, new text); behaviour is unchanged.
REFACTORS = {
    "iso8601": ("iso8601/iso8601.py",
                '    if sign == "-":\n        hours = -hours\n        minutes = -minutes\n'
                '    return FixedOffset(hours, minutes, description)\n',
                '    factor = -1 if sign == "-" else 1\n'
                '    return FixedOffset(factor * hours, factor * minutes, description)\n'),
    "idna": ("idna/core.py", "    return len(label) <= 63\n", "    return not len(label) > 63\n"),
    "inflection": ("inflection/__init__.py", "    return word.replace('_', '-')\n",
                   "    return '-'.join(word.split('_'))\n"),
    "isodate": ("src/isodate/isodates.py", "    return strftime(tdate, format, yeardigits)\n",
                "    text = strftime(tdate, format, yeardigits)\n    return text\n"),
    "webcolors": ("src/webcolors/_normalization.py", '        hex_digits = "".join(2 * s for s in hex_digits)\n',
                  '        hex_digits = "".join(s + s for s in hex_digits)\n'),
    "semver": ("src/semver/version.py", "        cls = type(self)\n        return cls(self._major + 1)\n",
               "        return type(self)(major=self._major + 1)\n"),
}
PYTEST_INI = """[pytest]
testpaths = tests
pythonpath = {root}
addopts = -p no:cacheprovider
"""
DENY = "oracle/\n**/test_*.py\n**/conftest.py\npytest.ini\n**/sitecustomize.py\n"
SUMMARY_LINE = re.compile(r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (.+?)(?: - .*)?$")


def gated_repo(name: str, dest: Path) -> Path:
    """The vendored package (bench/vendor/NAME, or a folder of that layout) as a repository the gate protects: its
    suite is the oracle."""
    source = VENDOR / name if (VENDOR / name).is_dir() else Path(name)
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns("__pycache__", ".hypothesis", "*.egg-info"))
    (dest / "pytest.ini").write_text(PYTEST_INI.format(root="src" if (dest / "src").is_dir() else "."))
    (dest / "oracle" / "fixtures").mkdir(parents=True)
    (dest / "oracle" / "path_deny.txt").write_text(DENY)
    (dest / "oracle" / "fixtures" / "manifest.json").write_text(json.dumps({"version": 1, "fixtures": []}))
    (dest / "oracle" / "ledger.json").write_text(json.dumps({"version": 1, "policy": "hysteresis", "params": {
        "window_n": 20, "enter_rate": 0.2, "exit_m": 50, "exit_rate": 0.02, "exit_bound": "raw"}, "results": [],
        "admitted": {}}))
    return dest


def plain_pytest(app: Path, seed: int) -> tuple[dict[str, str], float]:
    """Outcome per test id under plain pytest (production code in-process, nothing of the gate), and seconds."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:randomly",
                           f"--hypothesis-seed={seed}"], cwd=app, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    outcomes = {}
    for line in done.stdout.splitlines():
        found = SUMMARY_LINE.match(line)
        if found:
            outcomes[found[2]] = {"PASSED": "pass", "FAILED": "fail", "ERROR": "fail", "SKIPPED": "skip"}.get(
                found[1], found[1].lower())
    return outcomes, seconds


def patch_for(app: Path, edits: dict[str, str], scratch: Path) -> Path:
    work = scratch / f"work-{len(list(scratch.glob('work-*')))}"
    shutil.copytree(app, work)
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@example.invalid", "-C", str(work)]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "base"], check=True)
    for rel, text in edits.items():
        (work / rel).write_text(text)
    subprocess.run(git + ["add", "-A"], check=True)
    patch = scratch / f"{work.name}.diff"
    patch.write_text(subprocess.run(git + ["diff", "--cached", "HEAD"], check=True, capture_output=True,
                                    text=True).stdout)
    return patch


def gate_run(app: Path, patch: Path, seed: int, extra: list[str], scratch: Path) -> tuple[int, dict, float]:
    oracle = app / "oracle"
    argv = [sys.executable, "-m", "gate.cli", "run", "--app", str(app), "--patch", str(patch),
            "--deny", str(oracle / "path_deny.txt"), "--manifest", str(oracle / "fixtures" / "manifest.json"),
            "--ledger", str(oracle / "ledger.json"), "--out", str(scratch / "verdict.json"), "--seed", str(seed),
            "--json", *extra]
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, cwd=REPO)
    seconds = time.perf_counter() - start
    try:
        verdict = json.loads(done.stdout)
    except ValueError:
        sys.exit(f"gate run gave no verdict ({done.returncode}): {done.stdout[-2000:]}{done.stderr[-2000:]}")
    return done.returncode, verdict, seconds


def gate_outcomes(verdict: dict) -> dict[str, str]:
    summary = next((c.get("pytest") for c in verdict["checks"] if c["check"] == "properties"), None) or {}
    return {r["test"]: r["outcome"] for r in summary.get("results", [])}


def compare(name: str, seed: int, extra: list[str], extra_args: tuple[str, ...] = ()) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"gate-compat-{Path(name).name}-") as scratch_dir:
        scratch = Path(scratch_dir)
        app = gated_repo(name, scratch / Path(name).name)
        plain, plain_seconds = plain_pytest(app, seed)
        rows = {"package": Path(name).name, "seed": seed, "plain": _counts(plain), "plain_seconds": round(plain_seconds, 2)}
        file, old, new = REFACTORS[Path(name).name]
        source = (app / file).read_text()
        if old not in source:
            sys.exit(f"{name}: the refactor's text is not in {file}")
        for label, edits in (("base", {"CHANGES.md": "- nothing changed\n"}),
                             ("refactor", {file: source.replace(old, new)})):
            code, verdict, seconds = gate_run(app, patch_for(app, edits, scratch), seed, extra, scratch)
            gated = gate_outcomes(verdict)
            # Same test, another outcome. (Ids pytest builds from a set's order differ between any two runs.)
            differ = sorted(t for t in set(plain) & set(gated) if plain[t] != gated[t])
            rows[label] = {"exit": code, "verdict": "PASS" if code == 0 else f"BLOCK at {verdict.get('blocked_at')}",
                           "counts": _counts(gated), "seconds": round(seconds, 2), "differ": differ[:10],
                           "ids_in_one_run_only": len(set(plain) ^ set(gated)),
                           "reasons": [r for c in verdict["checks"] if not c["ok"] for r in c["reasons"]][:5]}
            if "-v" in extra_args:
                print(json.dumps(verdict, indent=1)[-20000:], file=sys.stderr)
        return rows


def _counts(outcomes: dict[str, str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for outcome in outcomes.values():
        counts[outcome] = counts.get(outcome, 0) + 1
    return dict(sorted(counts.items()))


def main(argv: list[str]) -> None:
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 1
    names = [a for i, a in enumerate(argv) if not a.startswith("-") and (i == 0 or argv[i - 1] != "--seed")]
    for name in names or sorted(REFACTORS):
        print(json.dumps(compare(name, seed, extra, tuple(a for a in argv if a == "-v")), indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
