"""The kill matrix: every sound candidate of a target against every mutant of that target."""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from drafter.data import KillMatrix, KillResult, Mutant, Rendered, Soundness
from drafter.execute import Batch, MutantSpec, WorkerPool
from drafter.onerun import RunOutcome, RunSpec

KILL_SEED = 0
# A mutant that hung for one candidate meets the others with this budget: a few of the candidate's own clean runs.
TIGHT_MULTIPLIER, TIGHT_FLOOR = 2.0, 0.1
HANG_SHARE = 0.5  # a timeout whose last example alone used this share of the budget is a hang, not a slow run
# A run ends once one example has used this share of its budget (a hang: the rest of the budget would not end it);
# a little over HANG_SHARE, so that the timer's granularity never makes a cut run look like a slow one.
HANG_CUT = 0.55
Entry = tuple[RunSpec, MutantSpec, tuple[int, int], str]


def build_kill_matrix(
    sound: Sequence[tuple[Rendered, Soundness]],
    mutants: Sequence[Mutant],
    run_dir: Path,
    source_dir: Path,
    *,
    jobs: int | None = None,
    max_examples: int = 100,
    budget_multiplier: float = 10.0,
    budget_floor: float = 0.5,  # CPU seconds, which load does not use up: the budget scales from the clean run
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
                       target=item.target.split(":", 1)[1], time_body=time_bodies, replay=recorded,
                       hang_cut=HANG_CUT * budget)

    by_target: dict[str, list[tuple[Rendered, Soundness]]] = {}
    for item, clean in sound:
        by_target.setdefault(item.target, []).append((item, clean))

    test_seconds = 0.0
    notes: list[str] = []
    modules = sorted({target.split(":")[0] for target in by_target} | {m.module for m in mutants})
    with WorkerPool(source_dir, jobs, modules=modules) as pool:
        vacuous: dict[str, str] = {}
        switch_ignored: dict[str, str] = {}
        results: dict[tuple[int, int], KillResult] = {}
        invalid: set[int] = set()  # the children find them: compiling every module here would be serial work
        body_seconds = timeout_seconds = 0.0
        fresh: dict[str, str] = {}
        # The proof, per candidate: a stand-in that raises on every call must make it fail.
        proofs = {item.candidate_id: (spec(item, clean), _forced(target), target, item)
                  for target in sorted(by_target) for item, clean in by_target[target]}

        def prove(event, target: str, item: Rendered) -> None:
            nonlocal test_seconds
            if event.kind == "fresh":
                note = f"switch proof skipped for {target}: {event.reason}; its mutants run in fresh processes"
                if note not in notes:
                    notes.append(note)
            elif event.kind == "result" and event.outcome is not None:
                test_seconds += event.outcome.seconds
                verdict = _proof(event.outcome)
                if verdict == "switch_ignored":
                    switch_ignored[target] = (f"{item.candidate_id} called {target} but never met the forced-fail "
                                              "stand-in: the in-process switch does not reach this target")
                elif verdict:
                    vacuous[item.candidate_id] = verdict

        def plan() -> tuple[dict[int, list[Entry]], dict[tuple[int, int], float], dict[tuple[int, int], KillResult]]:
            """Who meets which mutant (each mutant's opponents, the vacuous left out), each pair's tight budget,
            and the results of the pairs that need not run."""
            unreached: dict[tuple[int, int], KillResult] = {}
            opponents = {t: [(i, c) for i, c in pairs if i.candidate_id not in vacuous] for t, pairs in by_target.items()}
            specs = [_mutant_spec(m, switch_ignored.get(m.target, "")) for m in mutants]
            # Entry: (run, mutant, (mutant index, place among its opponents), candidate id). tight[key]: the budget
            # that pair gets once its mutant has hung for another candidate.
            meetings: dict[int, list[Entry]] = {}
            tight: dict[tuple[int, int], float] = {}
            for index, mutant in enumerate(mutants):
                for place, (item, clean) in enumerate(_opponents(mutant, opponents)):
                    why = _not_reached(mutant, clean, max_examples)
                    if why:
                        unreached[(index, place)] = KillResult(item.candidate_id, mutant.id, "not_reached", 0.0, why)
                        continue
                    run_spec = spec(item, clean)
                    tight[(index, place)] = min(run_spec.budget, max(TIGHT_FLOOR, TIGHT_MULTIPLIER * clean.seconds))
                    meetings.setdefault(index, []).append((run_spec, specs[index], (index, place), item.candidate_id))
            # Each mutant first meets one candidate with that candidate's full budget: its opponents taken in turn
            # (by a checksum of the mutant's id, so the same one at any --jobs and in any shard), which spreads the
            # first meetings over the candidates.
            turn = {i: zlib.crc32(mutants[i].id.encode()) % len(meetings[i]) for i in meetings}
            meetings = {i: meetings[i][turn[i]:] + meetings[i][:turn[i]] for i in sorted(meetings)}
            return meetings, tight, unreached

        def run(groups: list[list[Entry]], proving: bool = False) -> list[tuple[Entry, RunOutcome]]:
            """Run the groups (each in one child; `proving`: after its candidate's forced-fail proof, and one
            child more for each candidate without a group), then again in a copy of the source the mutants the
            live switch could not put in place; the runs that ended over budget."""
            nonlocal test_seconds, body_seconds, timeout_seconds
            over: list[tuple[Entry, RunOutcome]] = []
            proved: list[str | None] = []  # per group, the candidate whose proof its child runs first, if any
            if proving:
                for group in groups:
                    first = group[0][3] not in proved and not group[0][1].fresh
                    proved.append(group[0][3] if first else None)
                idle = sorted(set(proofs) - set(proved))
                groups, proved = groups + [[] for _ in idle], proved + idle
            while groups:
                again: list[Entry] = []
                batches = [Batch(tuple(e[0] for e in g), tuple(e[1] for e in g)) for g in groups]
                batches = [Batch((proofs[c][0], *b.runs), (proofs[c][1], *b.mutants)) if c else b
                           for c, b in zip(proved or [None] * len(batches), batches)]
                for event in pool.run(batches):
                    lead = proved[event.batch] if proved else None
                    if lead and event.run == 0:
                        prove(event, *proofs[lead][2:])
                        continue
                    entry = groups[event.batch][event.run - bool(lead)]
                    run_spec, mutant_spec, key, candidate = entry
                    if event.kind == "invalid":
                        invalid.add(key[0])
                    elif event.kind == "fresh":
                        fresh[mutants[key[0]].id] = event.reason
                        again.append((run_spec, replace(mutant_spec, fresh=event.reason), key, candidate))
                    elif event.outcome is not None:
                        outcome = event.outcome
                        test_seconds += outcome.seconds
                        body_seconds += max(outcome.body_seconds, 0.0)
                        if outcome.status == "timeout":
                            timeout_seconds += outcome.seconds
                            over.append((entry, outcome))
                        results[key] = KillResult(candidate, mutants[key[0]].id, _outcome(outcome),
                                                  round(outcome.seconds, 6), outcome.error)
                        if on_progress:
                            on_progress(len(results), total)
                groups, proved = [[entry] for entry in again], []
            return over

        def confirm(over: list[tuple[Entry, RunOutcome]]) -> set[int]:
            """A timeout is not a kill until it repeats: each is run again alone, with twice its budget when it
            ended near the budget's edge (still moving through its examples), with the tight budget when one
            example had used most of the budget (a hang: more time would not end it). The mutants that hung twice."""
            retry, hangs = [], set()
            for (run_spec, mutant_spec, key, candidate), outcome in over:
                if key[0] not in invalid:
                    hang = outcome.stuck_seconds >= HANG_SHARE * run_spec.budget
                    hangs |= {key} if hang else set()
                    # A run near the edge gets twice its budget and no cut: it was still moving through its examples.
                    again = _budgeted(run_spec, tight[key]) if hang else replace(run_spec, budget=2 * run_spec.budget,
                                                                                     hang_cut=0.0)
                    retry.append((again, mutant_spec, key, candidate))
            repeated = run([[entry] for entry in retry])
            for (_, _, key, _), _ in repeated:
                results[key] = replace(results[key], detail=f"timed out twice: {results[key].detail}")
            return {key[0] for (_, _, key, _), _ in repeated if key in hangs}

        # The first meetings run in one child per candidate after its proof, planned as if every proof holds
        # (they nearly all do); a candidate found vacuous or a target whose switch is ignored changes the plan of
        # the mutants it concerns, and their first meetings run again under the plan the proofs allow.
        meetings, tight, unreached = plan()
        results.update(unreached)
        total = len(unreached) + sum(len(m) for m in meetings.values())
        over = run(_per_candidate([meetings[i][0] for i in meetings]), proving=True)
        if vacuous or switch_ignored:
            # Only the mutants whose plan changed (they faced a vacuous candidate, or their switch is ignored)
            # forget what their first meeting gave and meet their first opponent under the new plan.
            def part(planned: tuple, index: int) -> tuple:
                return planned[0].get(index), {k: r for k, r in planned[1].items() if k[0] == index}

            before = (meetings, unreached)
            meetings, tight, unreached = plan()
            changed = {i for i in range(len(mutants)) if part(before, i) != part((meetings, unreached), i)}
            for key in [key for key in results if key[0] in changed]:
                del results[key]
            results.update({key: result for key, result in unreached.items() if key[0] in changed})
            invalid -= changed
            for index in changed:
                fresh.pop(mutants[index].id, None)
            total = len(unreached) + sum(len(m) for m in meetings.values())
            over = [(e, o) for e, o in over if e[2][0] not in changed]
            over += run(_per_candidate([meetings[i][0] for i in sorted(changed) if i in meetings]))
        for target, why in sorted(switch_ignored.items()):
            notes.append(f"{why}; its mutants run in fresh processes")
        # A mutant that hung there meets the others with their tight budgets and no rerun: a hang never decides a
        # keep (only assertion kills do), so it need not be measured again.
        hung = confirm(over)
        rest = [(_budgeted(e[0], tight[e[2]]) if i in hung else e[0], *e[1:])
                for i in meetings for e in meetings[i][1:]]
        over = run(_per_candidate(rest))
        confirm([(e, o) for e, o in over if e[2][0] not in hung])
        for (_, _, key, _), _ in over:
            if key[0] in hung:
                first = meetings[key[0]][0][3]
                results[key] = replace(results[key], detail=f"hung, as it did twice for {first}: met with a tight "
                                                             f"budget, not run again: {results[key].detail}")
    ordered = tuple(results[key] for key in sorted(results) if key[0] not in invalid)
    return KillMatrix(
        results=ordered,
        invalid=tuple(mutants[i].id for i in sorted(invalid)),
        fresh_process={m.id: fresh[m.id] for m in mutants if m.id in fresh},
        seconds=time.perf_counter() - started,
        test_seconds=test_seconds,
        body_seconds=body_seconds if time_bodies else -1.0,
        timeout_seconds=timeout_seconds,
        notes=tuple(notes),
        vacuous=dict(sorted(vacuous.items())),
    )


def _budgeted(run: RunSpec, budget: float) -> RunSpec:
    return replace(run, budget=budget, hang_cut=HANG_CUT * budget)


def _per_candidate(entries: list[Entry]) -> list[list[Entry]]:
    """One group per candidate (all its mutants, in one fresh child); a mutant that needs a copy of the source
    gets a child of its own."""
    work: dict[str, list[Entry]] = {}
    alone: list[Entry] = []
    for entry in entries:
        (alone.append(entry) if entry[1].fresh else work.setdefault(entry[3], []).append(entry))
    return [group for _, group in sorted(work.items())] + [[entry] for entry in alone]


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
