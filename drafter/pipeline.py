"""The stages in order: draft (extract → prompt → model → parse → lint) and run (→ render → soundness → sabotage → keep → report)."""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from drafter.cache import CacheKey, ReplyCache
from drafter.candidates import parse_reply
from drafter.config import Settings
from drafter.data import DraftOutcome, Drafted, Extraction, KillMatrix, Mutant, Rendered, Reply, RunOutcome, Soundness, Verdict
from drafter.errors import ConfigError, DrafterError, ModelError, SourceError
from drafter.importcheck import import_failures
from drafter.jsonfile import MapOf, UnreadableJSON, load, read_json
from drafter.extract import extract
from drafter.keep import decide
from drafter.limits import load_json
from drafter.lint import lint
from drafter.models import load_backend
from drafter.prompt import build_prompts, template_version
from drafter.render import RenderError, render
from drafter.results import JOURNAL, START_RECORD, ResultStore, reopen, start_record, stored_kill_matrix, stored_soundness
from drafter.report import RunReport, build_report, write_reports
from drafter.report.model import Carry
from drafter.rounds import Budget, Stages, call_rows, more_rounds
from drafter.runfolder import (
    abandon_run,
    check_separate,
    copy_source,
    finish_run,
    hypothesis_storage_in,
    new_run_dir,
    target_slug,
    tree_hash,
    write_json,
    write_text,
)
from drafter.shard import SHARD_RECORD, Shard, WholeSource, select_shard
from drafter.soundness import wall_warnings
from drafter.stageclock import StageClock
from sabotage.cache import MutantCache
from sabotage.known_bad import drop_operator_duplicates, load_known_bad
from sabotage.mutants import mutants_for_all
from sabotage.triage import with_triage


class Reporter(Protocol):
    """Progress sink: the CLI shows bars, tests and library callers pass Quiet()."""

    def stage(self, name: str, total: int | None = None) -> None: ...
    def advance(self, amount: int = 1, total: int | None = None, note: str | None = None) -> None: ...


class Quiet:
    def stage(self, name: str, total: int | None = None) -> None:
        pass

    def advance(self, amount: int = 1, total: int | None = None, note: str | None = None) -> None:
        pass


@dataclass(frozen=True)
class RunResult:
    run_dir: Path
    report: RunReport
    report_paths: tuple[Path, ...]  # report.json, report.md, report.html
    outcome: RunOutcome

    @property
    def warnings(self) -> tuple[str, ...]:
        return self.report.warnings


def resolve_src(src: Path) -> Path:
    if not src.exists():
        raise SourceError(f"SRC {src} does not exist")
    if not src.is_dir():
        raise SourceError(f"SRC {src} is not a folder of Python modules")
    return src.resolve()


def reply_note(reply: Reply) -> str | None:
    """The optional top-level "note" a backend puts beside an empty candidate list."""
    if not reply.text:
        return None
    try:
        value = load_json(reply.text)  # bounded: a reply nested 100,000 deep is only not a note
    except ValueError:
        return None
    return value.get("note") if isinstance(value, dict) and isinstance(value.get("note"), str) else None


def why_no_candidates(reply: Reply, drafted: list[Drafted]) -> str | None:
    if any(d.verdict.accepted for d in drafted):
        return None
    if reply.error:
        return reply.error
    if drafted:
        reasons = Counter(d.verdict.reason for d in drafted)
        return "all rejected: " + ", ".join(f"{n}× {r}" for r, n in sorted(reasons.items()))
    return reply_note(reply) or "the model proposed no candidate"


def earlier_fingerprints(path: Path) -> dict[str, str]:
    """Target id -> fingerprint of every target an earlier run saw (drafted or not), or of its targets.json."""
    if path.is_dir() and (path / "fingerprints.json").is_file():
        try:
            return load(path / "fingerprints.json", MapOf(str))
        except UnreadableJSON:
            pass  # fall back on targets.json, which names what was drafted
    targets_json = path / "targets.json" if path.is_dir() else path
    data = read_json(targets_json, {"targets": [{"id": str, "fingerprint": str}]},
                     hint="--changed-since needs the targets.json of a run (or its folder)")
    return {t["id"]: t["fingerprint"] for t in data["targets"]}


