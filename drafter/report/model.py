"""The sabotage-survival report as data: one RunReport built from a finished run."""

from __future__ import annotations

import dataclasses
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from drafter.data import MUTANT_STATUSES, TRIAGE_STATUSES, RunOutcome, TokenUsage, to_jsonable
from drafter.errors import ConfigError
from drafter.jsonfile import inside, read_json
from drafter.report.rounds import caught_in_round, rounds_summary
from drafter.report.shape import report_shape
from drafter.runfolder import git_commit, run_id, tree_hash

from drafter.report.entries import REPORT_VERSION, CandidateEntry, MutantEntry, RunReport, TargetEntry, _entry


def load_report(run_dir: Path) -> RunReport:
    """The RunReport of a finished run, read back from its report.json (to re-render it in another format)."""
    path = Path(run_dir) / "report.json"
    data = read_json(path, report_shape(), hint="not the report.json of a finished run")
    _files_inside(data, Path(run_dir), f"{path}: candidate")
    try:
        return RunReport(
            **{k: data[k] for k in ("version", "run_id", "source", "model", "settings", "summary")},
            targets=tuple(_entry(TargetEntry, t) for t in data["targets"]),
            candidates=tuple(_entry(CandidateEntry, c) for c in data["candidates"]),
            mutants=tuple(_entry(MutantEntry, m) for m in data["mutants"]),
            warnings=tuple(data.get("warnings", ())),
            passed_over=tuple(data.get("passed_over", ())),
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"{path}: not the report.json of a finished run ({type(exc).__name__}: {exc})") from exc


def _files_inside(data: dict, run_dir: Path, what: str) -> None:
    """A candidate's file is read (the HTML view shows it) or copied (a refresh carries it forward): its name,
    taken from an untrusted report.json, must stay inside the run folder."""
    for c in data["candidates"]:
        if c.get("file"):
            inside(run_dir, c["file"], f"{what} {c['id']}'s file")


@dataclass(frozen=True)
class Carry:
    """Results of unchanged targets taken from an earlier complete run, as `drafter refresh` carries them."""

    baseline_dir: Path
    targets: tuple[TargetEntry, ...]
    candidates: tuple[CandidateEntry, ...]
    mutants: tuple[MutantEntry, ...]
    removed: tuple[str, ...] = ()  # targets of the baseline that SRC no longer has

    @property
    def baseline_id(self) -> str:
        return self.baseline_dir.name

    @classmethod
    def from_run(cls, baseline_dir: Path, target_ids: set[str], removed: tuple[str, ...] = ()) -> Carry:
        data = read_json(baseline_dir / "report.json", report_shape(), hint=f"baseline run {baseline_dir}")
        _files_inside(data, baseline_dir, f"baseline run {baseline_dir}: report.json candidate")
        try:
            origin = baseline_dir.name
            return cls(
                baseline_dir=baseline_dir,
                targets=tuple(_entry(TargetEntry, t, carried_from=t.get("carried_from") or origin)
                              for t in data["targets"] if t["id"] in target_ids),
                candidates=tuple(_entry(CandidateEntry, c, carried_from=c.get("carried_from") or origin)
                                 for c in data["candidates"] if c["target"] in target_ids),
                mutants=tuple(_entry(MutantEntry, m) for m in data["mutants"] if m["target"] in target_ids),
                removed=removed,
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"baseline run {baseline_dir}: cannot read its report.json ({exc})") from exc

    def copy_kept_files(self, run_dir: Path) -> None:
        for c in self.candidates:
            if c.status == "kept" and c.file and (self.baseline_dir / c.file).is_file():
                (run_dir / c.file).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(self.baseline_dir / c.file, run_dir / c.file)


def _total_usage(outcome: RunOutcome) -> dict:
    usages = [r.usage for r in outcome.draft.replies if r.usage]
    total = TokenUsage(
        sum(u.prompt_tokens for u in usages), sum(u.completion_tokens for u in usages), sum(u.total_tokens for u in usages)
    )
    return {**to_jsonable(total), "calls_with_usage": len(usages)}


def _mutant_status(mutant_id: str, kept_results, all_results, invalid: set[str]) -> str:
    """Kills count only by kept candidates; a mutant no candidate met is not_evaluated, one that every candidate
    considered (the kept ones, else all) left unexecuted is not_reached, never "survived"."""
    if mutant_id in invalid:
        return "invalid"
    if not all_results:
        return "not_evaluated"
    kills = {r.outcome for r in kept_results if r.killed}
    if kills - {"timeout"}:
        return "killed"
    if kills:
        return "timeout"
    considered = kept_results or all_results
    return "not_reached" if all(r.outcome == "not_reached" for r in considered) else "survived"


