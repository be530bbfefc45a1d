"""The short rich summary printed at the end of every run."""

from __future__ import annotations

from collections import Counter

from rich.console import Console
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from drafter.data import Drafted, Extraction


def draft_table(extraction: Extraction, drafted: tuple[Drafted, ...], target_notes: dict[str, str]) -> Table:
    """Per target: accepted and rejected candidates, and why a target got none."""
    table = Table(title="Drafted candidates", show_lines=False)
    table.add_column("target", overflow="fold")  # a narrow log wraps an id, never cuts it
    table.add_column("accepted", justify="right")
    table.add_column("rejected", justify="right")
    table.add_column("reasons / note")
    for target in extraction.targets:
        own = [d for d in drafted if d.target == target.id]
        accepted = sum(1 for d in own if d.verdict.accepted)
        reasons = Counter(d.verdict.reason for d in own if not d.verdict.accepted)
        text = ", ".join(f"{r} ×{n}" for r, n in sorted(reasons.items()))
        if target.id in target_notes and not reasons:
            text = target_notes[target.id]
        table.add_row(target.id, str(accepted), str(len(own) - accepted), text)
    return table


def targets_line(total: int, target_notes: dict[str, str]) -> str:
    return f"{total - len(target_notes)} of {total} targets got at least one accepted candidate; {len(target_notes)} got none."


def run_table(report) -> Table:
    table = Table(title=f"Run {report.run_id}")
    table.add_column("target", overflow="fold")  # a narrow log wraps an id, never cuts it
    table.add_column("kept", justify="right", style="green")
    table.add_column("rejected", justify="right")
    table.add_column("mutants killed", justify="right")
    table.add_column("survived", justify="right", style="yellow")
    survived = Counter(m.target for m in report.mutants if m.status == "survived")
    for t in report.targets:
        table.add_row(
            t.id,
            str(t.kept),
            str(t.candidates - t.kept),
            f"{t.killed}/{t.mutants}" if t.mutants else "-",
            str(survived.get(t.id, 0)),
        )
    return table


def reasons_table(report) -> Table:
    table = Table(title="Rejections by reason")
    table.add_column("stage")
    table.add_column("reason")
    table.add_column("count", justify="right")
    for key, count in report.summary["by_reason"].items():
        stage, reason = key.split(":", 1)
        table.add_row(stage, reason, str(count))
    return table


def print_survivors(console: Console, report, shown: int = 3) -> None:
    """A few surviving mutants with diffs, one per target, oracles with kept candidates first: their holes matter most."""
    survivors = [m for m in report.mutants if m.status == "survived"]
    if not survivors:
        return
    kept = {t.id: t.kept for t in report.targets}
    first_per_target = {}
    for mutant in sorted(survivors, key=lambda m: (-kept.get(m.target, 0), m.target)):
        first_per_target.setdefault(mutant.target, mutant)
    console.print(Text.assemble(
        (f"{len(survivors)} surviving mutants", "yellow"), ": holes in the oracle, or equivalent mutants. "
        f"The first {min(shown, len(first_per_target))}; all of them are in report.html."
    ))
    for mutant in list(first_per_target.values())[:shown]:
        console.print(Text.assemble((mutant.id, "bold"), f": {mutant.description}"))
        console.print(Syntax(mutant.diff.rstrip(), "diff", theme="ansi_dark", background_color="default"))


def print_run_summary(console: Console, report, report_paths) -> None:
    console.print(run_table(report))
    if report.summary["by_reason"]:
        console.print(reasons_table(report))
    print_survivors(console, report)
    s = report.summary
    console.print(targets_line(s["targets"], s["targets_without_candidates"]))
    console.print(
        f"{s['kept']} kept, {s['rejected']} rejected; mutants {s['mutants']['killed']} killed, "
        f"{s['mutants']['timeout']} killed by timeout, {s['mutants']['survived']} survived, "
        f"{s['mutants']['invalid']} invalid; kill matrix {s['matrix']['evaluations']} evaluations "
        f"in {s['matrix']['seconds']:.1f} s"
    )
    for path in report_paths:
        console.print(f"report: {path}")