def no_targets(src: Path, extraction: Extraction, select: tuple[str, ...]) -> str:
    named = "; ".join(f"{e.file}: {e.reason}" for e in extraction.errors[:5])
    more = f"; and {len(extraction.errors) - 5} more" if len(extraction.errors) > 5 else ""
    skipped = f" (skipped as unreadable: {named}{more})" if extraction.errors else ""
    if select:  # checked first: with a selection only the modules it can match are read
        return f"--select {' '.join(select)}: matches no target of SRC {src} (`drafter extract SRC` lists them)"
    if not extraction.module_names:
        return f"SRC {src}: no Python module found{skipped}"
    return f"SRC {src}: its modules define no public function or method to draft for{skipped}"


def only_changed(extraction: Extraction, earlier: dict[str, str]) -> Extraction:
    """Targets that are new or whose signature or docstring changed; bodies do not count."""
    changed = tuple(t for t in extraction.targets if earlier.get(t.id) != t.fingerprint)
    return replace(extraction, targets=changed)


def stop_reason(exc: BaseException) -> str:
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted (SIGINT)"
    return f"{type(exc).__name__}: {exc}"


@contextmanager
def abandoned_on_error(run_dir: Path) -> Iterator[None]:
    """Whatever stops a run half-way leaves it as runs/<id>.incomplete/ with a note saying why."""
    try:
        yield
    except BaseException as exc:
        abandon_run(run_dir, stop_reason(exc))
        raise


def draft(src: Path, settings: Settings, reporter: Reporter | None = None) -> DraftOutcome:
    """Front half: a new run folder with targets.json, prompts/, replies/ and candidates.json."""
    outcome = _draft(src, settings, reporter or Quiet())
    with abandoned_on_error(outcome.run_dir):
        final = finish_run(outcome.run_dir, {"command": "draft", "src": str(outcome.src), "model": outcome.model,
                                             "stages": StageClock.of(outcome).stages()})
    return replace(outcome, run_dir=final)


def reply_cache(settings: Settings, backend) -> ReplyCache | None:
    """The workspace's reply cache, for backends that call a model (replay and heuristic cost nothing)."""
    if not settings.cache or not getattr(backend, "remote", False):
        return None
    key = CacheKey(backend=settings.model, server=str(getattr(backend, "base_url", "") or settings.base_url or ""),
                   model=str(getattr(backend, "model", backend.name)), template_version=template_version(settings.prompts),
                   temperature=settings.temperature)
    return ReplyCache(settings.workspace.resolve() / "cache" / "replies", key)


def propose_with_cache(backend, cache: ReplyCache | None, prompts: list, extraction: Extraction, on_reply,
                       budget: Budget | None = None) -> list[Reply]:
    """Replies in prompt order: stored ones from the cache, the others from the backend (then stored), within
    the run's call and token budget; each reply carries its prompt's round."""
    budget = budget or Budget()
    chunk = getattr(backend, "concurrency", None) or len(prompts)

    def ask(batch):
        return backend.propose(batch, extraction, on_reply=on_reply)

    if cache is None:
        return [replace(r, round=p.round) for p, r in zip(prompts, budget.ask(ask, prompts, chunk))]
    cached = {}
    for prompt in prompts:
        reply = cache.get(prompt)
        if reply is not None:
            cached[prompt.target] = reply
            on_reply(reply)
    missing = [p for p in prompts if p.target not in cached]
    fresh = budget.ask(ask, missing, chunk) if missing else []
    for prompt, reply in zip(missing, fresh):
        cache.put(prompt, reply)
        cached[prompt.target] = reply
    return [replace(cached[p.target], round=p.round) for p in prompts]


