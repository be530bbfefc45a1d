"""`drafter`: a thin Typer layer over drafter.pipeline. Parses options, calls, prints."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from drafter import __version__, pipeline
from drafter.config import load_settings
from drafter.data import to_jsonable
from drafter.errors import DrafterError
from drafter.extract import extract as extract_targets
from drafter.report.terminal import draft_table, print_run_summary, targets_line

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()
errors = Console(stderr=True)


def _print_version(value: bool) -> None:
    if value:
        console.print(f"drafter {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Draft Hypothesis properties for a source folder in a lane the patch cannot touch, and keep only those
    that hold on the clean code and catch sabotage."""

SrcArg = Annotated[Path, typer.Argument(metavar="SRC", help="Folder of Python modules/packages to draft for. Read only: never written to.")]
CorpusOpt = Annotated[
    Optional[list[Path]],
    typer.Option("--corpus", help="Corpus folder whose file NAMES go into the prompt (contents are never read). Repeatable."),
]
SelectOpt = Annotated[
    Optional[list[str]], typer.Option("--select", help="Only targets whose id matches this glob, e.g. 'shop.billing:*'. Repeatable.")
]
ModelOpt = Annotated[
    Optional[str],
    typer.Option(
        "--model",
        help="heuristic (offline, default) | replay:PATH (recorded replies) | openai:MODEL (any OpenAI-compatible server).",
    ),
]
WorkspaceOpt = Annotated[Optional[Path], typer.Option("--workspace", help="Staging area for run folders (default ./workspace).")]
PromptsOpt = Annotated[Optional[Path], typer.Option("--prompts", help="Folder with your own system.j2 and target.j2 templates.")]
BaseUrlOpt = Annotated[Optional[str], typer.Option("--base-url", help="OpenAI-compatible server URL (else $OPENAI_BASE_URL).")]
ConcurrencyOpt = Annotated[Optional[int], typer.Option("--concurrency", min=1, help="Model calls in flight at once.")]
TemperatureOpt = Annotated[Optional[float], typer.Option("--temperature", min=0.0, help="Sampling temperature for openai: models.")]
TimeoutOpt = Annotated[Optional[float], typer.Option("--timeout", min=0.1, help="Seconds per model call.")]
ChangedSinceOpt = Annotated[
    Optional[Path],
    typer.Option("--changed-since", help="An earlier run folder: draft only targets whose signature or docstring changed since."),
]
RetriesOpt = Annotated[Optional[int], typer.Option("--retries", min=0, help="Retries per model call on 429, 5xx and timeouts.")]


class RichReporter:
    """Progress bars per stage on the terminal."""

    def __init__(self, progress: Progress):
        self.progress = progress
        self.task = None

    def stage(self, name: str, total: int | None = None) -> None:
        self.close()
        self.task = self.progress.add_task(name, total=total)

    def advance(self, amount: int = 1, total: int | None = None) -> None:
        if self.task is not None:
            self.progress.update(self.task, advance=amount, **({"total": total} if total is not None else {}))

    def close(self) -> None:
        """Mark the current stage complete, whatever its count said."""
        if self.task is not None:
            task = next(t for t in self.progress.tasks if t.id == self.task)
            total = task.total if task.total is not None else max(task.completed, 1)
            self.progress.update(self.task, total=total, completed=total)


def progress_bar() -> Progress:
    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description:<11}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=False,
    )


def fail(exc: DrafterError) -> None:
    errors.print(f"[bold red]error:[/bold red] {exc}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


@app.command()
def extract(
    src: SrcArg,
    corpus: CorpusOpt = None,
    select: SelectOpt = None,
) -> None:
    """Print the targets of SRC as JSON: id, file, line, parameters, return annotation, docstring, fingerprint."""
    try:
        extraction = extract_targets(pipeline.resolve_src(src), tuple(corpus or ()), tuple(select or ()))
    except DrafterError as exc:
        fail(exc)
    for error in extraction.errors:
        errors.print(f"[yellow]skipped[/yellow] {error.file}: {error.reason}", highlight=False)
    sys.stdout.write(json.dumps(to_jsonable(extraction), indent=2) + "\n")


def _execute(stage: Callable, src: Path, **options):
    """Settings from files and options, the stage with progress bars, user errors as exit 2."""
    try:
        settings = load_settings(**options)
        with progress_bar() as progress:
            reporter = RichReporter(progress)
            result = stage(src, settings, reporter)
            reporter.close()
    except DrafterError as exc:
        fail(exc)
    for warning in result.warnings:
        errors.print(f"[yellow]warning:[/yellow] {warning}", highlight=False, soft_wrap=True)
    return result


@app.command()
def draft(
    src: SrcArg,
    model: ModelOpt = None,
    workspace: WorkspaceOpt = None,
    corpus: CorpusOpt = None,
    select: SelectOpt = None,
    prompts: PromptsOpt = None,
    base_url: BaseUrlOpt = None,
    concurrency: ConcurrencyOpt = None,
    temperature: TemperatureOpt = None,
    timeout: TimeoutOpt = None,
    retries: RetriesOpt = None,
    changed_since: ChangedSinceOpt = None,
) -> None:
    """Front half: extract → prompt → model → parse → lint. Writes targets.json, prompts/, replies/, candidates.json."""
    outcome = _execute(
        pipeline.draft, src, model=model, workspace=workspace, corpus=tuple(corpus or ()), select=tuple(select or ()),
        prompts=prompts, base_url=base_url, concurrency=concurrency, temperature=temperature, timeout=timeout,
        retries=retries, changed_since=changed_since,
    )
    console.print(draft_table(outcome.extraction, outcome.drafted, outcome.target_notes))
    console.print(targets_line(len(outcome.extraction.targets), outcome.target_notes))
    console.print(f"run folder: {outcome.run_dir}")


@app.command()
def run(
    src: SrcArg,
    model: ModelOpt = None,
    workspace: WorkspaceOpt = None,
    corpus: CorpusOpt = None,
    select: SelectOpt = None,
    known_bad: Annotated[
        Optional[Path], typer.Option("--known-bad", help="Folder of unified diffs you already know are wrong; each is a mutant.")
    ] = None,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", min=1, help="Worker processes (default: CPU count).")] = None,
    max_examples: Annotated[Optional[int], typer.Option("--max-examples", min=1, help="Hypothesis examples per run.")] = None,
    seeds: Annotated[
        Optional[int], typer.Option("--seeds", min=1, help="Clean runs with distinct seeds before a candidate counts as sound.")
    ] = None,
    prompts: PromptsOpt = None,
    base_url: BaseUrlOpt = None,
    concurrency: ConcurrencyOpt = None,
    temperature: TemperatureOpt = None,
    timeout: TimeoutOpt = None,
    retries: RetriesOpt = None,
    changed_since: ChangedSinceOpt = None,
) -> None:
    """All stages: draft, render, soundness on the clean code, sabotage, keep, report. Exit 0 whatever it keeps."""
    result = _execute(
        pipeline.run, src, model=model, workspace=workspace, corpus=tuple(corpus or ()), select=tuple(select or ()),
        prompts=prompts, known_bad=known_bad, jobs=jobs, max_examples=max_examples, seeds=seeds, base_url=base_url,
        concurrency=concurrency, temperature=temperature, timeout=timeout, retries=retries, changed_since=changed_since,
    )
    print_run_summary(console, result.report, result.report_paths)
    console.print(f"kept files: {result.run_dir / 'kept'} (a human copies reviewed ones into oracle/)")


if __name__ == "__main__":
    app()
