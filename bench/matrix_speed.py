"""Kill-matrix speed: the in-process engine against one fresh `pytest` per mutant, on examples/shop.

    python bench/matrix_speed.py [--reps 3] [--jobs N] [--naive-mutants 20]

Prints candidate x mutant evaluations per second for both, their ratio, and the engine's wall time
against the time spent inside test bodies. The naive rate is measured on an evenly spread sample of
the mutants (each naive evaluation costs a whole interpreter; the rate per pair is what compares).
"""

from __future__ import annotations

import argparse
import os
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
from drafter.killmatrix import build_kill_matrix  # noqa: E402
from drafter.pipeline import run  # noqa: E402

SHOP = REPO / "examples" / "shop"


def bench_inputs(workspace: Path, jobs: int | None) -> tuple[list[tuple[Rendered, Soundness]], list[Mutant], Path, Path]:
    """The real pipeline's output on examples/shop (replay model): sound candidates, mutants, run and source folders."""
    settings = Settings(model=f"replay:{SHOP / 'replies.json'}", workspace=workspace, known_bad=SHOP / "known_bad",
                        jobs=jobs or os.cpu_count() or 1)
    outcome = run(SHOP, settings).outcome
    sound = [(outcome.rendered[c], s) for c, s in outcome.soundness.items() if s.status == "sound"]
    facing = {r.target for r, _ in sound}
    mutants = [m for m in outcome.mutants if m.target in facing]
    return sound, mutants, outcome.draft.run_dir, outcome.draft.run_dir / "source"


# ---------------------------------------------------------------- the two ways


def engine(sound: list[tuple[Rendered, Soundness]], mutants: list[Mutant], run_dir: Path, source: Path, jobs: int | None):
    matrix = build_kill_matrix(sound, mutants, run_dir, source, jobs=jobs, max_examples=100)
    return len(matrix.results), matrix


def naive(sound: list[tuple[Rendered, Soundness]], mutants: list[Mutant], run_dir: Path, source: Path) -> tuple[int, float]:
    """One fresh `python -m pytest` per mutant over a temp copy of SRC with the mutant written in."""
    pairs, started = 0, time.perf_counter()
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
    return pairs, time.perf_counter() - started


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
    print(f"inputs: {len(sound)} sound candidates, {len(mutants)} mutants, "
          f"{sum(1 for m in mutants for r, _ in sound if r.target == m.target)} pairs")

    jobs = args.jobs or os.cpu_count() or 1
    rates, walls, inside = [], [], []
    for _ in range(args.reps):
        pairs, matrix = engine(sound, mutants, run_dir, source, args.jobs)
        rates.append(pairs / matrix.seconds)
        walls.append(matrix.seconds)
        inside.append(matrix.test_seconds)
    killed = sum(r.killed for r in matrix.results)
    print(f"engine: {statistics.median(rates):8.1f} pairs/s  (median of {args.reps}; wall {statistics.median(walls):.2f}s, "
          f"inside test bodies {statistics.median(inside):.2f}s summed over workers, "
          f"wall/test {statistics.median(w / t for w, t in zip(walls, inside)):.2f}, "
          f"workers inside test bodies {statistics.median(t / (w * jobs) for w, t in zip(walls, inside)):.0%} of their time; "
          f"{killed}/{len(matrix.results)} pairs killed, {len(matrix.fresh_process)} mutants in fresh processes, "
          f"{len(matrix.invalid)} invalid)")

    sample = mutants if args.naive_mutants <= 0 else mutants[:: max(1, len(mutants) // args.naive_mutants)][: args.naive_mutants]
    naive_pairs, naive_seconds = naive(sound, sample, run_dir, source)
    naive_rate = naive_pairs / naive_seconds
    print(f"naive:  {naive_rate:8.1f} pairs/s  ({naive_pairs} pairs over {len(sample)} mutants in {naive_seconds:.1f}s, "
          "one fresh pytest per mutant)")
    print(f"ratio:  {statistics.median(rates) / naive_rate:8.1f}x  (goal >= 10x)")


if __name__ == "__main__":
    main()
