"""What the engine's isolation costs: soundness and kill-matrix CPU per candidate, on three packages.

    python bench/engine_cost.py [--reps 3] [--packages shop,inflection,more_itertools]

Per package the whole pipeline runs once (2 workers) to get rendered candidates and mutants; then, `reps` times
each, the soundness stage (check_soundness over every rendered candidate) and the kill matrix (build_kill_matrix
over the sound ones and the mutants they face) run again over the same run folder. Printed as JSON, medians: CPU
seconds (user + system of this process and its waited-for children, which include every worker and every child
they forked) per candidate, and the verdict counts, which must not change between the versions compared.
Run it under two checkouts (e.g. PYTHONPATH=<other checkout>) to compare; it uses only functions both have.
shop: examples/shop with its replay file; inflection: bench/vendor/inflection with bench/inflection_replies.json;
more_itertools: bench/vendor/more_itertools, its recipes module, the offline proposer.
"""

from __future__ import annotations

import argparse
import collections
import json
import resource
import statistics
import tempfile
from pathlib import Path

from drafter.config import Settings
from drafter.killmatrix import build_kill_matrix
from drafter.pipeline import run
from drafter.soundness import check_soundness

REPO = Path(__file__).resolve().parent.parent
PACKAGES = {
    "shop": (REPO / "examples" / "shop", dict(model=f"replay:{REPO / 'examples' / 'shop' / 'replies.json'}")),
    "inflection": (REPO / "bench" / "vendor" / "inflection",
                   dict(model=f"replay:{REPO / 'bench' / 'inflection_replies.json'}")),
    "more_itertools": (REPO / "bench" / "vendor" / "more_itertools",
                       dict(model="heuristic", select=("more_itertools.recipes:*",))),
}


def cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def measure(name: str, reps: int, jobs: int) -> dict:
    src, options = PACKAGES[name]
    with tempfile.TemporaryDirectory(prefix="engine-cost-") as workspace:
        outcome = run(src, Settings(workspace=Path(workspace), jobs=jobs, **options)).outcome
        run_dir = outcome.draft.run_dir
        source = run_dir / "source"
        rendered = list(outcome.rendered.values())
        sound_cpu, matrix_cpu, statuses, kills = [], [], None, None
        for _ in range(reps):
            before = cpu()
            checks = check_soundness(rendered, run_dir, source, jobs=jobs)
            sound_cpu.append(cpu() - before)
            statuses = collections.Counter(c.status for c in checks)
            sound = [(r, c) for r, c in zip(rendered, checks) if c.status == "sound"]
            facing = {r.target for r, _ in sound}
            mutants = [m for m in outcome.mutants if m.target in facing or not m.target]
            before = cpu()
            matrix = build_kill_matrix(sound, mutants, run_dir, source, jobs=jobs)
            matrix_cpu.append(cpu() - before)
            kills = collections.Counter(r.outcome for r in matrix.results)
        return {"candidates": len(rendered), "sound": len(sound), "mutants": len(mutants),
                "pairs": len(matrix.results),
                "soundness_cpu_per_candidate": round(statistics.median(sound_cpu) / max(1, len(rendered)), 4),
                "matrix_cpu_per_sound_candidate": round(statistics.median(matrix_cpu) / max(1, len(sound)), 4),
                "soundness_cpu": [round(x, 2) for x in sound_cpu], "matrix_cpu": [round(x, 2) for x in matrix_cpu],
                "statuses": dict(sorted(statuses.items())), "kills": dict(sorted(kills.items()))}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--packages", default=",".join(PACKAGES))
    args = parser.parse_args()
    for name in args.packages.split(","):
        print(json.dumps({name: measure(name, args.reps, args.jobs)}), flush=True)


if __name__ == "__main__":
    main()