def _draft(src: Path, settings: Settings, reporter: Reporter, budget: Budget | None = None,
           shard: Shard | None = None, resume: Path | None = None) -> DraftOutcome:
    clock = StageClock()
    src = resolve_src(src)
    check_separate(src, settings.workspace)
    # Everything that can fail on the user's input fails before a run folder exists.
    earlier = earlier_fingerprints(settings.changed_since) if settings.changed_since else None
    backend = load_backend(
        settings.model,
        base_url=settings.base_url,
        concurrency=settings.concurrency,
        temperature=settings.temperature,
        timeout=settings.timeout,
        retries=settings.retries,
    )
    reporter.stage("extract")
    with clock.measure("extract"):
        extraction = extract(src, settings.corpus, settings.select, settings.include_private)
        if not extraction.targets:
            raise SourceError(no_targets(src, extraction, settings.select))
        warnings = [f"{e.file}: skipped, {e.reason}" for e in extraction.errors]
        shard_record = None
        if shard is not None:
            # The partition is of every target (a refresh's unchanged ones too), so every shard agrees on it.
            whole = extraction
            extraction, shard_record = select_shard(extraction, shard)
            backend = WholeSource(backend, whole)
        fingerprints = {t.id: t.fingerprint for t in extraction.targets}
        if earlier is not None:
            before = len(extraction.targets)
            extraction = only_changed(extraction, earlier)
            warnings.append(f"--changed-since: {before - len(extraction.targets)} of {before} targets unchanged, not drafted")
        prompts = build_prompts(extraction, settings.prompts)
    record = start_record(src, settings, shard)
    run_dir = reopen(resume, record) if resume is not None else new_run_dir(settings.workspace)
    with abandoned_on_error(run_dir):
        write_json(run_dir / START_RECORD, record)
        write_json(run_dir / "fingerprints.json", fingerprints)
        if shard_record is not None:
            write_json(run_dir / SHARD_RECORD, shard_record)
        return _draft_into(run_dir, src, settings, reporter, backend, clock, extraction, prompts, warnings,
                           budget or Budget(settings.max_calls, settings.max_tokens))


def _draft_into(run_dir: Path, src: Path, settings: Settings, reporter: Reporter, backend, clock: StageClock,
                extraction: Extraction, prompts: list, warnings: list[str], budget: Budget) -> DraftOutcome:
    write_json(run_dir / "targets.json", extraction)
    for prompt in prompts:
        write_text(run_dir / "prompts" / f"{target_slug(prompt.target)}.txt", f"### system\n{prompt.system}\n### user\n{prompt.user}")

    reporter.stage("model", total=len(prompts))
    with clock.measure("model"):
        cache = reply_cache(settings, backend)
        replies = propose_with_cache(backend, cache, prompts, extraction, lambda _reply: reporter.advance(), budget)
    unknown = getattr(backend, "unknown_targets", ())  # known once the backend has read its replies
    if unknown:
        warnings.append(f"{backend.name}: replies for targets that were not extracted: {', '.join(sorted(unknown))}")
    if cache is not None:
        warnings.extend(cache.warnings)
        if cache.hits:
            warnings.append(f"reply cache: {len(cache.hits)} of {len(prompts)} replies reused, no model call for them (--no-cache asks again)")
    if replies and all(r.text is None for r in replies) and getattr(backend, "remote", False):
        raise ModelError(f"{backend.name}: every model call failed; the first: {replies[0].error}")
    for reply in replies:
        body = reply.text if reply.text is not None else f"# no reply: {reply.error}\n"
        write_text(run_dir / "replies" / f"{target_slug(reply.target)}.txt", body)
    write_json(run_dir / "model_calls.json", call_rows(replies, backend.name, cache.hits if cache else set(), budget))

    reporter.stage("parse+lint", total=len(replies))
    drafted: list[Drafted] = []
    target_notes: dict[str, str] = {}
    with clock.measure("parse+lint"):
        for reply in replies:
            target = extraction.target(reply.target)
            items = lint(parse_reply(reply, target), target, extraction)
            drafted.extend(items)
            note = why_no_candidates(reply, items)
            if note:
                target_notes[target.id] = note
            reporter.advance()
    prompts_version = template_version(settings.prompts)
    write_candidates(run_dir, backend.name, prompts_version, drafted, final=False)
    return DraftOutcome(
        src=src,
        run_dir=run_dir,
        extraction=extraction,
        model=backend.name,
        replies=tuple(replies),
        drafted=tuple(drafted),
        target_notes=target_notes,
        warnings=tuple(warnings),
        stage_seconds=clock.seconds,
        prompts_version=prompts_version,
        backend=backend,
        stage_cpu=clock.cpu,
    )


def write_candidates(run_dir: Path, model: str, prompts_version: str, drafted, *, final: bool) -> None:
    """candidates.json: after `draft` the front-half verdicts; `run` writes it again with every final one."""
    write_json(run_dir / "candidates.json", {"model": model, "prompts": prompts_version, "final": final,
                                             "candidates": [candidate_row(d) for d in drafted]})


