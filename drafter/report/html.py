"""report.html: one self-contained file (no network) rendered with a Jinja2 template.

Summary, kept candidates with their code, rejections by reason, the kill matrix per target and surviving mutants
as diffs, long parts collapsed with <details>.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from pathlib import Path

import jinja2

from drafter.report.model import (FACED_MUTANTS, CandidateEntry, RunReport, by_target, overall_score,
                                  score_without_no_difference)

CELL = {"assertion": ("A", "kill by its assertion"), "crash": ("C", "kill by a crash"),
        "timeout": ("T", "kill by a repeated timeout"), "survived": ("·", "survived"),
        "not_reached": ("○", "not reached: the candidate's clean run never executes the changed lines"),
        "invalid": ("!", "invalid mutant"), None: ("–", "not evaluated")}


@functools.lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.PackageLoader("drafter.report", "templates"), autoescape=True,
                              undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def _outcome(candidate: CandidateEntry, mutant_id: str) -> str | None:
    """What the kill matrix said for one pair; None when the pair was never evaluated (or not recorded)."""
    if candidate.outcomes:
        return candidate.outcomes.get(mutant_id)
    if mutant_id in candidate.assertion_kills:  # a report.json written before outcomes were recorded
        return "assertion"
    return "crash" if mutant_id in candidate.kills else None


def _diff_lines(diff: str) -> list[tuple[str, str]]:
    kinds = []
    for line in diff.rstrip("\n").splitlines():
        kind = "hunk" if line.startswith("@@") else "meta" if line.startswith(("---", "+++")) else \
            "add" if line.startswith("+") else "del" if line.startswith("-") else ""
        kinds.append((kind, line))
    return kinds


def _code(run_dir: Path | None, candidate: CandidateEntry) -> str:
    if run_dir is None or not candidate.file or not (run_dir / candidate.file).is_file():
        return ""
    try:
        return (run_dir / candidate.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return f"# cannot read {candidate.file}: {exc}"


def view(report: RunReport, run_dir: Path | None) -> dict:
    """The data the template shows, grouped and ordered (deterministic for the same report)."""
    candidates_by_target, mutants_by_target = by_target(report.candidates), by_target(report.mutants)
    targets = []
    for t in report.targets:
        faced = [c for c in candidates_by_target[t.id] if c.stage in FACED_MUTANTS]
        rows = []
        for m in mutants_by_target[t.id]:
            cells = [(*CELL[_outcome(c, m.id) if m.status != "invalid" else "invalid"], _outcome(c, m.id) or "none")
                     for c in faced]
            rows.append({"mutant": m, "cells": cells, "diff": _diff_lines(m.diff)})
        survivors = [r for r in rows if r["mutant"].status == "survived"] if faced else []
        targets.append({"entry": t, "faced": faced, "rows": rows, "survivors": survivors,
                        "kept": [c for c in candidates_by_target[t.id] if c.status == "kept"]})
    rejections = defaultdict(list)
    for c in report.candidates:
        if c.status == "rejected":
            rejections[(c.stage, c.reason or "")].append(c)
    unowned = [m for m in report.mutants if m.target not in {t.id for t in report.targets}]
    return {
        "report": report,
        "s": report.summary,
        "score": overall_score(report),
        "score_told_apart": score_without_no_difference(report),
        "targets": targets,
        "kept_code": {c.id: _code(run_dir, c) for c in report.candidates if c.status == "kept"},
        "rejections": sorted(rejections.items()),
        "unowned": [{"mutant": m, "diff": _diff_lines(m.diff)} for m in unowned],
        "legend": [v for k, v in CELL.items()],
    }


def render_html(report: RunReport, run_dir: Path | None = None) -> str:
    return _environment().get_template("report.html.j2").render(**view(report, run_dir))
