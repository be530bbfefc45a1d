"""Triage of surviving mutants: a differential search for an input on which the mutant and the original differ.

For each surviving mutant, Hypothesis draws inputs for the target from the strategies its sound candidates use
(the strategies of all candidates combined per parameter, then each candidate's own; the signature's strategies
when no candidate covers the required parameters), calls original and mutant on each (sabotage.difference), and
shrinks the first input on which they differ. The search is a rendered test file run by the engine like every
other run of generated code: boxed, in its worker pool, with the mutant switched in. Budgets count examples, not
seconds, and every run has a fixed seed, so outcomes do not depend on load or on --jobs.
"""

from __future__ import annotations

import ast
import base64
import builtins
import binascii
import json
import pickletools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from drafter.data import Candidate, Extraction, Mutant, Rendered, Target, Triage
from drafter.execute import Batch, MutantSpec, WorkerPool
from drafter.models.strategies import Context, nonnegative_params, param_guess
from drafter.onerun import RunOutcome, RunSpec
from drafter.render import RenderError, render
from drafter.runfolder import target_slug
from drafter.runfolder import write_text
from sabotage.difference import MARK

if TYPE_CHECKING:
    from drafter.data import RunOutcome as PipelineOutcome

TRIAGE_SEED = 0
MAX_INPUT_SETS = 4  # per target: the combined set and the first candidates' own sets
MIN_EXAMPLES_PER_SET = 10
SAFETY_SECONDS = 120.0  # a hung search only: the example budgets, not this, bound a search
BUILTIN_NAMES = frozenset(dir(builtins)) | {"st"}
PASSED_AS = {"positional_only": "positional", "positional_or_keyword": "keyword", "keyword_only": "keyword"}


@dataclass(frozen=True)
class InputSet:
    """Strategies for the target's parameters (by name) and the conditions that hold them to a domain."""

    origin: str  # "combined", "candidate <name>", "signature"
    strategies: dict[str, str]
    assume: tuple[str, ...] = ()


# ---------------------------------------------------------------- which mutants, which inputs


def surviving(outcome: PipelineOutcome) -> list[Mutant]:
    """Valid mutants that met a sound candidate and that no kept candidate catches, by id."""
    kept = {d.id for d in outcome.drafted if d.verdict.stage == "kept"}
    invalid = set(outcome.matrix.invalid)
    met = {r.mutant_id for r in outcome.matrix.results}
    caught = {r.mutant_id for r in outcome.matrix.results if r.killed and r.candidate_id in kept}
    return sorted((m for m in outcome.mutants if m.id in met and m.id not in caught and m.id not in invalid),
                  key=lambda m: m.id)


def input_sets(target: Target, candidates: Sequence[Candidate], extraction: Extraction) -> tuple[list[InputSet], str]:
    """The input sets to search for `target`, or [] and why there are none."""
    if target.is_async:
        return [], "an async target: triage calls plain functions only"
    if target.owner and not {"staticmethod", "classmethod"} & set(target.decorators):
        return [], "a method: triage has no instance to call it on"
    params = [p for p in target.params if p.kind in PASSED_AS and not (target.owner and p.name in ("cls",))]
    names = {p.name for p in params}
    required = {p.name for p in params if p.default is None}
    own: list[InputSet] = []
    for candidate in sorted(candidates, key=lambda c: c.name):
        strategies = {name: code for name, code in candidate.inputs.items() if name in names}
        if required <= set(strategies):
            assume = tuple(a for a in candidate.assume if _names(a) - BUILTIN_NAMES <= set(strategies))
            own.append(InputSet(f"candidate {candidate.name}", strategies, assume))
    if own:
        combined: dict[str, list[str]] = {}
        for item in own:
            for name, code in item.strategies.items():
                if code not in combined.setdefault(name, []):
                    combined[name].append(code)
        merged = {name: codes[0] if len(codes) == 1 else f"st.one_of({', '.join(codes)})"
                  for name, codes in combined.items()}
        sets = [InputSet("combined", merged)] if len(own) > 1 else []
        for item in own:
            if item.strategies not in [s.strategies for s in sets] or item.assume:
                sets.append(item)
        sets = sets[:MAX_INPUT_SETS - 1]
    signature = _signature_set(target, extraction, params)
    if own:
        # The signature's strategies last: the candidates' may all miss what the types allow (floats where
        # every candidate drew integers).
        if signature is not None and signature.strategies not in [s.strategies for s in sets]:
            sets.append(signature)
        return sets, ""
    if signature is None:
        why = "no sound candidate draws every required parameter and the signature gives no strategy for one"
        return [], why
    return [signature], ""


