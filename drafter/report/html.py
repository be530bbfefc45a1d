"""report.html: one self-contained file (no network) rendered with a Jinja2 template.

It leads with the score and the targets that need a reviewer; then the ecosystem's viewer (the vendored
mutation-testing-elements bundle, inlined, fed the mutation-testing-report-schema JSON) shows the source with
every mutant, a file tree and status filters; then drafter's own part per target: candidates kept and rejected
with reasons and counterexamples, kills by assertion, crash or timeout, rounds, the kill matrix. Targets with
nothing to show share one line.
"""

from __future__ import annotations

import functools
import json
from collections import Counter, defaultdict
from pathlib import Path

import jinja2
from markupsafe import Markup

from drafter.report.entries import FACED_MUTANTS, CandidateEntry, RunReport, by_target, overall_score, score_without_no_difference
from drafter.report.mutation_testing import build_mutation_testing

VIEWER = Path(__file__).parent / "vendor" / "mutation-test-elements.js"

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


@functools.lru_cache(maxsize=1)
def _viewer() -> Markup:
    script = VIEWER.read_text(encoding="utf-8")
    if "</script" in script.lower():  # it is inlined in a <script> element
        raise ValueError(f"{VIEWER}: cannot be inlined (it contains </script)")
    return Markup(script)


def _json_for_script(data) -> Markup:
    """JSON safe inside a <script> element: no `<` can close it or open a comment."""
    return Markup(json.dumps(data, sort_keys=False).replace("<", "\\u003c"))


def _kill_kinds(candidate: CandidateEntry) -> dict[str, int]:
    kinds = Counter(candidate.outcomes.values())
    if not candidate.outcomes:  # a report.json written before outcomes were recorded
        kinds = Counter({"assertion": len(candidate.assertion_kills),
                         "crash": len(candidate.kills) - len(candidate.assertion_kills)})
    return {k: kinds.get(k, 0) for k in ("assertion", "crash", "timeout", "survived", "not_reached")}


def _needs_reviewer(t: dict) -> bool:
    """Kept files wait for a review before promotion; holes wait for a decision (a new property or equivalent)."""
    return bool(t["kept"] or t["survivors"] or t["not_reached"])


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
        own = candidates_by_target[t.id]
        targets.append({"entry": t, "faced": faced, "rows": rows, "survivors": survivors, "index": len(targets) + 1,
                        "not_reached": [r for r in rows if r["mutant"].status == "not_reached"] if faced else [],
                        "kept": [c for c in own if c.status == "kept"],
                        "rejected": [c for c in own if c.status == "rejected"],
                        "kinds": {c.id: _kill_kinds(c) for c in own},
                        "score": t.killed / t.mutants if t.mutants else None})
    rejections = defaultdict(list)
    for c in report.candidates:
        if c.status == "rejected":
            rejections[(c.stage, c.reason or "")].append(c)
    unowned = [m for m in report.mutants if m.target not in {t.id for t in report.targets}]
    review = sorted((t for t in targets if _needs_reviewer(t)),
                    key=lambda t: (t["score"] is None, t["score"] if t["score"] is not None else 0, t["entry"].id))
    mutation_testing, left_out = build_mutation_testing(report, run_dir)
    return {
        "review": review,
        "shown": [t for t in targets if t["entry"].candidates],
        "quiet": [t for t in targets if not t["entry"].candidates],
        "viewer": _viewer(),
        "mutation_testing": _json_for_script(mutation_testing),
        "left_out": left_out,
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
