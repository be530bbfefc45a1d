"""The entries of a RunReport (targets, candidates, mutants) and the scores read off them: the types every report
module shares, below all of them."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from dataclasses import dataclass, field

REPORT_VERSION = 1


def by_target(entries) -> dict[str, list]:
    """Report entries (candidates or mutants) grouped by their target id, in report order."""
    grouped = defaultdict(list)
    for entry in entries:
        grouped[entry.target].append(entry)
    return grouped
# The stages a candidate reaches only after it held on the clean code: it faced the mutants of its target.
FACED_MUTANTS = ("sabotage", "kept")


@dataclass(frozen=True)
class TargetEntry:
    id: str
    fingerprint: str
    file: str
    line: int
    candidates: int
    kept: int
    mutants: int  # evaluated mutants: the denominator of the score (not_evaluated and invalid ones are not in it)
    killed: int
    note: str | None = None  # why the target has no accepted candidate
    carried_from: str | None = None  # the earlier run whose results a refresh carried forward (target unchanged)
    not_reached: int = 0  # evaluated, but no candidate's clean run executed a changed line (counted in `mutants`)
    not_evaluated: int = 0  # no sound candidate met them; outside the score
    no_difference_found: int = 0  # surviving, and triage found no input telling them apart (counted in `mutants`)


@dataclass(frozen=True)
class CandidateEntry:
    id: str
    target: str
    name: str | None
    kind: str | None
    status: str  # kept | rejected
    stage: str
    reason: str | None
    detail: str
    file: str | None  # relative to the run folder: kept/… for kept candidates, staged/… for other rendered ones
    kills: tuple[str, ...]
    assertion_kills: tuple[str, ...]
    counterexample: str | None  # Hypothesis's falsifying example when the clean code failed
    counterexample_shape: str | None  # what the candidate claims to catch
    rationale: str | None
    carried_from: str | None = None
    round: int = 1  # the feedback round whose reply proposed it
    # mutant id -> outcome (assertion | crash | timeout | survived | invalid) of every pair the kill matrix
    # evaluated; a mutant of the target missing here was never evaluated against this candidate
    outcomes: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class MutantEntry:
    id: str
    target: str
    operator: str
    description: str
    line: int
    status: str  # one of drafter.data.MUTANT_STATUSES
    killed_by: tuple[str, ...]  # kept candidates only
    diff: str
    fresh_process: str | None = None  # why it could not be switched in-process
    caught_in_round: int | None = None  # the first round whose kept candidates catch it
    # A survivor's differential search (drafter.data.Triage without its mutant id): status, and the distinguishing
    # call with both outcomes, or the examples tried; None for a mutant that is caught, invalid or not evaluated.
    triage: dict | None = None


@dataclass(frozen=True)
class RunReport:
    version: int
    run_id: str
    source: dict
    model: str
    settings: dict
    targets: tuple[TargetEntry, ...]
    candidates: tuple[CandidateEntry, ...]
    mutants: tuple[MutantEntry, ...]
    summary: dict
    warnings: tuple[str, ...] = field(default_factory=tuple)
    passed_over: tuple[dict, ...] = ()  # {"path", "reason"}: folders and modules of SRC not drafted, and why


def _entry(cls, row: dict, **extra):
    names = {f.name for f in dataclasses.fields(cls)}
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in row.items() if k in names}
    return cls(**{**values, **extra})


def overall_score(report: RunReport) -> float | None:
    """Killed (assertion, crash or repeated timeout) over valid mutants of every target; None without mutants."""
    total = sum(t.mutants for t in report.targets)
    return round(sum(t.killed for t in report.targets) / total, 3) if total else None


def score_without_no_difference(report: RunReport) -> float | None:
    """Killed over valid mutants of every target, leaving out those triage found no difference for."""
    total = sum(t.mutants - t.no_difference_found for t in report.targets)
    return round(sum(t.killed for t in report.targets) / total, 3) if total else None
