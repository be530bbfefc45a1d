"""Triage of surviving mutants: how many are told apart, how many show no difference, and what the search costs.

    python bench/triage_cost.py                    # examples/shop, bench/vendor/inflection, bench/vendor/humanize
    python bench/triage_cost.py --only humanize --keep DIR

Each case runs the whole pipeline once (round 1 only) with the default triage budgets (--examples and --run-examples
set others: per surviving mutant and per run). The triage stage's cost is
read around that stage alone: CPU seconds of this process and of its (joined) worker processes, and wall seconds.
shop and inflection replay model-like replies (examples/shop/replies.json, bench/inflection_replies.json); humanize
is drafted by the offline heuristic, tuned on none of these three.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.append(str(REPO))
sys.dont_write_bytecode = True

from drafter import pipeline  # noqa: E402
from drafter.config import Settings  # noqa: E402

CASES = {
    "shop": (REPO / "examples" / "shop", f"replay:{REPO / 'examples' / 'shop' / 'replies.json'}", "corpus", "known_bad"),
    "inflection": (REPO / "bench" / "vendor" / "inflection", f"replay:{REPO / 'bench' / 'inflection_replies.json'}",
                   None, None),
    "humanize": (REPO / "bench" / "vendor" / "humanize", "heuristic", None, None),
}
COST: dict[str, float] = {}


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _measured(stage):
    def wrapper(outcome, settings, reporter):
        cpu, wall = _cpu(), time.perf_counter()
        try:
            return stage(outcome, settings, reporter)
        finally:
            COST["cpu"] = COST.get("cpu", 0.0) + _cpu() - cpu
            COST["wall"] = COST.get("wall", 0.0) + time.perf_counter() - wall
    return wrapper


def measure(name: str, keep: Path | None, jobs: int, budgets: dict) -> None:
    src, model, corpus, known_bad = CASES[name]
    COST.clear()
    with tempfile.TemporaryDirectory() as scratch:
        workspace = (keep / name) if keep else Path(scratch) / "ws"
        settings = Settings(model=model, workspace=workspace, corpus=(src / corpus,) if corpus else (),
                            known_bad=src / known_bad if known_bad else None, jobs=jobs, max_examples=100, **budgets)
        started = _cpu()
        result = pipeline.run(src, settings)
        total = _cpu() - started
        report = json.loads((result.run_dir / "report.json").read_text())
    triage = report["summary"]["triage"]
    survivors = [m for m in report["mutants"] if m["triage"]]
    by_difference: dict[str, int] = {}
    for m in survivors:
        if m["triage"]["status"] == "distinguished":
            by_difference[m["triage"]["difference"]] = by_difference.get(m["triage"]["difference"], 0) + 1
    not_triaged: dict[str, int] = {}
    for m in survivors:
        if m["triage"]["status"] == "not_triaged":
            why = m["triage"]["detail"].split(":")[0][:60]
            not_triaged[why] = not_triaged.get(why, 0) + 1
    killed = sum(t["killed"] for t in report["targets"])
    scored = sum(t["mutants"] for t in report["targets"])
    no_difference = sum(t["no_difference_found"] for t in report["targets"])
    print(f"## {name} ({result.run_dir if keep else 'workspace removed'})")
    print(f"survivors triaged {len(survivors)}: distinguished {triage['distinguished']} {by_difference}, "
          f"no difference found {triage['no_difference_found']}, not triaged {triage['not_triaged']} {not_triaged}")
    print(f"mutation score {killed}/{scored} ({killed / scored:.1%}); over mutants not marked no difference found "
          f"{killed}/{scored - no_difference} ({killed / max(scored - no_difference, 1):.1%})")
    print(f"triage stage: {COST.get('cpu', 0):.1f} CPU s, {COST.get('wall', 0):.1f} wall s; whole run {total:.1f} CPU s "
          f"(triage {COST.get('cpu', 0) / total:.0%} of it)")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="keep each case's workspace under this folder")
    parser.add_argument("--only", choices=sorted(CASES))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--examples", type=int, help="triage examples per surviving mutant")
    parser.add_argument("--run-examples", type=int, help="triage examples per run")
    args = parser.parse_args()
    budgets = {key: value for key, value in (("triage_examples", args.examples),
                                             ("triage_run_examples", args.run_examples)) if value is not None}
    pipeline.triage_stage = _measured(pipeline.triage_stage)
    for name in CASES:
        if args.only in (None, name):
            measure(name, args.keep.resolve() if args.keep else None, args.jobs, budgets)


if __name__ == "__main__":
    main()
