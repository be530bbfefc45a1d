"""The short rich summary printed at the end of every run.

In a log (not a terminal) tables print at the width they need, one line per target with its id whole, instead of
folding ids over several lines of an 80-column table; a terminal keeps its own width."""

from __future__ import annotations

from collections import Counter

from pathlib import Path

from rich.console import Console
from rich.measure import Measurement
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from drafter.data import Drafted, Extraction


CACHE_NOTES = ("reply cache:", "mutant cache:")  # run warnings that only report cache use


def print_table(console: Console, table: Table) -> None:
    """A table at its natural width in a log, so no id wraps; at the terminal's width on a terminal."""
    if console.is_terminal:
        console.print(table)
        return
    width, console_width = Measurement.get(console, console.options.update(width=10_000), table).maximum, console.width
    console.width = max(width, console_width)  # Console.print(width=) never goes beyond the console's own
    try:
        console.print(table, crop=False)
    finally:
        console.width = console_width


def stages_table(stages: dict[str, dict[str, float]]) -> Table:
    """Wall and CPU seconds per stage (CPU: drafter's and every process it waited for: workers, their children)."""
    table = Table(title="Time per stage")
    table.add_column("stage")
    table.add_column("wall s", justify="right")
    table.add_column("CPU s", justify="right")
    for name, times in stages.items():
        table.add_row(name, f"{times['seconds']:.2f}", f"{times['cpu_seconds']:.2f}")
    table.add_row("total", *(f"{sum(t[key] for t in stages.values()):.2f}" for key in ("seconds", "cpu_seconds")),
                  style="bold")
    return table


def cache_line(workspace: Path, enabled: bool) -> str:
    """One line at the start of a run: where the caches are and how much they hold."""
    if not enabled:
        return "cache: off (--no-cache): every reply is asked for and every mutant generated again"
    root = Path(workspace) / "cache"
    counts = {name: sum(1 for p in (root / name).rglob("*") if p.is_file()) if (root / name).is_dir() else 0
              for name in ("replies", "mutants")}
    return (f"cache: on, {root} ({counts['replies']} stored replies, {counts['mutants']} stored mutant files); "
            "--no-cache asks again")


def draft_table(extraction: Extraction, drafted: tuple[Drafted, ...], target_notes: dict[str, str]) -> Table:
    """Per target: candidates that passed lint and those rejected, and why a target got none."""
    table = Table(title="Drafted candidates", show_lines=False)
    table.add_column("target", overflow="fold")  # a narrow terminal wraps an id, never cuts it; a log never wraps
    table.add_column("passed lint", justify="right")
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


def targets_line(total: int, target_notes: dict[str, str], kept: int | None = None) -> str:
    """How many targets have a candidate that passed lint (and, after a whole run, how many have a kept one)."""
    line = f"{total - len(target_notes)} of {total} targets have a candidate that passed lint; {len(target_notes)} have none"
    return line + (f"; {kept} have a kept candidate." if kept is not None else ".")


def run_table(report) -> Table:
    table = Table(title=f"Run {report.run_id}")
    table.add_column("target", overflow="fold")  # a narrow terminal wraps an id, never cuts it; a log never wraps
    table.add_column("kept", justify="right", style="green")
    table.add_column("rejected", justify="right")
    table.add_column("mutants killed", justify="right")
    table.add_column("survived", justify="right", style="yellow")
    table.add_column("not reached", justify="right", style="yellow")
    table.add_column("not evaluated", justify="right", style="dim")
    survived = Counter(m.target for m in report.mutants if m.status == "survived")
    for t in report.targets:
        table.add_row(
            t.id,
            str(t.kept),
            str(t.candidates - t.kept),
            f"{t.killed}/{t.mutants}" if t.mutants else "-",
            str(survived.get(t.id, 0)),
            str(t.not_reached),
            str(t.not_evaluated),
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
    print_table(console, run_table(report))
    if report.summary["by_reason"]:
        print_table(console, reasons_table(report))
    print_survivors(console, report)
    s = report.summary
    console.print(targets_line(s["targets"], s["targets_without_candidates"], sum(1 for t in report.targets if t.kept)),
                  soft_wrap=True)
    console.print(
        f"{s['kept']} kept, {s['rejected']} rejected; mutants {s['mutants']['killed']} killed, "
        f"{s['mutants']['timeout']} killed by timeout, {s['mutants']['survived']} survived, "
        f"{s['mutants']['not_reached']} not reached, {s['mutants']['not_evaluated']} not evaluated (no sound "
        f"candidate; not scored), {s['mutants']['invalid']} invalid; kill matrix {s['matrix']['evaluations']} "
        f"evaluations in {s['matrix']['seconds']:.1f} s ({s['matrix']['not_reached_pairs']} pairs not reached, not run)",
        soft_wrap=True,
    )
    rounds = s.get("rounds") or []
    if len(rounds) > 1:
        console.print("mutants caught by round: " + " → ".join(
            f"round {r['round']} {r['killed']}/{r['mutants']} (+{r['newly_caught']}, {len(r['asked'])} asked)" for r in rounds),
            soft_wrap=True)
    for path in report_paths:
        console.print(f"report: {path}", soft_wrap=True)
