"""Kill-matrix speed: the in-process engine against one fresh `pytest` per mutant, on examples/shop.

    python bench/matrix_speed.py [--reps 3] [--jobs N] [--naive-mutants 20]

Prints, for both, candidate x mutant pairs actually run per second of wall and per CPU-second (user + system of
this process and its waited-for children: the engine's workers, the naive interpreters), and their ratios. Pairs
the engine decides without running (`not_reached`) are counted apart, not as speed. Time inside test bodies is
measured as bodies (RunSpec.time_body) in one more matrix with one worker. The naive rate is measured on an evenly
spread sample of the mutants (each naive evaluation costs a whole interpreter; the rate per pair is what compares).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.dont_write_bytecode = True

from drafter.config import Settings  # noqa: E402
from drafter.data import Mutant, Rendered, Soundness  # noqa: E402
from drafter.execute import default_jobs  # noqa: E402
from drafter.killmatrix import build_kill_matrix  # noqa: E402
from drafter.pipeline import run  # noqa: E402

SHOP = REPO / "examples" / "shop"


def bench_inputs(workspace: Path, jobs: int | None) -> tuple[list[tuple[Rendered, Soundness]], list[Mutant], Path, Path]:
    """The real pipeline's output on examples/shop (replay model): sound candidates, mutants, run and source folders."""
    settings = Settings(model=f"replay:{SHOP / 'replies.json'}", workspace=workspace, known_bad=SHOP / "known_bad",
                        jobs=jobs or default_jobs())
    outcome = run(SHOP, settings).outcome
    sound = [(outcome.rendered[c], s) for c, s in outcome.soundness.items() if s.status == "sound"]
    facing = {r.target for r, _ in sound}
    mutants = [m for m in outcome.mutants if m.target in facing]
    return sound, mutants, outcome.draft.run_dir, outcome.draft.run_dir / "source"


# ---------------------------------------------------------------- the two ways


def cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def engine(sound, mutants, run_dir: Path, source: Path, jobs: int | None, time_bodies: bool = False) -> dict:
    before = cpu()
    matrix = build_kill_matrix(sound, mutants, run_dir, source, jobs=jobs, max_examples=100, time_bodies=time_bodies)
    ran = [r for r in matrix.results if r.outcome != "not_reached"]
    return {"matrix": matrix, "ran": len(ran), "cpu": cpu() - before, "wall": matrix.seconds,
            "killed": sum(r.killed for r in ran)}


def naive(sound: list[tuple[Rendered, Soundness]], mutants: list[Mutant], run_dir: Path, source: Path
          ) -> tuple[int, float, float]:
    """One fresh `python -m pytest` per mutant over a temp copy of SRC with the mutant written in: pairs, wall, CPU."""
    pairs, started, before = 0, time.perf_counter(), cpu()
    for mutant in mutants:
        tests = [r for r, _ in sound if r.target == mutant.target]
        if not tests:
            continue
        with tempfile.TemporaryDirectory(prefix="naive-") as tmp:
            copy = Path(tmp) / "source"
            shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__", "corpus"))
            (copy / mutant.file).write_text(mutant.source)
            files = []
            for r in tests:
                dest = Path(tmp) / "tests" / Path(r.path).parent.name / Path(r.path).name
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(run_dir / r.path, dest)
                files.append(str(dest))
            (Path(tmp) / "pytest.ini").write_text("[pytest]\n")
            env = dict(os.environ, PYTHONPATH=str(copy), PYTHONDONTWRITEBYTECODE="1")
            subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--import-mode=importlib",
                            "-c", str(Path(tmp) / "pytest.ini"), *files],
                           cwd=tmp, env=env, capture_output=True, text=True)
        pairs += len(tests)
    return pairs, time.perf_counter() - started, cpu() - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--naive-mutants", type=int, default=20, help="mutants in the naive sample (0: all)")
    args = parser.parse_args()

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-") as workspace:
        sound, mutants, run_dir, source = bench_inputs(Path(workspace), args.jobs)
        measure(args, sound, mutants, run_dir, source)
    print(f"total bench wall {time.perf_counter() - started:.1f}s")


def measure(args, sound, mutants, run_dir: Path, source: Path) -> None:
    jobs = args.jobs or default_jobs()
    print(f"inputs: {len(sound)} sound candidates, {len(mutants)} mutants, "
          f"{sum(1 for m in mutants for r, _ in sound if r.target == m.target)} pairs; engine with {jobs} worker(s)")
    runs = [engine(sound, mutants, run_dir, source, jobs) for _ in range(args.reps)]
    last = runs[-1]["matrix"]
    wall, spent = statistics.median(r["wall"] for r in runs), statistics.median(r["cpu"] for r in runs)
    per_wall = statistics.median(r["ran"] / r["wall"] for r in runs)
    per_cpu = statistics.median(r["ran"] / r["cpu"] for r in runs)
    print(f"engine: {per_wall:8.1f} pairs run/s of wall, {per_cpu:6.1f} per CPU-s  (medians of {args.reps}: "
          f"{runs[-1]['ran']} pairs run, {len(last.results) - runs[-1]['ran']} not reached and not run, "
          f"wall {wall:.2f}s, CPU {spent:.2f}s; {runs[-1]['killed']} killed, {len(last.fresh_process)} mutants in "
          f"fresh processes, {len(last.invalid)} invalid)")
    timed = engine(sound, mutants, run_dir, source, 1, time_bodies=True)
    body, hypothesis = timed["matrix"].body_seconds, timed["matrix"].test_seconds
    print(f"bodies: one worker, bodies timed: wall {timed['wall']:.2f}s, CPU {timed['cpu']:.2f}s, runs (replayed or "
          f"through Hypothesis) {hypothesis:.2f}s, inside test bodies {body:.3f}s: wall / bodies = "
          f"{timed['wall'] / body:.1f}")

    sample = mutants if args.naive_mutants <= 0 else mutants[:: max(1, len(mutants) // args.naive_mutants)][: args.naive_mutants]
    naive_pairs, naive_wall, naive_cpu = naive(sound, sample, run_dir, source)
    print(f"naive:  {naive_pairs / naive_wall:8.1f} pairs run/s of wall, {naive_pairs / naive_cpu:6.1f} per CPU-s  "
          f"({naive_pairs} pairs over {len(sample)} mutants, wall {naive_wall:.1f}s, CPU {naive_cpu:.1f}s, "
          "one fresh pytest per mutant, one at a time)")
    print(f"ratio:  {per_wall / (naive_pairs / naive_wall):8.1f}x of wall ({jobs} worker(s) against one), "
          f"{per_cpu / (naive_pairs / naive_cpu):.1f}x per CPU-s  (goal >= 10x)")


if __name__ == "__main__":
    main()
