"""The kill matrix: every sound candidate of a target against every mutant of that target."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from drafter.data import KillMatrix, KillResult, Mutant, Rendered, Soundness
from drafter.execute import Batch, MutantSpec, WorkerPool
from drafter.onerun import RunOutcome, RunSpec

KILL_SEED = 0


def build_kill_matrix(
    sound: Sequence[tuple[Rendered, Soundness]],
    mutants: Sequence[Mutant],
    run_dir: Path,
    source_dir: Path,
    *,
    jobs: int | None = None,
    max_examples: int = 100,
    budget_multiplier: float = 10.0,
    budget_floor: float = 2.0,
    on_progress: Callable[[int, int], None] | None = None,
    time_bodies: bool = False,
    replayed: bool = True,
) -> KillMatrix:
    """Run the matrix with shrinking off and a fixed seed, each run stopping at its first failing example.

    A mutant with an empty target (a known-bad patch) meets every candidate whose target lives in the
    module it changes. A candidate that passes against a stand-in raising on every call is vacuous: it
    meets no mutant. A target whose stand-in the candidate never met although it called the real target
    runs its mutants in fresh processes.
    """
    started = time.perf_counter()
    run_dir = Path(run_dir).resolve()
    source_dir = Path(source_dir).resolve()

    def spec(item: Rendered, clean: Soundness, replay: bool = True) -> RunSpec:
        budget = max(budget_floor, budget_multiplier * clean.seconds)
        # The clean run of the kill seed with as many examples recorded its inputs: a mutant run draws the same.
        recorded = clean.examples if replay and replayed and clean.traced_examples == max_examples else ""
        return RunSpec(str(run_dir / item.path), item.test_name, KILL_SEED, max_examples, False, budget,
                       target=item.target.split(":", 1)[1], time_body=time_bodies, replay=recorded)

    by_target: dict[str, list[tuple[Rendered, Soundness]]] = {}
    for item, clean in sound:
        by_target.setdefault(item.target, []).append((item, clean))

    test_seconds = 0.0
    notes: list[str] = []
    with WorkerPool(source_dir, jobs) as pool:
        # The proof, per candidate: a stand-in that raises on every call must make it fail.
        targets = sorted(by_target)
        proof = [Batch(tuple(spec(i, c) for i, c in by_target[t]), _forced(t)) for t in targets]
        vacuous: dict[str, str] = {}
        switch_ignored: dict[str, str] = {}
        for event in pool.run(proof):
            target = targets[event.batch]
            if event.kind == "fresh":
                notes.append(f"switch proof skipped for {target}: {event.reason}; its mutants run in fresh processes")
            elif event.kind == "result" and event.outcome is not None:
                test_seconds += event.outcome.seconds
                candidate = by_target[target][event.run][0].candidate_id
                verdict = _proof(event.outcome)
                if verdict == "switch_ignored":
                    switch_ignored[target] = (f"{candidate} called {target} but never met the forced-fail stand-in: "
                                              "the in-process switch does not reach this target")
                elif verdict:
                    vacuous[candidate] = verdict
        for target, why in sorted(switch_ignored.items()):
            notes.append(f"{why}; its mutants run in fresh processes")
        by_target = {t: [(i, c) for i, c in pairs if i.candidate_id not in vacuous] for t, pairs in by_target.items()}

        results: dict[tuple[int, int], KillResult] = {}
        # pairs[i]: the opponents of mutant i that run; the others are decided here without running.
        pairs: list[list[tuple[Rendered, Soundness]]] = []
        slots: list[list[int]] = []  # slots[i][run]: that opponent's place among all opponents of mutant i
        for index, mutant in enumerate(mutants):
            pairs.append([]), slots.append([])
            for place, (item, clean) in enumerate(_opponents(mutant, by_target)):
                why = _not_reached(mutant, clean, max_examples)
                if why:
                    results[(index, place)] = KillResult(item.candidate_id, mutant.id, "not_reached", 0.0, why)
                else:
                    pairs[index].append((item, clean))
                    slots[index].append(place)
        batches = [Batch(tuple(spec(i, c) for i, c in opp), _mutant_spec(m, switch_ignored.get(m.target, "")))
                   for m, opp in zip(mutants, pairs)]
        invalid: set[int] = set()  # the workers find them: compiling every module here would be serial work
        total = len(results) + sum(len(b.runs) for b in batches)
        body_seconds = 0.0
        fresh: dict[str, str] = {}
        timed_out: list[tuple[int, int]] = []

        def record(events, keys) -> None:
            nonlocal test_seconds, body_seconds
            for event in events:
                index, run = keys(event)
                mutant = mutants[index]
                if event.kind == "invalid":
                    invalid.add(index)
                elif event.kind == "fresh":
                    fresh[mutant.id] = event.reason
                elif event.outcome is not None:
                    outcome = event.outcome
                    test_seconds += outcome.seconds
                    body_seconds += max(outcome.body_seconds, 0.0)
                    candidate = pairs[index][run][0].candidate_id
                    key = (index, slots[index][run])
                    first_timeout = outcome.status == "timeout" and key not in results
                    if first_timeout:
                        timed_out.append((index, run))
                    elif outcome.status == "timeout":
                        outcome = replace(outcome, error=f"timed out twice: {outcome.error}")
                    results[key] = KillResult(
                        candidate, mutant.id, _outcome(outcome), round(outcome.seconds, 6), outcome.error)
                    if on_progress:
                        on_progress(len(results), total)

        record(pool.run(batches), lambda event: (event.batch, event.run))
        # A timeout on a loaded machine is not a kill: once the matrix is done, each is run again alone (one
        # at a time, the other workers idle) with twice its budget, and only a repeated timeout counts.
        for index, run in [(i, r) for i, r in timed_out if i not in invalid]:
            first = batches[index].runs[run]
            again = Batch((replace(first, budget=2 * first.budget),), batches[index].mutant)
            record(pool.run([again]), lambda event, key=(index, run): key)
    ordered = tuple(results[key] for key in sorted(results) if key[0] not in invalid)
    return KillMatrix(
        results=ordered,
        invalid=tuple(mutants[i].id for i in sorted(invalid)),
        fresh_process={m.id: fresh[m.id] for m in mutants if m.id in fresh},
        seconds=time.perf_counter() - started,
        test_seconds=test_seconds,
        body_seconds=body_seconds if time_bodies else -1.0,
        notes=tuple(notes),
        vacuous=vacuous,
    )


def _outcome(run: RunOutcome) -> str:
    """A failure the candidate's code raised is an assertion kill; an exception out of the target a crash."""
    if run.status == "passed":
        return "survived"
    if run.status == "timeout":
        return "timeout"
    if run.status == "failed" and not run.in_target:
        return "assertion"
    return "crash"


