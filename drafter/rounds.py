"""Feedback rounds: ask the same backend again, as a conversation, with what the last round left open.

After round k, a target with mutants no kept candidate catches (or with no kept candidate but rejections to
learn from) gets prompts/feedback.j2: the surviving mutants as short diffs, distinct lines first; its unsound
candidates with their shrunk counterexample and failing line; lint and other reasons; the names and kinds kept.
The reply's candidates go through the same stages, and only the new sound ones meet the target's mutants:
earlier kill results are reused. A target stops as soon as nothing survives; `Budget` caps the whole run.

This module never imports the pipeline: the pipeline hands it its stage functions (`Stages`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import jinja2

from drafter.candidates import is_snake_case, parse_reply
from drafter.data import (Drafted, Extraction, Feedback, FeedbackMutant, FeedbackRejection, KillMatrix, Mutant,
                          Prompt, Reply, RoundRecord, Target, Verdict)
from drafter.errors import ConfigError
from drafter.lint import lint
from drafter.prompt import build_prompts, signature_text
from drafter.jsonfile import UnreadableJSON, load
from drafter.runfolder import target_slug, write_json, write_text
from drafter.stageclock import StageClock, now

if TYPE_CHECKING:
    from drafter.config import Settings
    from drafter.data import RunOutcome

FEEDBACK_TEMPLATE = "feedback.j2"
FEEDBACK_CHARS = 12_000  # the evidence in one feedback prompt: rejections take up to a third, survivors the rest
SURVIVORS_SHOWN = 12
DIFF_LINES = 14  # of one short diff
DETAIL_CHARS = 400
# Most telling first: the model's relation is wrong on the real code, then it cannot run, then it is too weak.
REJECTION_ORDER = ("unsound", "flaky", "error", "timeout", "sandbox", "survives_sabotage", "only_crash_kills", "vacuous")


# ---------------------------------------------------------------- the call budget


class Budget:
    """--max-calls / --max-tokens over the whole run, every round: once spent, no prompt goes to the model.

    Calls answered from the reply cache cost nothing. Calls run `chunk` at a time (the backend's concurrency)
    when a cap is set, so the token cap can be passed by the calls of the last chunk, never by more."""

    def __init__(self, max_calls: int | None = None, max_tokens: int | None = None):
        self.max_calls, self.max_tokens = max_calls, max_tokens
        self.calls = 0
        self.tokens = 0
        self.not_asked: set[tuple[str, int]] = set()  # (target, round)
        self.note: str | None = None  # why the budget stopped the run, once it did

    @property
    def capped(self) -> bool:
        return self.max_calls is not None or self.max_tokens is not None

    def spent(self) -> str | None:
        if self.max_calls is not None and self.calls >= self.max_calls:
            return f"--max-calls {self.max_calls} reached ({self.calls} calls made)"
        if self.max_tokens is not None and self.tokens >= self.max_tokens:
            return f"--max-tokens {self.max_tokens} reached ({self.tokens} tokens spent)"
        return None

    def ask(self, propose: Callable[[Sequence[Prompt]], list[Reply]], prompts: Sequence[Prompt],
            chunk: int) -> list[Reply]:
        """Replies in prompt order; a prompt past the budget gets a reply saying it was not asked."""
        if not self.capped:
            replies = propose(prompts) if prompts else []
            self._record(replies)
            return replies
        replies: list[Reply] = []
        start = 0
        while start < len(prompts):
            why = self.spent()
            if why:
                self.note = self.note or why
                for prompt in prompts[start:]:
                    self.not_asked.add((prompt.target, prompt.round))
                    replies.append(Reply(prompt.target, None, error=f"not asked: {why}", round=prompt.round))
                break
            size = min(max(1, chunk), len(prompts) - start)
            if self.max_calls is not None:
                size = min(size, self.max_calls - self.calls)
            batch = propose(prompts[start:start + size])
            self._record(batch)
            replies.extend(batch)
            start += size
        return replies

    def _record(self, replies: Sequence[Reply]) -> None:
        self.calls += len(replies)
        self.tokens += sum(r.usage.total_tokens for r in replies if r.usage)


def call_rows(replies: Sequence[Reply], backend_name: str, cached: set[str], budget: Budget | None) -> list[dict]:
    """model_calls.json rows: every call with its round and tokens (prompts the budget kept back are no call)."""
    skipped = budget.not_asked if budget else set()
    return [{"target": r.target, "round": r.round, "model": r.model or backend_name, "seconds": round(r.seconds, 3),
             "usage": r.usage, "error": r.error, "cached": r.target in cached}
            for r in replies if (r.target, r.round) not in skipped]


# ---------------------------------------------------------------- evidence -> feedback prompt


def short_diff(diff: str, context: int = 1, limit: int = DIFF_LINES) -> str:
    """The hunk headers and changed lines of a unified diff with `context` lines around them, at most `limit`."""
    lines = [line.rstrip("\n") for line in diff.splitlines() if not line.startswith(("--- ", "+++ "))]
    changed = [i for i, line in enumerate(lines) if line[:1] in "+-" or line.startswith("\\")]
    keep = {i for c in changed for i in range(c - context, c + context + 1)}
    out = [line[:160] for i, line in enumerate(lines) if line.startswith("@@") or i in keep]
    return "\n".join(out[:limit] + (["… (diff cut)"] if len(out) > limit else []))


def informative_order(mutants: Sequence[Mutant]) -> list[Mutant]:
    """The owner's known-bad patches, then one mutant per distinct line (other operators first), then the rest."""
    known = sorted((m for m in mutants if m.operator == "known_bad"), key=lambda m: m.id)
    by_line: dict[int, list[Mutant]] = defaultdict(list)
    for mutant in sorted((m for m in mutants if m.operator != "known_bad"), key=lambda m: (m.line, m.id)):
        by_line[mutant.line].append(mutant)
    order: list[Mutant] = []
    seen_operators: set[str] = set()
    while any(by_line.values()):
        for line in sorted(by_line):
            group = by_line[line]
            if group:
                pick = next((m for m in group if m.operator not in seen_operators), group[0])
                group.remove(pick)
                seen_operators.add(pick.operator)
                order.append(pick)
    return known + order


def _clip(text: str, limit: int = DETAIL_CHARS) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _name_kind(item: Drafted) -> tuple[str, str]:
    if item.candidate is not None:
        return item.candidate.name, item.candidate.kind
    raw = item.raw if isinstance(item.raw, dict) else {}
    name = raw.get("name") if isinstance(raw.get("name"), str) else item.id.split("::", 1)[1]
    return name, raw.get("kind") if isinstance(raw.get("kind"), str) else "?"


def gather_evidence(outcome: RunOutcome, target_id: str, round_number: int, budget_chars: int = FEEDBACK_CHARS) -> Feedback:
    """What round `round_number` left open for one target, within `budget_chars` of diffs and reasons."""
    own = [d for d in outcome.drafted if d.target == target_id]
    kept_ids = {d.id for d in own if d.verdict.stage == "kept"}
    invalid = set(outcome.matrix.invalid)
    mutants = [m for m in outcome.mutants if m.target == target_id and m.id not in invalid]
    met = {r.mutant_id for r in outcome.matrix.results}
    caught = {r.mutant_id for r in outcome.matrix.results if r.killed and r.candidate_id in kept_ids}
    survivors = [m for m in mutants if m.id in met and m.id not in caught]
    triage = getattr(outcome, "triage", {})  # an outcome built before triage has none
    # Distinguished first (the model can aim at a real difference), then those not searched, then the likely
    # equivalent ones, marked, so that the model does not chase them.
    placed = {"distinguished": 0, "no_difference_found": 2}

    rejected = [d for d in own if d.round == round_number and d.verdict.stage != "kept"]
    rank = {reason: i for i, reason in enumerate(REJECTION_ORDER)}
    rejected.sort(key=lambda d: (rank.get(d.verdict.reason or "", len(rank)), d.index))
    rejections, used = [], 0
    for item in rejected:
        name, kind = _name_kind(item)
        check = outcome.soundness.get(item.id)
        example = check.counterexample if check is not None and item.verdict.stage == "sound" else None
        entry = FeedbackRejection(name, kind, item.verdict.stage, item.verdict.reason or "rejected",
                                  _clip(item.verdict.detail or ""), _clip(example) if example else None)
        size = len(entry.detail) + len(entry.counterexample or "") + len(name) + 40
        if used + size <= budget_chars // 3:  # one that does not fit leaves room for a shorter one
            rejections.append(entry)
            used += size

    shown = []
    ordered = sorted(informative_order(survivors), key=lambda m: placed.get(getattr(triage.get(m.id), "status", ""), 1))
    for mutant in ordered:
        if len(shown) == SURVIVORS_SHOWN:
            break
        entry = FeedbackMutant(mutant.id, _clip(mutant.description, 200), mutant.line, short_diff(mutant.diff),
                               triage.get(mutant.id))
        size = len(entry.diff) + len(entry.description) + len(entry.id) + 20 + _triage_chars(entry.triage)
        if used + size <= budget_chars:
            shown.append(entry)
            used += size
    return Feedback(
        target=target_id,
        round=round_number,
        survivors=tuple(shown),
        survivors_total=len(survivors),
        survivor_lines=len({m.line for m in survivors}),
        rejections=tuple(rejections),
        rejections_total=len(rejected),
        kept=tuple(_name_kind(d) for d in own if d.id in kept_ids),
        used_names=tuple(sorted({_name_kind(d)[0] for d in own if d.candidate is not None})),
        unevaluated=sum(1 for m in mutants if m.id not in met),
    )


def _triage_chars(triage) -> int:
    if triage is None:
        return 0
    return len(triage.call) + len(triage.original) + len(triage.mutant) + 80


def why_stop(feedback: Feedback, has_kept: bool, reply: Reply | None, proposed: int) -> str | None:
    """None when the target is asked again; else why it stops after this round."""
    if reply is None or reply.text is None:
        return "no reply to continue the conversation from"
    if feedback.round > 1 and proposed == 0:
        return "the model proposed nothing new"
    if feedback.survivors_total:
        return None if feedback.survivors else "no surviving mutant fits the prompt's size budget"
    if has_kept:
        return "nothing survives: the kept candidates catch every mutant run"
    if feedback.rejections:
        return None
    return "nothing to feed back"


def feedback_environment(templates_dir: Path | None) -> jinja2.Environment:
    """feedback.j2 from a --prompts folder when it has one, else the bundled one."""
    loaders: list[jinja2.BaseLoader] = [jinja2.PackageLoader("prompts", "")]
    if templates_dir is not None and (templates_dir / FEEDBACK_TEMPLATE).is_file():
        loaders.insert(0, jinja2.FileSystemLoader(str(templates_dir)))
    return jinja2.Environment(loader=jinja2.ChoiceLoader(loaders), undefined=jinja2.StrictUndefined,
                              keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True)


def render_feedback(env: jinja2.Environment, feedback: Feedback, target: Target, *, seeds: int) -> str:
    try:
        return env.get_template(FEEDBACK_TEMPLATE).render(
            feedback=feedback, target=target, signature=signature_text(target), seeds=seeds,
            min_candidates=1, max_candidates=6)
    except jinja2.TemplateError as exc:
        raise ConfigError(f"prompt template {FEEDBACK_TEMPLATE}: {exc}") from exc


def conversation(previous: Prompt, reply: Reply, feedback_text: str, round_number: int) -> Prompt:
    """The next turn: same system prompt; history = the earlier turns, the previous user prompt and the reply."""
    history = previous.history + (("user", previous.user), ("assistant", reply.text or ""))
    return Prompt(previous.target, previous.system, feedback_text, history, round_number)


def conversation_text(prompt: Prompt) -> str:
    turns = [("system", prompt.system), *prompt.history, ("user", prompt.user)]
    return "".join(f"### {role}\n{text}\n" for role, text in turns)


# ---------------------------------------------------------------- a round's candidates


def parse_round(reply: Reply, target: Target, extraction: Extraction, earlier: Sequence[Drafted],
                round_number: int) -> list[Drafted]:
    """Parse and lint a feedback reply: a name used before gets a `_rN` suffix (ids and staged files stay unique),
    and a candidate identical to an earlier one of the target is a lint `duplicate`."""
    used = {d.id for d in earlier}
    items = []
    for item in parse_reply(reply, target):
        if item.candidate is None:
            item = replace(item, id=f"{item.id}@round{round_number}")
        elif item.id in used:
            name = base = f"{item.candidate.name}_r{round_number}"
            n = 1
            while f"{target.id}::{name}" in used or not is_snake_case(name):
                n += 1
                name = f"{base}_{n}"
            item = replace(item, id=f"{target.id}::{name}", candidate=replace(item.candidate, name=name))
        used.add(item.id)
        items.append(replace(item, round=round_number))
    # Earlier candidates that passed lint go first, so the duplicate rule sees them; only the new verdicts are kept.
    passed = [replace(d, verdict=Verdict("parse", True)) for d in earlier
              if d.candidate is not None and d.verdict.stage not in ("parse", "lint")]
    return lint(passed + items, target, extraction)[len(passed):]


@dataclass(frozen=True)
class Stages:
    """The pipeline's stage functions, handed in so that this module never imports the pipeline."""

    ask: Callable  # (backend, cache, prompts, extraction, on_reply, budget) -> replies in prompt order
    cache: Callable  # (settings, backend) -> ReplyCache | None
    render: Callable  # (accepted, extraction, run_dir, settings, reporter) -> (rendered, failures)
    mutants: Callable  # (extraction, source_dir, known_bad, warnings, facing) -> (mutants, dropped)
    keep: Callable  # (sound, matrix, run_dir) -> verdicts
    soundness: Callable  # (rendered, run_dir, source_dir, settings, reporter, warnings) -> checks in order
    matrix: Callable  # (sound, mutants, run_dir, source_dir, settings, reporter, warnings) -> KillMatrix
    triage: Callable | None = None  # (outcome, settings, reporter) -> outcome with its survivors triaged


def merge_matrices(old: KillMatrix, new: KillMatrix) -> KillMatrix:
    return KillMatrix(
        results=old.results + new.results,
        invalid=old.invalid + tuple(i for i in new.invalid if i not in old.invalid),
        fresh_process={**old.fresh_process, **new.fresh_process},
        seconds=old.seconds + new.seconds,
        test_seconds=old.test_seconds + new.test_seconds,
        timeout_seconds=old.timeout_seconds + new.timeout_seconds,
        notes=old.notes + tuple(n for n in new.notes if n not in old.notes),
        vacuous={**old.vacuous, **new.vacuous},
    )


def _checks(state: RunOutcome, drafted: list[Drafted], settings: Settings, reporter, stages: Stages,
            warnings: list[str]) -> RunOutcome:
    """Render, soundness, sabotage and keep for one round's new candidates, merged into the run so far."""
    draft = state.draft
    run_dir, extraction, source_dir = draft.run_dir, draft.extraction, draft.run_dir / "source"
    verdicts = {d.id: d.verdict for d in drafted}
    rendered, failures = stages.render([d for d in drafted if d.verdict.accepted], extraction, run_dir, settings, reporter)
    verdicts.update(failures)
    reporter.stage("soundness", total=len(rendered))
    checks = stages.soundness(list(rendered.values()), run_dir, source_dir, settings, reporter, warnings) if rendered else []
    for check in checks:
        sound_now = check.status == "sound"
        verdicts[check.candidate_id] = Verdict("sound", sound_now, None if sound_now else check.status, check.detail)
    sound = [(rendered[c.candidate_id], c) for c in checks if c.status == "sound"]
    facing = {r.target for r, _ in sound}

    # Operator mutants exist only for targets that faced them before; a target's first sound candidate needs them.
    mutants, dropped = list(state.mutants), dict(state.dropped_mutants)
    first_time = facing - set(dropped)
    if first_time:
        scratch: list[str] = []
        fresh, fresh_dropped = stages.mutants(extraction, source_dir, settings.known_bad, scratch, first_time)
        known = {m.id for m in mutants}
        mutants += [m for m in fresh if m.id not in known]
        dropped.update(fresh_dropped)
        warnings.extend(w for w in scratch if w not in warnings)
    reporter.stage("sabotage")
    invalid = set(state.matrix.invalid)
    matrix = stages.matrix(sound, [m for m in mutants if m.target in facing and m.id not in invalid], run_dir,
                           source_dir, settings, reporter, warnings) if sound else KillMatrix(())
    verdicts.update(stages.keep(sound, matrix, run_dir))
    return replace(
        state,
        drafted=state.drafted + tuple(replace(d, verdict=verdicts[d.id]) for d in drafted),
        rendered={**state.rendered, **rendered},
        soundness={**state.soundness, **{c.candidate_id: c for c in checks}},
        mutants=tuple(mutants),
        dropped_mutants=dropped,
        matrix=merge_matrices(state.matrix, matrix),
    )


# ---------------------------------------------------------------- the rounds


def more_rounds(outcome: RunOutcome, settings: Settings, budget: Budget, reporter, stages: Stages) -> RunOutcome:
    """Rounds 2..settings.rounds on top of a finished round 1; records who was asked and why targets stopped."""
    draft = outcome.draft
    backend = draft.backend
    warnings = list(outcome.warnings)
    first = RoundRecord(1, tuple(r.target for r in draft.replies if (r.target, 1) not in budget.not_asked),
                        tuple(sorted(t for t, k in budget.not_asked if k == 1)))
    records = [first]
    recorded = {**outcome.settings, "rounds": settings.rounds, "max_calls": settings.max_calls,
                "max_tokens": settings.max_tokens}
    if settings.rounds > 1 and not getattr(backend, "answers_feedback", False):
        warnings.append(f"{draft.model} does not answer feedback rounds: --rounds {settings.rounds} ran round 1 only")
    elif settings.rounds > 1:
        state, records = _rounds(outcome, settings, budget, reporter, stages, warnings, records)
        outcome = state
    if budget.note:
        not_asked = sorted(budget.not_asked, key=lambda key: (key[1], key[0]))
        warnings.append(f"{budget.note}: the run stopped asking; {len(not_asked)} prompt(s) not sent ("
                        + ", ".join(f"{t} round {k}" for t, k in not_asked[:10])
                        + (", …" if len(not_asked) > 10 else "") + ")")
    return replace(outcome, warnings=tuple(warnings), rounds=tuple(records), settings=recorded)


def _rounds(outcome: RunOutcome, settings: Settings, budget: Budget, reporter, stages: Stages,
            warnings: list[str], records: list[RoundRecord]) -> tuple[RunOutcome, list[RoundRecord]]:
    state = outcome
    draft = outcome.draft
    backend, extraction, run_dir = draft.backend, draft.extraction, draft.run_dir
    env = feedback_environment(settings.prompts)
    prompts = {p.target: p for p in build_prompts(extraction, settings.prompts)}
    replies = {r.target: r for r in draft.replies}
    for number in range(2, settings.rounds + 1):
        last = records[-1]
        stopped: dict[str, str] = {}
        asking: list[Prompt] = []
        if stages.triage is not None:  # the prompt shows where each survivor differs, or that nothing was found
            state = stages.triage(state, settings, reporter)
        for target_id in last.asked:
            target = extraction.target(target_id)
            feedback = gather_evidence(state, target_id, number - 1)
            has_kept = any(d.target == target_id and d.verdict.stage == "kept" for d in state.drafted)
            proposed = sum(1 for d in state.drafted if d.target == target_id and d.round == number - 1)
            why = why_stop(feedback, has_kept, replies.get(target_id), proposed)
            if why:
                stopped[target_id] = why
                continue
            text = render_feedback(env, feedback, target, seeds=settings.seeds)
            asking.append(conversation(prompts[target_id], replies[target_id], text, number))
        records[-1] = replace(last, stopped=stopped)
        if not asking:
            break
        if budget.spent():
            budget.note = budget.note or budget.spent()
            budget.not_asked.update((p.target, number) for p in asking)
            records.append(RoundRecord(number, (), tuple(p.target for p in asking)))
            break
        started = now()
        for prompt in asking:
            write_text(run_dir / "prompts" / f"round{number}" / f"{target_slug(prompt.target)}.txt",
                       conversation_text(prompt))
        reporter.stage(f"model r{number}", total=len(asking))
        cache = stages.cache(settings, backend)
        answers = stages.ask(backend, cache, asking, extraction, lambda _reply: reporter.advance(), budget)
        if cache is not None:
            warnings.extend(w for w in cache.warnings if w not in warnings)
        _write_replies(run_dir, number, answers, backend.name, cache, budget)
        asked = [r for r in answers if (r.target, number) not in budget.not_asked]
        drafted: list[Drafted] = []
        notes = dict(state.draft.target_notes)
        for reply in asked:
            earlier = [d for d in state.drafted if d.target == reply.target]
            items = parse_round(reply, extraction.target(reply.target), extraction, earlier, number)
            if any(d.verdict.accepted for d in items):
                notes.pop(reply.target, None)  # it has an accepted candidate now
            drafted.extend(items)
        clock = StageClock.of(state)
        clock.add(f"round {number} model", started)
        state = replace(state, draft=replace(state.draft, replies=state.draft.replies + tuple(answers), target_notes=notes))
        with clock.measure(f"round {number} checks"):
            state = _checks(state, drafted, settings, reporter, stages, warnings)
        state = replace(state, stage_seconds=clock.seconds, stage_cpu=clock.cpu)
        prompts.update({p.target: p for p in asking})
        replies.update({r.target: r for r in asked})
        records.append(RoundRecord(number, tuple(r.target for r in asked),
                                   tuple(p.target for p in asking if (p.target, number) in budget.not_asked)))
    if len(records) == settings.rounds:
        records[-1] = replace(records[-1], stopped={t: f"last round (--rounds {settings.rounds})" for t in records[-1].asked})
    return state, records


def _write_replies(run_dir: Path, number: int, answers: Sequence[Reply], backend_name: str, cache,
                   budget: Budget) -> None:
    for reply in answers:
        if (reply.target, number) in budget.not_asked:
            continue
        body = reply.text if reply.text is not None else f"# no reply: {reply.error}\n"
        write_text(run_dir / "replies" / f"round{number}" / f"{target_slug(reply.target)}.txt", body)
    path = run_dir / "model_calls.json"
    try:
        rows = load(path, list) if path.exists() else []
    except UnreadableJSON:
        rows = []  # this run's own file, damaged: the rows of this round are still written
    hits = cache.hits if cache is not None else set()
    write_json(path, rows + call_rows(answers, backend_name, hits, budget))