def _signature_set(target: Target, extraction: Extraction, params) -> InputSet | None:
    ctx = Context(frozenset(extraction.module_names.get(target.module, ())),
                  {c.name: c for c in extraction.classes if c.module == target.module},
                  target.docstring or "", nonneg=nonnegative_params(target.params, target.docstring or ""),
                  constants=extraction.constants.get(target.module, {}))
    strategies = {}
    for param in params:
        guess = param_guess(param, ctx)
        if guess is None:
            if param.default is None:
                return None
            continue  # an optional parameter without a strategy keeps its default
        strategies[param.name] = guess.expr
    return InputSet("signature", strategies)


def _names(code: str) -> set[str]:
    try:
        return {n.id for n in ast.walk(ast.parse(code, mode="eval")) if isinstance(n, ast.Name)}
    except SyntaxError:
        return {"<does not parse>"}


# ---------------------------------------------------------------- the test files


def triage_file(target: Target, extraction: Extraction, inputs: InputSet, index: int, max_examples: int) -> Rendered:
    """The differential test of one input set (its path relative to the run folder under triage/)."""
    by_name = {p.name: p for p in target.params}
    positional = [n for n in inputs.strategies if PASSED_AS[by_name[n].kind] == "positional"]
    keyword = [n for n in inputs.strategies if n not in positional]
    body = "\n".join([
        "from sabotage.difference import compare as _drafter_compare",
        f"_drafter_compare({target.module!r}, {target.qualname!r}, {target.file!r}, "
        f"({''.join(f'{n}, ' for n in positional)}), {{{', '.join(f'{n!r}: {n}' for n in keyword)}}})",
    ])
    candidate = Candidate(target.id, f"triage_{index}", "equivalence", dict(inputs.strategies), body, "",
                          assume=inputs.assume, rationale=inputs.origin)
    rendered = render(candidate, target, extraction, max_examples=max_examples)
    return replace(rendered, path=f"triage/{target_slug(target.id)}/test_triage_{index}.py")


# ---------------------------------------------------------------- the search