def _not_reached(mutant: Mutant, clean: Soundness, max_examples: int) -> str:
    """Why the pair need not run: the candidate's clean run under the kill seed, with as many examples, never
    executed a line the mutant changes, so the mutant runs the same code on the same inputs and cannot fail.
    "" when it must run (lines unknown, or one of them was executed)."""
    if not mutant.reach or clean.lines is None or clean.traced_examples != max_examples:
        return ""
    if set(mutant.reach) & set(clean.lines):
        return ""
    return (f"not reached: its clean run (seed {KILL_SEED}) never executed line(s) {_spans(mutant.reach)} of {mutant.file}, "
            "the ones this mutant changes")


def _spans(lines: Sequence[int]) -> str:
    groups: list[list[int]] = []
    for line in lines:
        if groups and line == groups[-1][-1] + 1:
            groups[-1].append(line)
        else:
            groups.append([line])
    return ", ".join(f"{g[0]}-{g[-1]}" if len(g) > 1 else str(g[0]) for g in groups)


def _opponents(mutant: Mutant, by_target: dict[str, list[tuple[Rendered, Soundness]]]) -> list:
    if mutant.target:
        return by_target.get(mutant.target, [])
    return [pair for target in sorted(by_target) if target.split(":")[0] == mutant.module
            for pair in by_target[target]]


def _forced(target: str) -> MutantSpec:
    module, qualname = target.split(":", 1)
    return MutantSpec(f"{target}#forced_fail", module, qualname, "", "", forced=True)


def _mutant_spec(mutant: Mutant, fresh: str = "") -> MutantSpec:
    qualname = mutant.target.split(":", 1)[1] if mutant.target else ""
    return MutantSpec(mutant.id, mutant.module, qualname, mutant.file, mutant.source, body_only=mutant.body_only,
                      fresh=fresh)


def _proof(run: RunOutcome) -> str:
    """"" when the candidate noticed the raising stand-in; else why it is vacuous, or "switch_ignored"."""
    if run.status != "passed":
        return ""
    if run.probe_calls > 0:
        return (f"vacuous: passed while its target raised on every call ({run.probe_calls} call(s) of the "
                "forced-fail stand-in); it swallows the target's failures")
    if run.clean_calls > 0:
        return "switch_ignored"
    return "vacuous: never calls its target on the inputs its strategies draw"