def candidate_row(d: Drafted) -> dict:
    status = "kept" if d.verdict.stage == "kept" else "accepted" if d.verdict.accepted else "rejected"
    row = {"id": d.id, "target": d.target, "status": status, "stage": d.verdict.stage, "reason": d.verdict.reason,
           "round": d.round}
    if d.verdict.detail:
        row["detail"] = d.verdict.detail
    row["candidate"] = d.raw
    return row


def check_imports(source_dir: Path, extraction: Extraction) -> list[str]:
    """Warnings for target modules that do not import; an error when none does (an environment problem)."""
    modules = sorted({t.module for t in extraction.targets})
    failures = import_failures(source_dir, modules, log=Path(source_dir).parent / "logs" / "import_check.log")
    if modules and len(failures) == len(modules):
        raise SourceError(
            "no target module of SRC imports, so no candidate can run ("
            + "; ".join(f"{m}: {why}" for m, why in sorted(failures.items()))
            + "). Install SRC's dependencies in this environment."
        )
    return [f"{m} does not import ({why}): its candidates cannot run" for m, why in sorted(failures.items())]


def render_stage(accepted: list[Drafted], extraction: Extraction, run_dir: Path, settings: Settings,
                 reporter: Reporter) -> tuple[dict[str, Rendered], dict[str, Verdict]]:
    """Staged test files for accepted candidates; render failures as verdicts."""
    rendered: dict[str, Rendered] = {}
    failed: dict[str, Verdict] = {}
    reporter.stage("render", total=len(accepted))
    for item in accepted:
        try:
            result = render(item.candidate, extraction.target(item.target), extraction, max_examples=settings.max_examples)
        except RenderError as exc:
            failed[item.id] = exc.verdict
        else:
            write_text(run_dir / result.path, result.source)
            rendered[item.id] = result
        reporter.advance()
    return rendered, failed


def mutant_stage(extraction: Extraction, source_dir: Path, known_bad: Path | None,
                 warnings: list[str], facing: set[str] | None = None,
                 cache: MutantCache | None = None, jobs: int = 1) -> tuple[list[Mutant], dict[str, tuple[int, int]]]:
    """Operator mutants of every target (of those in `facing`, when given: a target without a sound candidate
    has no use for them), from the cache or made over `jobs` processes, plus the owner's known-bad patches;
    problems become warnings."""
    mutants: list[Mutant] = []
    dropped: dict[str, tuple[int, int]] = {}
    wanted = [t for t in extraction.targets if facing is None or t.id in facing]
    made: dict[str, object] = {}
    for target in wanted if cache else ():
        try:
            made[target.id] = cache.get(target, source_dir)
        except DrafterError as exc:
            made[target.id] = exc
    missing = [t for t in wanted if made.get(t.id) is None]
    for target, result in zip(missing, mutants_for_all(missing, source_dir, jobs)):
        made[target.id] = result
        if cache and not isinstance(result, DrafterError):
            cache.put(target, source_dir, result)
    for target in wanted:
        mutant_set = made[target.id]
        if isinstance(mutant_set, DrafterError):
            warnings.append(f"{target.id}: no mutants, {mutant_set}")
            continue
        mutants.extend(mutant_set.mutants)
        dropped[target.id] = (mutant_set.dropped_equivalent, mutant_set.dropped_duplicate)
    if known_bad is not None:
        known, errors = load_known_bad(known_bad, source_dir, extraction.targets)
        warnings.extend(f"known-bad {e.file}: {e.reason}" for e in errors)
        # An operator mutant that is the same tree as an owner's patch is a duplicate: keep the owner's words.
        mutants, duplicates = drop_operator_duplicates(mutants, known, extraction.targets, source_dir)
        for target_id, count in duplicates.items():
            equivalent, duplicate = dropped[target_id]
            dropped[target_id] = (equivalent, duplicate + count)
        mutants.extend(known)
    return mutants, dropped


def result_store(settings: Settings, run_dir: Path, source_dir: Path) -> ResultStore:
    """Results known to the run folder's journal (a resumed run) or the workspace's result cache."""
    cache = settings.workspace.resolve() / "cache" / "results" if settings.cache else None
    return ResultStore(run_dir / JOURNAL, cache, tree_hash(source_dir), seeds=settings.seeds,
                       max_examples=settings.max_examples, budget=settings.budget)