def told_apart_scores(targets) -> dict[str, float | None]:
    """Per target, the score over mutants not marked no_difference_found (carried and merged targets' entries)."""
    return {t.id: round(t.killed / (t.mutants - t.no_difference_found), 3) if t.mutants > t.no_difference_found
            else None for t in targets}


def triage_summary(mutants) -> dict:
    """Counts of the survivors' triage outcomes and the examples the searches that found nothing tried (the stage's
    time is in summary.seconds)."""
    rows = [m.triage for m in mutants if m.triage]
    counts = Counter(row["status"] for row in rows)
    return {**{status: counts.get(status, 0) for status in TRIAGE_STATUSES},
            "examples_no_difference": sum(max(row["examples"], 0) for row in rows
                                          if row["status"] == "no_difference_found")}


def _candidate_file(rendered, kept: bool) -> str | None:
    if rendered is None:
        return None
    return rendered.path.replace("staged/", "kept/", 1) if kept else rendered.path


def _raw_text(raw, key: str) -> str | None:
    """A text field of an item that did not parse, when it has one."""
    value = raw.get(key) if isinstance(raw, dict) else None
    return value if isinstance(value, str) else None


def build_report(outcome: RunOutcome, carry: Carry | None = None) -> RunReport:
    draft = outcome.draft
    matrix = outcome.matrix
    results_by_mutant: dict[str, list] = {}
    results_by_candidate: dict[str, list] = {}
    for result in matrix.results:
        results_by_mutant.setdefault(result.mutant_id, []).append(result)
        results_by_candidate.setdefault(result.candidate_id, []).append(result)
    invalid = set(matrix.invalid)
    kept_ids = {d.id for d in outcome.drafted if d.verdict.stage == "kept"}

    candidates = []
    for item in outcome.drafted:
        results = results_by_candidate.get(item.id, [])
        rendered = outcome.rendered.get(item.id)
        check = outcome.soundness.get(item.id)
        candidate = item.candidate
        candidates.append(
            CandidateEntry(
                id=item.id,
                target=item.target,
                name=candidate.name if candidate else _raw_text(item.raw, "name"),
                kind=candidate.kind if candidate else _raw_text(item.raw, "kind"),
                status="kept" if item.verdict.stage == "kept" else "rejected",
                stage=item.verdict.stage,
                reason=item.verdict.reason,
                detail=item.verdict.detail,
                file=_candidate_file(rendered, item.id in kept_ids),
                kills=tuple(sorted(r.mutant_id for r in results if r.killed)),
                assertion_kills=tuple(sorted(r.mutant_id for r in results if r.outcome == "assertion")),
                counterexample=check.counterexample if check and check.status != "sound" else None,
                counterexample_shape=candidate.counterexample if candidate else None,
                rationale=(candidate.rationale or None) if candidate else None,
                round=item.round,
                outcomes={r.mutant_id: r.outcome for r in sorted(results, key=lambda r: r.mutant_id)},
            )
        )

    round_of = {d.id: d.round for d in outcome.drafted}
    mutants = []
    for mutant in outcome.mutants:
        # A mutant counts as caught only by the oracle a human would promote: the kept candidates.
        met = results_by_mutant.get(mutant.id, [])
        results = [r for r in met if r.candidate_id in kept_ids]
        killers = sorted(r.candidate_id for r in results if r.killed)
        mutants.append(
            MutantEntry(
                id=mutant.id,
                target=mutant.target,
                operator=mutant.operator,
                description=mutant.description,
                line=mutant.line,
                status=_mutant_status(mutant.id, results, met, invalid),
                killed_by=tuple(sorted(r.candidate_id for r in results if r.killed)),
                diff=mutant.diff,
                fresh_process=matrix.fresh_process.get(mutant.id),
                caught_in_round=caught_in_round(killers, round_of) if mutant.id not in invalid else None,
            )
        )
        if mutants[-1].status in ("survived", "not_reached") and mutant.id in outcome.triage:
            row = to_jsonable(outcome.triage[mutant.id])
            row.pop("mutant_id")
            mutants[-1] = dataclasses.replace(mutants[-1], triage=row)

    targets = []
    score, score_told_apart = {}, {}
    for target in draft.extraction.targets:
        own_candidates = [c for c in candidates if c.target == target.id]
        own_mutants = [m for m in mutants if m.target == target.id and m.status not in ("invalid", "not_evaluated")]
        killed = sum(1 for m in own_mutants if m.status in ("killed", "timeout"))
        no_difference = sum(1 for m in own_mutants if (m.triage or {}).get("status") == "no_difference_found")
        targets.append(
            TargetEntry(
                id=target.id,
                fingerprint=target.fingerprint,
                file=target.file,
                line=target.line,
                candidates=len(own_candidates),
                kept=sum(1 for c in own_candidates if c.status == "kept"),
                mutants=len(own_mutants),
                killed=killed,
                note=draft.target_notes.get(target.id),
                not_reached=sum(1 for m in own_mutants if m.status == "not_reached"),
                not_evaluated=sum(1 for m in mutants if m.target == target.id and m.status == "not_evaluated"),
                no_difference_found=no_difference,
            )
        )
        score[target.id] = round(killed / len(own_mutants), 3) if own_mutants else None
        told_apart = len(own_mutants) - no_difference
        score_told_apart[target.id] = round(killed / told_apart, 3) if told_apart else None

    rounds = rounds_summary(outcome, candidates, mutants)  # fresh targets only: carried ones ran no round here
    target_notes = dict(draft.target_notes)
    if carry is not None:
        # Carried entries keep their verdicts; the summary below counts them like fresh ones.
        targets = sorted(targets + list(carry.targets), key=lambda t: t.id)
        candidates += carry.candidates
        mutants += carry.mutants
        target_notes.update({t.id: t.note for t in carry.targets if t.note})
        score.update({t.id: round(t.killed / t.mutants, 3) if t.mutants else None for t in carry.targets})
        score_told_apart.update(told_apart_scores(carry.targets))
    mutant_status = Counter(m.status for m in mutants)
    dropped_equivalent = sum(e for e, _ in outcome.dropped_mutants.values())
    dropped_duplicate = sum(d for _, d in outcome.dropped_mutants.values())
    summary = {
        "targets": len(targets),
        "targets_with_candidates": sum(1 for t in targets if t.id not in target_notes),
        "targets_without_candidates": dict(sorted(target_notes.items())),
        "carried": {"from": carry.baseline_id, "targets": len(carry.targets), "removed": list(carry.removed)} if carry else None,
        "candidates": len(candidates),
        "kept": sum(1 for c in candidates if c.status == "kept"),
        "rejected": sum(1 for c in candidates if c.status == "rejected"),
        "by_stage": dict(sorted(Counter(c.stage for c in candidates).items())),
        "by_reason": dict(sorted(Counter(f"{c.stage}:{c.reason}" for c in candidates if c.reason).items())),
        "mutants": {
            "total": len(mutants),
            **{status: mutant_status.get(status, 0) for status in MUTANT_STATUSES},
            "dropped_equivalent": dropped_equivalent,
            "dropped_duplicate": dropped_duplicate,
            "fresh_process": len(matrix.fresh_process),
        },
        "mutation_score": score,
        # beside it: the same over mutants not marked no_difference_found (likely equivalent, never proven)
        "mutation_score_without_no_difference": score_told_apart,
        "triage": triage_summary(mutants),
        "matrix": {
            "evaluations": sum(1 for r in matrix.results if r.outcome != "not_reached"),  # pairs that ran
            "not_reached_pairs": sum(1 for r in matrix.results if r.outcome == "not_reached"),  # decided unrun
            "seconds": round(matrix.seconds, 3),
            "test_seconds": round(matrix.test_seconds, 3),
            "timeout_seconds": round(matrix.timeout_seconds, 3),  # CPU s of runs over budget, within test_seconds
            "notes": list(matrix.notes),
        },
        "seconds": outcome.stage_seconds,  # wall, per stage
        "cpu_seconds": outcome.stage_cpu,  # user + system of drafter and every process it waited for, per stage
        "tokens": _total_usage(outcome),
        "rounds": rounds,
    }
    return RunReport(
        version=REPORT_VERSION,
        run_id=run_id(draft.run_dir),
        source={"path": str(draft.src), "git_commit": git_commit(draft.src), "tree_hash": tree_hash(draft.src)},
        model=draft.model,
        settings=outcome.settings,
        targets=tuple(targets),
        candidates=tuple(candidates),
        mutants=tuple(mutants),
        summary=summary,
        warnings=outcome.warnings,
        passed_over=tuple({"path": e.file, "reason": e.reason} for e in draft.extraction.passed_over),
    )
