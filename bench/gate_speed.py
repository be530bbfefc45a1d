"""Time `oracle-gate run` on the bundled example with a benign patch: median wall time of N runs per mode.

Usage: python bench/gate_speed.py [N] [-- extra run options for a second mode, e.g. --trust-patch-code]
"""

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "shop"


def _patch(app: Path, scratch: Path) -> Path:
    work = scratch / "patch-work"
    shutil.copytree(app, work)
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@example.invalid", "-C", str(work)]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "base"], check=True)
    billing = work / "shop" / "billing.py"
    billing.write_text(billing.read_text().replace("Clamp a discount", "Clamp any discount"))
    patch = scratch / "benign.diff"
    patch.write_text(subprocess.run(git + ["diff"], check=True, capture_output=True, text=True).stdout)
    return patch


def _time_mode(extra: list[str], runs: int, scratch: Path, patch: Path) -> list[float]:
    times = []
    for i in range(runs):
        app = scratch / f"app-{len(extra)}-{i}"
        shutil.copytree(EXAMPLE, app, ignore=shutil.ignore_patterns("__pycache__", ".hypothesis"))
        oracle = app / "oracle"
        argv = [sys.executable, "-m", "gate.cli", "run", "--app", str(app), "--patch", str(patch),
                "--deny", str(oracle / "path_deny.txt"), "--manifest", str(oracle / "fixtures" / "manifest.json"),
                "--ledger", str(oracle / "ledger.json"), "--out", str(scratch / "verdict.json"), *extra]
        start = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, cwd=REPO)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            sys.exit(f"gate run failed ({done.returncode}): {done.stdout}{done.stderr}")
    return times


def main() -> None:
    args = sys.argv[1:]
    runs = int(args[0]) if args and args[0].isdigit() else 5
    extra = args[args.index("--") + 1:] if "--" in args else None
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        patch = _patch(EXAMPLE, scratch)
        base = _time_mode([], runs, scratch, patch)
        print(f"default: median {statistics.median(base):.2f} s over {runs} runs ({', '.join(f'{t:.2f}' for t in base)})")
        if extra is not None:
            other = _time_mode(extra, runs, scratch, patch)
            print(f"{' '.join(extra)}: median {statistics.median(other):.2f} s "
                  f"({', '.join(f'{t:.2f}' for t in other)}); ratio default/other "
                  f"{statistics.median(base) / statistics.median(other):.2f}")


if __name__ == "__main__":
    main()
