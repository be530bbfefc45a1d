"""Time `oracle-gate run` on the bundled example with a benign patch: median wall time of N runs per mode; then
the cost of out-of-process calls: a property body that makes 100 calls of books.money.allocate (examples/journal),
through the sandbox's proxies and in-process, median over N*4 repetitions in one run.

Usage: python bench/gate_speed.py [N] [-- extra run options for a second mode, e.g. --trust-patch-code]
"""

import json
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


def _time_once(extra: list[str], i: int, scratch: Path, patch: Path) -> float:
    app = scratch / f"app-{len(extra)}-{i}"
    shutil.copytree(EXAMPLE, app, ignore=shutil.ignore_patterns("__pycache__", ".hypothesis"))
    oracle = app / "oracle"
    argv = [sys.executable, "-m", "gate.cli", "run", "--app", str(app), "--patch", str(patch),
            "--deny", str(oracle / "path_deny.txt"), "--manifest", str(oracle / "fixtures" / "manifest.json"),
            "--ledger", str(oracle / "ledger.json"), "--out", str(scratch / "verdict.json"), *extra]
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, cwd=REPO)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"gate run failed ({done.returncode}): {done.stdout}{done.stderr}")
    return elapsed


CALLS_DRIVER = """
import json, statistics, sys, time
from decimal import Decimal
import pytest, hypothesis  # imported first, as the gate's bootstrap does
mode, repo, prod, repeats = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.dont_write_bytecode = True
start = time.perf_counter()
if mode == "sandbox":
    import gate.proxy as proxy
    proxy.install(repo, [prod], {"exclude": ["oracle", "tests"], "budget": 600, "call_timeout": 60})
else:
    sys.path.append(prod)
from books.money import allocate
allocate(Decimal("1.00"), 2)
ready = time.perf_counter() - start


def body():  # what one property example of the journal's oracle does, a hundred times
    for i in range(100):
        shares = allocate(Decimal(i) / 100, 3)
        assert sum(shares) == Decimal(i) / 100


times = []
for _ in range(repeats):
    t = time.perf_counter()
    body()
    times.append(time.perf_counter() - t)
print(json.dumps({"ready": ready, "median": statistics.median(times)}))
"""


def _call_cost(repeats: int) -> dict[str, dict[str, float]]:
    prod = REPO / "examples" / "journal"
    out = {}
    for mode in ("sandbox", "in-process"):
        done = subprocess.run([sys.executable, "-I", "-c", CALLS_DRIVER, mode, str(REPO), str(prod), str(repeats)],
                              capture_output=True, text=True, cwd=REPO, check=True)
        out[mode] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def main() -> None:
    args = sys.argv[1:]
    runs = int(args[0]) if args and args[0].isdigit() else 5
    extra = args[args.index("--") + 1:] if "--" in args else None
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        patch = _patch(EXAMPLE, scratch)
        modes = [[]] + ([extra] if extra is not None else [])
        times: list[list[float]] = [[] for _ in modes]
        for i in range(runs):  # modes alternate, so a load spike on the shared machine hits both
            for mode, bucket in zip(modes, times):
                bucket.append(_time_once(mode, i, scratch, patch))
        base = times[0]
        print(f"default: median {statistics.median(base):.2f} s over {runs} runs ({', '.join(f'{t:.2f}' for t in base)})")
        if extra is not None:
            other = times[1]
            print(f"{' '.join(extra)}: median {statistics.median(other):.2f} s "
                  f"({', '.join(f'{t:.2f}' for t in other)}); ratio default/other "
                  f"{statistics.median(base) / statistics.median(other):.2f}")

    cost = _call_cost(runs * 4)
    box, local = cost["sandbox"], cost["in-process"]
    print(f"a property body making 100 calls (books.money.allocate, median of {runs * 4}): sandbox "
          f"{box['median'] * 1000:.1f} ms, in-process {local['median'] * 1000:.2f} ms, so "
          f"{(box['median'] - local['median']) * 10:.3f} ms more per call; starting the sandbox and importing "
          f"through it {box['ready'] * 1000:.0f} ms (in-process import {local['ready'] * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