def triage_survivors(outcome: PipelineOutcome, per_mutant: int, per_run: int, jobs: int | None = None) -> dict[str, Triage]:
    """Every surviving mutant's triage: earlier ones (outcome.triage) kept, the others searched now."""
    done = dict(outcome.triage)
    todo = [m for m in surviving(outcome) if m.id not in done]
    if not todo:
        return done
    # One mutant per target in turn (each target's by id), so that a spent run budget leaves every target some.
    turn: dict[str, int] = {}
    ranked = []
    for mutant in todo:  # by id
        turn[mutant.target] = turn.get(mutant.target, -1) + 1
        ranked.append((turn[mutant.target], mutant.id, mutant))
    todo = [mutant for *_, mutant in sorted(ranked)]
    draft = outcome.draft
    run_dir, extraction = draft.run_dir.resolve(), draft.extraction
    source_dir = run_dir / "source"
    spent = sum(max(t.examples_budget, 0) for t in done.values())
    sound = {cid for cid, check in outcome.soundness.items() if check.status == "sound"}
    candidates: dict[str, list[Candidate]] = {}
    for item in outcome.drafted:
        if item.candidate is not None and item.id in sound:
            candidates.setdefault(item.target, []).append(item.candidate)

    files: dict[str, list[tuple[str, str, str, str]]] = {}  # target -> (test file, test name, origin, why not)
    planned: list[tuple[Mutant, list[RunSpec], list[str]]] = []
    for mutant in todo:
        if per_mutant <= 0:
            done[mutant.id] = Triage(mutant.id, "not_triaged", detail="triage is off (triage_examples = 0)")
            continue
        if not mutant.target:
            done[mutant.id] = Triage(mutant.id, "not_triaged", detail="a known-bad patch about no one function")
            continue
        target = extraction.target(mutant.target)
        if mutant.target not in files:
            files[mutant.target] = _write_files(target, extraction, candidates.get(target.id, []), run_dir)
        usable = [(path, name, origin) for path, name, origin, _ in files[mutant.target] if path]
        if not usable:
            why = "; ".join(why for *_, why in files[mutant.target]) or "no input set"
            done[mutant.id] = Triage(mutant.id, "not_triaged", detail=why)
            continue
        each = max(MIN_EXAMPLES_PER_SET, per_mutant // len(usable))
        if spent + each * len(usable) > per_run:
            done[mutant.id] = Triage(mutant.id, "not_triaged", detail=f"the run's triage budget of {per_run} "
                                     f"examples was spent before this mutant (searched one per target in turn, by id)")
            continue
        spent += each * len(usable)
        runs = [RunSpec(str(run_dir / path), name, TRIAGE_SEED, each, True, SAFETY_SECONDS, record=True)
                for path, name, _ in usable]
        planned.append((mutant, runs, [origin for *_, origin in usable]))

    if not planned:
        return done
    batches = [Batch(tuple(runs), (_mutant_spec(mutant),) * len(runs)) for mutant, runs, _ in planned]
    answers: dict[int, dict[int, RunOutcome]] = {}
    problems: dict[int, str] = {}
    with WorkerPool(source_dir, jobs) as pool:
        for event in pool.run(batches):
            if event.kind == "invalid":
                problems[event.batch] = f"the mutant does not load: {event.reason}"
            elif event.kind == "result" and event.outcome is not None:
                answers.setdefault(event.batch, {})[event.run] = event.outcome
    for index, (mutant, runs, origins) in enumerate(planned):
        done[mutant.id] = _verdict(mutant.id, runs, origins, answers.get(index, {}), problems.get(index, ""))
    return done


def _write_files(target: Target, extraction: Extraction, candidates: list[Candidate],
                 run_dir: Path) -> list[tuple[str, str, str, str]]:
    sets, why = input_sets(target, candidates, extraction)
    if not sets:
        return [("", "", "", why)]
    written = []
    for index, inputs in enumerate(sets):
        try:
            rendered = triage_file(target, extraction, inputs, index, MIN_EXAMPLES_PER_SET)
        except RenderError as exc:
            written.append(("", "", inputs.origin, f"{inputs.origin}: {exc}"))
            continue
        write_text(run_dir / rendered.path, rendered.source)
        written.append((rendered.path, rendered.test_name, inputs.origin, ""))
    return written


def _mutant_spec(mutant: Mutant) -> MutantSpec:
    return MutantSpec(mutant.id, mutant.module, mutant.target.split(":", 1)[1], mutant.file, mutant.source,
                      body_only=mutant.body_only)


def _verdict(mutant_id: str, runs: list[RunSpec], origins: list[str], outcomes: dict[int, RunOutcome],
             problem: str) -> Triage:
    """The first input set that told the mutant apart decides; else no difference, if every set ran its examples."""
    budget = sum(r.max_examples for r in runs)
    if problem:
        return Triage(mutant_id, "not_triaged", examples_budget=budget, detail=problem)
    notes, tried, counted = [], 0, True
    for index, (run, origin) in enumerate(zip(runs, origins)):
        outcome = outcomes.get(index)
        if outcome is None:
            notes.append(f"{origin}: no outcome")
            continue
        found = parse_difference(outcome) if outcome.status == "failed" else None
        if found is not None:
            return Triage(mutant_id, "distinguished", examples=-1, examples_budget=budget, inputs=origin, **found)
        if outcome.status == "passed":
            count = count_examples(outcome.examples)
            counted = counted and count >= 0
            tried += max(count, 0)
        else:
            notes.append(f"{origin}: {outcome.status}: {outcome.error[:300]}")
    if len(notes) == len(runs):
        return Triage(mutant_id, "not_triaged", examples_budget=budget, detail="; ".join(notes))
    return Triage(mutant_id, "no_difference_found", examples=tried if counted else -1, examples_budget=budget,
                  inputs=", ".join(o for i, o in enumerate(origins) if outcomes.get(i) and outcomes[i].status == "passed"),
                  detail="; ".join(notes))


def parse_difference(outcome: RunOutcome) -> dict[str, str] | None:
    """The call and both outcomes a failed triage run reports (its error text is untrusted: checked here)."""
    start = outcome.error.find(MARK)
    if start < 0:
        return None
    try:
        data, _ = json.JSONDecoder().raw_decode(outcome.error, start + len(MARK))
    except ValueError:
        return None
    keys = ("call", "original", "mutant", "difference")
    if not isinstance(data, dict) or not all(isinstance(data.get(k), str) for k in keys):
        return None
    if data["difference"] not in ("result", "exception", "argument"):
        return None
    return {k: data[k][:1000] for k in keys}


def count_examples(encoded: str) -> int:
    """How many examples a passing run recorded (onerun.RunSpec.record), read from the pickle's opcodes without
    loading it; -1 when the run could not record them (an input that is not plain data)."""
    if not encoded:
        return -1
    try:
        data = base64.b64decode(encoded, validate=True)
        ops = [op.name for op, _, _ in pickletools.genops(data)]
    except (binascii.Error, ValueError):
        return -1
    return sum(1 for name in ops if name in ("SHORT_BINBYTES", "BINBYTES", "BINBYTES8"))


def with_triage(outcome: PipelineOutcome, per_mutant: int, per_run: int, jobs: int | None = None) -> PipelineOutcome:
    return replace(outcome, triage=triage_survivors(outcome, per_mutant, per_run, jobs))
