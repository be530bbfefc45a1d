"""The feedback rounds in the report: per round what was asked, proposed, kept and newly caught, and the score."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from drafter.data import RoundRecord

if TYPE_CHECKING:
    from drafter.data import RunOutcome
    from drafter.report.entries import CandidateEntry, MutantEntry, RunReport


def caught_in_round(killed_by: Sequence[str], round_of: dict[str, int]) -> int | None:
    """The first round whose kept candidates catch a mutant; None when none does."""
    return min((round_of.get(c, 1) for c in killed_by), default=None)


def rounds_summary(outcome: RunOutcome, candidates: Sequence[CandidateEntry], mutants: Sequence[MutantEntry]) -> list[dict]:
    """One row per round that ran. A target's score after round k counts the mutants caught by candidates kept
    in rounds 1..k over all its mutants (those generated later too), so the last row is the report's score."""
    targets = [t.id for t in outcome.draft.extraction.targets]
    records = outcome.rounds or (RoundRecord(1, tuple(targets)),)
    counted = [m for m in mutants if m.status != "invalid"]
    rows = []
    for record in records:
        k = record.round
        usages = [r.usage for r in outcome.draft.replies if r.round == k and r.usage and r.target in record.asked]
        by_target = {}
        for target in targets:
            own = [m for m in counted if m.target == target]
            caught = sum(1 for m in own if m.caught_in_round is not None and m.caught_in_round <= k)
            by_target[target] = {"killed": caught, "mutants": len(own), "score": round(caught / len(own), 3)} if own else None
        killed = sum(1 for m in counted if m.caught_in_round is not None and m.caught_in_round <= k)
        rows.append({
            "round": k,
            "asked": list(record.asked),
            "not_asked": list(record.not_asked),
            "tokens": sum(u.total_tokens for u in usages),
            "candidates": sum(1 for c in candidates if c.round == k),
            "kept": sum(1 for c in candidates if c.round == k and c.status == "kept"),
            "newly_caught": sum(1 for m in counted if m.caught_in_round == k),
            "killed": killed,
            "mutants": len(counted),
            "mutation_score": round(killed / len(counted), 3) if counted else None,
            "by_target": by_target,
            "stopped": dict(sorted(record.stopped.items())),
        })
    return rows


def _fraction(entry: dict | None) -> str:
    return f"{entry['killed']}/{entry['mutants']}" if entry else "-"


def rounds_markdown(report: RunReport) -> list[str]:
    """The "Rounds" section of report.md; nothing for a one-round run."""
    rows = report.summary.get("rounds") or []
    if (report.settings.get("rounds") or 1) <= 1 and len(rows) <= 1:
        return []
    lines = ["## Rounds", "",
             "| round | targets asked | not asked (budget) | candidates | kept | mutants newly caught | caught so far | tokens |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        lines.append(f"| {row['round']} | {len(row['asked'])} | {len(row['not_asked'])} | {row['candidates']} | "
                     f"{row['kept']} | {row['newly_caught']} | {row['killed']}/{row['mutants']} | {row['tokens']} |")
    lines += ["", "Mutation score by round (caught by candidates kept up to that round):", "",
              "| target | " + " | ".join(f"after round {row['round']}" for row in rows) + " |",
              "|---|" + "---:|" * len(rows)]
    for target in rows[0]["by_target"]:
        if any(row["by_target"].get(target) for row in rows):
            lines.append(f"| `{target}` | " + " | ".join(_fraction(row["by_target"].get(target)) for row in rows) + " |")
    stops = [(row["round"], target, why) for row in rows for target, why in row["stopped"].items()]
    if stops:
        lines += ["", "Why targets stopped:", ""]
        lines += [f"- after round {k}: `{target}`: {why}" for k, target, why in stops]
    return lines + [""]


def score_by_round(report: RunReport, target: str) -> str:
    """`3/10 → 7/10` for one target, or "" for a one-round run."""
    rows = report.summary.get("rounds") or []
    if len(rows) <= 1:
        return ""
    return " → ".join(_fraction(row["by_target"].get(target)) for row in rows)