def soundness_stage(rendered: list[Rendered], run_dir: Path, source_dir: Path, settings: Settings, reporter: Reporter,
                    warnings: list[str]) -> list[Soundness]:
    store = result_store(settings, run_dir, source_dir)
    unsound = [0]

    def finished(result: Soundness) -> None:
        unsound[0] += result.status == "unsound"
        reporter.advance(note=f"{unsound[0]} unsound")

    checks = stored_soundness(store, rendered, run_dir, source_dir, seeds=settings.seeds,
                              max_examples=settings.max_examples, jobs=settings.jobs, budget_seconds=settings.budget,
                              on_result=finished, on_wall=lambda layers: warnings.extend(
                                  w for w in wall_warnings(layers) if w not in warnings))
    _store_notes(store, warnings, f"{store.reused['soundness']} of {len(rendered)} soundness checks")
    return checks


def matrix_stage(sound: list, mutants: list[Mutant], run_dir: Path, source_dir: Path, settings: Settings,
                 reporter: Reporter, warnings: list[str]) -> KillMatrix:
    store = result_store(settings, run_dir, source_dir)
    matrix = stored_kill_matrix(store, sound, mutants, run_dir, source_dir, jobs=settings.jobs,
                                max_examples=settings.max_examples,
                                on_progress=lambda done, total: reporter.advance(total=total))
    targets = len({r.target for r, _ in sound})
    _store_notes(store, warnings, f"the kill matrices of {store.reused['kill']} of {targets} targets")
    return matrix


def _store_notes(store: ResultStore, warnings: list[str], reused: str) -> None:
    warnings.extend(w for w in store.warnings if w not in warnings)
    if any(store.reused.values()):
        warnings.append(f"result cache: {reused} reused, not run again (same test files, SRC, mutants and settings)")


def keep_stage(sound: list[tuple[Rendered, Soundness]], matrix: KillMatrix, run_dir: Path) -> dict[str, Verdict]:
    """The keep rule for every sound candidate; kept files are copied to kept/."""
    by_candidate: dict[str, list] = {}
    for result in matrix.results:
        by_candidate.setdefault(result.candidate_id, []).append(result)
    verdicts = {}
    for item, _clean in sound:
        verdicts[item.candidate_id] = verdict = decide(by_candidate.get(item.candidate_id, []),
                                                        matrix.vacuous.get(item.candidate_id, ""))
        if verdict.accepted:
            kept_path = run_dir / item.path.replace("staged/", "kept/", 1)
            kept_path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(run_dir / item.path, kept_path)
    return verdicts


def run(src: Path, settings: Settings, reporter: Reporter | None = None, carry: Carry | None = None,
        command: str = "run", shard: Shard | None = None, resume: Path | None = None) -> RunResult:
    """All stages; the run folder gains source/, staged/, kept/, report.json, .md and .html, then becomes visible.

    `carry` (from drafter refresh) names unchanged targets whose results come from an earlier run; `shard` makes
    this run one of N that `drafter merge` joins; `resume` finishes that interrupted run folder, reusing what its
    journal holds."""
    reporter = reporter or Quiet()
    if resume is not None:
        settings = replace(settings, workspace=Path(resume).resolve().parent.parent)
    if settings.known_bad is not None and not settings.known_bad.is_dir():
        raise SourceError(f"--known-bad {settings.known_bad}: not a folder of patches")
    if shard is not None and settings.known_bad is not None:
        raise ConfigError("--shard with --known-bad: a patch may span targets of several shards, which merge cannot "
                          "join yet; run the known-bad patches unsharded")
    budget = Budget(settings.max_calls, settings.max_tokens)
    drafted_run = _draft(src, settings, reporter, budget, shard, resume)
    with abandoned_on_error(drafted_run.run_dir):
        with hypothesis_storage_in(drafted_run.run_dir):
            outcome = _back_half(drafted_run, settings, reporter)
            outcome = more_rounds(outcome, settings, budget, reporter, ROUND_STAGES)
            outcome = triage_stage(outcome, settings, reporter)  # the last round's survivors (earlier ones reused)
        write_candidates(drafted_run.run_dir, drafted_run.model, drafted_run.prompts_version, outcome.drafted, final=True)
        clock = StageClock.of(outcome)
        with clock.measure("report"):
            report = build_report(outcome, carry)
            if carry is not None:
                carry.copy_kept_files(drafted_run.run_dir)
            report_files = write_reports(report, drafted_run.run_dir)
        meta = {"command": command, "src": str(drafted_run.src), "model": drafted_run.model,
                "baseline": carry.baseline_id if carry else None, "stages": clock.stages()}
        if shard is not None:
            meta["shard"] = str(shard)
        final = finish_run(drafted_run.run_dir, meta, move_latest=shard is None)
    outcome = replace(outcome, draft=replace(drafted_run, run_dir=final))
    return RunResult(final, report, tuple(final / p.name for p in report_files), outcome)


