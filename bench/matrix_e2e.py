"""End to end on a real module: stage breakdown, sabotage wall against time inside test bodies, 1 vs 2 workers.

    python bench/matrix_e2e.py [--reps 3]

On bench/vendor/inflection (inflection 0.5.1, MIT, 426 lines) with the replay file bench/inflection_replies.json,
the whole pipeline runs with --jobs 1 and --jobs 2, interleaved, in fresh workspaces (no mutant cache). Printed,
medians: wall seconds per stage (extract, soundness, mutants, sabotage), wall and CPU (user + system of this process
and its waited-for children) of the whole run, and the sabotage stage's wall against the time inside test bodies,
measured as bodies (a wrapper of each body, RunSpec.time_body) in one more kill matrix over the same candidates and
mutants with one worker. The 1 vs 2 worker speed-up is given as wall and per CPU-second.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.dont_write_bytecode = True

from drafter.config import Settings  # noqa: E402
from drafter.killmatrix import build_kill_matrix  # noqa: E402
from drafter.pipeline import run  # noqa: E402

INFLECTION = REPO / "bench" / "vendor" / "inflection"
REPLIES = REPO / "bench" / "inflection_replies.json"
STAGES = ("extract", "soundness", "mutants", "sabotage")


def cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def one_run(jobs: int, max_examples: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-e2e-") as workspace:
        settings = Settings(model=f"replay:{REPLIES}", workspace=Path(workspace), jobs=jobs, max_examples=max_examples)
        before, started = cpu(), time.perf_counter()
        outcome = run(INFLECTION, settings).outcome
        row = {"wall": time.perf_counter() - started, "cpu": cpu() - before, **outcome.stage_seconds,
               "pairs": len(outcome.matrix.results), "sabotage_test": outcome.matrix.test_seconds}
        if jobs == 1:  # bodies measured as bodies, in a matrix of its own over the same pairs
            sound = [(outcome.rendered[c], s) for c, s in outcome.soundness.items() if s.status == "sound"]
            facing = {r.target for r, _ in sound}
            timed = build_kill_matrix(sound, [m for m in outcome.mutants if m.target in facing], outcome.draft.run_dir,
                                      outcome.draft.run_dir / "source", jobs=1, max_examples=max_examples,
                                      time_bodies=True)
            row.update(body=timed.body_seconds, timed_wall=timed.seconds, timed_test=timed.test_seconds)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--max-examples", type=int, default=100)
    args = parser.parse_args()
    rows: dict[int, list[dict]] = {1: [], 2: []}
    for _ in range(args.reps):
        for jobs in (1, 2):
            rows[jobs].append(one_run(jobs, args.max_examples))

    def med(jobs: int, key: str) -> float:
        return statistics.median(r[key] for r in rows[jobs])

    print(f"inflection 0.5.1, replay model, max_examples {args.max_examples}, medians of {args.reps}:")
    print("  jobs | " + " | ".join(f"{s:>9}" for s in STAGES) + " |   wall |    CPU | pairs")
    for jobs in (1, 2):
        print(f"  {jobs:4d} | " + " | ".join(f"{med(jobs, s):8.2f}s" for s in STAGES)
              + f" | {med(jobs, 'wall'):5.1f}s | {med(jobs, 'cpu'):5.1f}s | {med(jobs, 'pairs'):.0f}")
    body, wall, hyp = med(1, "body"), med(1, "timed_wall"), med(1, "timed_test")
    print(f"  sabotage, one worker: wall {wall:.2f}s, whole Hypothesis runs {hyp:.2f}s, inside test bodies {body:.3f}s: "
          f"wall / bodies = {wall / body:.1f}, bodies are {body / hyp:.1%} of the Hypothesis runs")
    speed = statistics.median(a["sabotage"] / b["sabotage"] for a, b in zip(rows[1], rows[2]))
    per_cpu = statistics.median((a["cpu"] / b["cpu"]) for a, b in zip(rows[1], rows[2]))
    whole = statistics.median(a["wall"] / b["wall"] for a, b in zip(rows[1], rows[2]))
    print(f"  2 workers over 1: sabotage wall {speed:.2f}x, whole run wall {whole:.2f}x; "
          f"CPU of the whole run 1-worker/2-worker {per_cpu:.2f} (1.00 = no CPU spent on the second worker's overhead)")


if __name__ == "__main__":
    main()
