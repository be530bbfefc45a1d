"""Soundness: does each rendered candidate hold on the clean code, under several fixed seeds?"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from pathlib import Path

from drafter.data import Rendered, Soundness
from drafter.execute import Batch, WorkerPool
from drafter.onerun import RunOutcome, RunSpec

SEED_ZERO, OTHER_SEEDS, SHRINK = "seed 0", "other seeds", "shrink"


def check_soundness(
    rendered: Sequence[Rendered],
    run_dir: Path,
    source_dir: Path,
    *,
    seeds: int = 5,
    max_examples: int = 100,
    jobs: int | None = None,
    budget_seconds: float = 30.0,
    budget_multiplier: float = 10.0,
    budget_floor: float = 2.0,
    on_result: Callable[[int, Soundness], None] | None = None,
    on_wall: Callable[[tuple[str, ...]], None] | None = None,
) -> list[Soundness]:
    """One Soundness per rendered candidate, in input order.

    Each candidate runs once per seed 0..seeds-1, in fresh processes of its own: seed 0 within budget_seconds (the
    cap), the others within budget_multiplier x its seed-0 time (at least budget_floor, at most the cap), all in
    CPU seconds, so one hanging candidate costs its own budget, not the stage's, and machine load none. All pass: sound. All fail:
    unsound, with the shrunk failing example of the first failing seed. Some pass, some fail, or
    Hypothesis calls it flaky: flaky. Cannot run: error. Over budget: timeout.

    A stream: each candidate moves to its next phase (seed 0, its other seeds, its shrink) as soon as its previous
    one ends, ahead of candidates not yet started, and `on_result(index, result)` hears each verdict as it is
    final. What a candidate's runs are depends only on its own earlier runs, so the verdicts do not depend on --jobs.
    """
    run_dir = Path(run_dir).resolve()

    def spec(item: Rendered, seed: int, shrink: bool, budget: float = budget_seconds) -> RunSpec:
        # The seed-0 run (the kill matrix's seed) records the lines of the target it executes (a mutant changing
        # none of them is not reached) and its inputs (the kill runs replay them). Only that run: tracing makes a
        # run 2-3x slower on 3.11.
        kill_run = seed == 0 and not shrink
        return RunSpec(str(run_dir / item.path), item.test_name, seed, max_examples, shrink, budget,
                       trace=item.target if kill_run else "", record=kill_run)

    # Seeds first without shrinking (a failure stops at its first example), then one shrinking run per
    # unsound candidate, so an unsound candidate costs little and still gets a minimal counterexample.
    by_run: list[dict[int, RunOutcome]] = [{} for _ in rendered]
    shrunk: dict[int, RunOutcome] = {}
    results: list[Soundness | None] = [None] * len(rendered)
    phases = [(i, SEED_ZERO) for i in range(len(rendered))]  # per batch of the pool: (candidate, phase)

    def next_phase(index: int, ended: str) -> tuple[Batch, str] | None:
        first = by_run[index][0]
        if ended == SEED_ZERO and seeds > 1 and first.status in ("passed", "failed"):
            budget = min(budget_seconds, max(budget_floor, budget_multiplier * first.seconds))
            return Batch(tuple(spec(rendered[index], s, False, budget) for s in range(1, seeds)),
                         stop_after_timeout=True), OTHER_SEEDS
        runs = _in_seed_order(by_run[index])
        failing = _first_seed_failing(runs)
        if ended != SHRINK and failing is not None and _verdict(runs) == "unsound":
            return Batch((spec(rendered[index], failing, True),)), SHRINK
        return None

    def follow(batch: int) -> list[Batch]:
        index, ended = phases[batch]
        step = next_phase(index, ended)
        if step is not None:
            phases.append((index, step[1]))  # the pool numbers the batches it is given in order
            return [step[0]]
        result = results[index] = _soundness(rendered[index].candidate_id, _in_seed_order(by_run[index]),
                                             shrunk.get(index), max_examples)
        if on_result:
            on_result(index, result)
        return []

    with WorkerPool(source_dir, jobs, modules=[item.target.split(":")[0] for item in rendered]) as pool:
        for event in pool.run([Batch((spec(item, 0, False),)) for item in rendered], follow):
            assert event.outcome is not None
            index, phase = phases[event.batch]
            if phase == SHRINK:
                shrunk[index] = event.outcome
            else:
                by_run[index][event.run + (1 if phase == OTHER_SEEDS else 0)] = event.outcome
    if on_wall is not None and pool.wall is not None:
        on_wall(pool.wall)
    assert all(result is not None for result in results)
    return results  # type: ignore[return-value]


def wall_warnings(layers: tuple[str, ...]) -> list[str]:
    """What a run's report says when candidates stood behind less than the whole wall (docs/isolation.md)."""
    # A network namespace needs root; without one, seccomp's refusal of socket() keeps the network out.
    missing = [name for name, present in (("Landlock", any(x.startswith("landlock") for x in layers)),
                                          ("seccomp", "seccomp" in layers)) if not present]
    if not missing:
        return []
    have = " + ".join(layers) if layers else "no kernel wall at all"
    return [f"isolation: candidates ran behind {have}; this platform offers no {', no '.join(missing)} "
            "(the audit hook still stands; see docs/isolation.md)"]


def _in_seed_order(runs: dict[int, RunOutcome]) -> list[RunOutcome]:
    return [runs[seed] for seed in sorted(runs)]


def _first_seed_failing(runs: list[RunOutcome]) -> int | None:
    return next((seed for seed, run in enumerate(runs) if run.status == "failed"), None)


def _verdict(runs: list[RunOutcome]) -> str:
    statuses = {run.status for run in runs}
    if "sandbox" in statuses:
        return "sandbox"
    if statuses & {"error", "died"}:
        return "error"
    if "timeout" in statuses:
        return "timeout"
    if "flaky" in statuses or statuses == {"passed", "failed"}:
        return "flaky"
    return "sound" if statuses == {"passed"} else "unsound"


def _soundness(candidate_id: str, runs: list[RunOutcome], shrunk: RunOutcome | None, max_examples: int = 0) -> Soundness:
    status = _verdict(runs)
    seconds = statistics.median(run.seconds for run in runs) if runs else 0.0
    if status == "sound":
        return Soundness(candidate_id, status, seconds, lines=runs[0].lines, traced_examples=max_examples,
                         examples=runs[0].examples)
    if status == "unsound":
        failure = shrunk if shrunk is not None and shrunk.status == "failed" else runs[0]
        return Soundness(candidate_id, status, seconds, failure.error, failure.counterexample)
    if status == "flaky":
        seeds = ", ".join(f"seed {i}: {run.status}" for i, run in enumerate(runs))
        odd = next((run for run in runs if run.status != "passed"), runs[0])
        return Soundness(candidate_id, status, seconds, f"seeds disagree ({seeds}); {odd.error}".strip("; "),
                         odd.counterexample)
    worst = next(run for run in runs if run.status in ("sandbox", "error", "died", "timeout"))
    return Soundness(candidate_id, status, seconds, worst.error)