def _back_half(drafted_run: DraftOutcome, settings: Settings, reporter: Reporter) -> RunOutcome:
    clock = StageClock.of(drafted_run)
    run_dir, extraction = drafted_run.run_dir, drafted_run.extraction
    with clock.measure("prepare"):
        source_dir = copy_source(drafted_run.src, run_dir / "source")
        warnings = list(drafted_run.warnings) + check_imports(source_dir, extraction)
    verdicts: dict[str, Verdict] = {d.id: d.verdict for d in drafted_run.drafted}

    with clock.measure("render"):
        rendered, render_failures = render_stage(
            [d for d in drafted_run.drafted if d.verdict.accepted], extraction, run_dir, settings, reporter
        )
    verdicts.update(render_failures)

    reporter.stage("soundness", total=len(rendered))
    with clock.measure("soundness"):
        checks = soundness_stage(list(rendered.values()), run_dir, source_dir, settings, reporter, warnings)
    for check in checks:
        sound_now = check.status == "sound"
        verdicts[check.candidate_id] = Verdict("sound", sound_now, None if sound_now else check.status, check.detail)
    sound = [(rendered[c.candidate_id], c) for c in checks if c.status == "sound"]

    facing_targets = {r.target for r, _ in sound}
    reporter.stage("mutants")
    with clock.measure("mutants"):
        cache = MutantCache(settings.workspace.resolve() / "cache" / "mutants") if settings.cache else None
        mutants, dropped = mutant_stage(extraction, source_dir, settings.known_bad, warnings, facing_targets, cache,
                                        settings.jobs)
    if cache is not None:
        warnings.extend(cache.warnings)
        if cache.hits:
            warnings.append(f"mutant cache: the mutants of {len(cache.hits)} of {len(facing_targets)} targets "
                            "reused (same module text, operators and generator)")

    reporter.stage("sabotage")
    with clock.measure("sabotage"):
        matrix = matrix_stage(sound, [m for m in mutants if m.target in facing_targets], run_dir, source_dir, settings,
                              reporter, warnings)
    with clock.measure("keep"):
        verdicts.update(keep_stage(sound, matrix, run_dir))

    outcome = RunOutcome(
        draft=drafted_run,
        drafted=tuple(replace(d, verdict=verdicts[d.id]) for d in drafted_run.drafted),
        rendered=rendered,
        soundness={c.candidate_id: c for c in checks},
        mutants=tuple(mutants),
        dropped_mutants=dropped,
        matrix=matrix,
        warnings=tuple(warnings),
        stage_seconds=clock.seconds,
        stage_cpu=clock.cpu,
        settings={"max_examples": settings.max_examples, "seeds": settings.seeds, "jobs": settings.jobs,
                  "budget": settings.budget, "known_bad": str(settings.known_bad) if settings.known_bad else None,
                  "prompts": drafted_run.prompts_version},
    )
    write_candidates(run_dir, drafted_run.model, drafted_run.prompts_version, outcome.drafted, final=True)
    return outcome


def triage_stage(outcome: RunOutcome, settings: Settings, reporter: Reporter) -> RunOutcome:
    """The differential search for every surviving mutant not searched yet (sabotage.triage)."""
    reporter.stage("triage")
    clock = StageClock.of(outcome)
    with clock.measure("triage"):
        outcome = with_triage(outcome, settings.triage_examples, settings.triage_run_examples, settings.jobs)
    return replace(outcome, stage_seconds=clock.seconds, stage_cpu=clock.cpu)


# Feedback rounds (drafter/rounds.py) run these same stages on each round's new candidates.
ROUND_STAGES = Stages(ask=propose_with_cache, cache=reply_cache, render=render_stage, mutants=mutant_stage, keep=keep_stage,
                      soundness=soundness_stage, matrix=matrix_stage, triage=triage_stage)
