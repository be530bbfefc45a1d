"""`drafter`: a thin Typer layer over drafter.pipeline. Parses options, calls, prints."""

from __future__ import annotations

import json
import sys
import time
from contextlib import nullcontext
from functools import partial
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.text import Text
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)

from drafter import __version__, pipeline
from drafter.config import Settings, load_settings
from drafter.data import to_jsonable
from drafter.errors import DrafterError, WorkspaceError
from drafter.extract import extract as extract_targets
from drafter.stageclock import recorded_stages
from drafter.report.terminal import (CACHE_NOTES, cache_line, draft_table, print_run_summary, print_table, stages_table,
                                     targets_line)

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
# User data (paths, model names, exception texts) prints as written: no markup, emoji or highlighting.
console = Console(markup=False, emoji=False, highlight=False)
errors = Console(stderr=True, markup=False, emoji=False, highlight=False)


def labelled(label: str, style: str, text: str) -> Text:
    return Text.assemble((label, style), " ", text)


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

DEFAULTS = Settings()  # built-in defaults; [tool.drafter] or drafter.toml may change them, options win

SrcArg = Annotated[Path, typer.Argument(metavar="SRC", help="Folder of Python modules/packages to draft for. Read only: never written to.")]
CorpusOpt = Annotated[
    Optional[list[Path]],
    typer.Option("--corpus", help="Corpus folder whose file NAMES go into the prompt (contents are never read). Repeatable. Default: none."),
]
SelectOpt = Annotated[
    Optional[list[str]], typer.Option("--select", help="Only targets whose id matches this glob, e.g. 'shop.billing:*'. Repeatable. Default: every target.")
]
IncludePrivateOpt = Annotated[
    Optional[bool], typer.Option("--include-private", help="Also draft what private modules (_x.py, _impl/) define and no public module re-exports, and private names. Default: the public API only.")
]
ModelOpt = Annotated[
    Optional[str],
    typer.Option(
        "--model",
        help="heuristic (offline) | replay:PATH (recorded replies) | openai:MODEL (any OpenAI-compatible server). "
        f"Default: {DEFAULTS.model}.",
    ),
]
WorkspaceOpt = Annotated[Optional[Path], typer.Option("--workspace", help=f"Staging area for run folders. Default: ./{DEFAULTS.workspace}.")]
PromptsOpt = Annotated[Optional[Path], typer.Option("--prompts", help="Folder with your own system.j2 and target.j2 templates. Default: the bundled ones.")]
BaseUrlOpt = Annotated[Optional[str], typer.Option("--base-url", help="OpenAI-compatible server URL. Default: $OPENAI_BASE_URL, else the openai client's.")]
ConcurrencyOpt = Annotated[Optional[int], typer.Option("--concurrency", min=1, help=f"Model calls in flight at once. Default: {DEFAULTS.concurrency}.")]
TemperatureOpt = Annotated[Optional[float], typer.Option("--temperature", min=0.0, help=f"Sampling temperature for openai: models. Default: {DEFAULTS.temperature}.")]
TimeoutOpt = Annotated[Optional[float], typer.Option("--timeout", min=0.1, help=f"Seconds per model call. Default: {DEFAULTS.timeout:g}.")]
ChangedSinceOpt = Annotated[
    Optional[Path],
    typer.Option("--changed-since", help="An earlier run folder: draft only targets whose signature or docstring changed since. Default: none "
         "(draft every target)."),
]
RetriesOpt = Annotated[Optional[int], typer.Option("--retries", min=0, help=f"Retries per model call on 429, 5xx and timeouts. Default: {DEFAULTS.retries}.")]
NoCacheOpt = Annotated[
    bool, typer.Option("--no-cache", help="Ask the model again, make mutants and run soundness checks and kill matrices again even "
                              "when workspace/cache/ holds them. Default: off (cached replies, mutants and results are reused).")
]
RoundsOpt = Annotated[
    Optional[int],
    typer.Option("--rounds", min=1, max=20, help="Feedback rounds: after each, targets with surviving mutants or "
                 f"rejected candidates are asked again with that evidence. Default: {DEFAULTS.rounds}."),
]
MaxCallsOpt = Annotated[
    Optional[int], typer.Option("--max-calls", min=1, help="Cap on model calls over the whole run (every round). Default: no cap.")
]
MaxExamplesOpt = Annotated[
    Optional[int], typer.Option("--max-examples", min=1, help=f"Hypothesis examples per run. Default: {DEFAULTS.max_examples}.")
]
SeedsOpt = Annotated[
    Optional[int], typer.Option("--seeds", min=1, help=f"Clean runs with distinct seeds before a candidate counts as sound. Default: {DEFAULTS.seeds}.")
]
BudgetOpt = Annotated[Optional[float], typer.Option("--budget", min=0.1, help=(
    "CPU seconds a candidate's first clean run may take (the cap); its other seeds get 10x its own clean CPU time, "
    "at least 2 s, at most the cap; its kill runs 10x, at least 0.5 s; a sleep is cut off only by a wall-clock "
    f"backstop. Default: {DEFAULTS.budget:g}."))]
MaxTokensOpt = Annotated[
    Optional[int],
    typer.Option("--max-tokens", min=1, help="Cap on model tokens (prompt + completion) over the whole run. Default: no cap."),
]
FailUnderKeptOpt = Annotated[
    Optional[int], typer.Option("--fail-under-kept", min=0, help="Exit 3 when fewer than N candidates are kept (for CI jobs). Default: off.")
]
FailUnderScoreOpt = Annotated[
    Optional[float], typer.Option("--fail-under-score", min=0.0, max=1.0,
                                  help="Exit 3 when the mutation score (killed over valid mutants, 0 to 1) is below X, "
                                       "or when no mutant was evaluated. Default: off.")
]


ShardOpt = Annotated[
    Optional[str], typer.Option("--shard", metavar="K/N", help="Run only shard K of N (1-based): a deterministic, "
                                "cost-balanced part of the targets; join the N runs with `drafter merge`. Default: all.")
]


def _shard(text: str | None):
    from drafter.shard import parse_shard

    if text is None:
        return None
    try:
        return parse_shard(text)
    except DrafterError as exc:
        fail(exc)


class PlainReporter:
    """Progress as plain lines (stage, done/total, elapsed) for logs: at most one line per `interval` seconds."""

    def __init__(self, out=None, interval: float = 10.0, clock: Callable[[], float] = time.monotonic):
        self.out = out or sys.stderr
        self.interval = interval
        self.clock = clock
        self.started = clock()
        self.name, self.done, self.total, self.last, self.note = "", 0, None, 0.0, ""
        self.first_done: tuple[float, int] | None = None

    def _line(self) -> None:
        now = self.clock()
        total = f"/{self.total}" if self.total is not None else ""
        note = f", {self.note}" if self.note else ""
        print(f"[drafter] {self.name}: {self.done}{total} done{note}, {now - self.started:.0f}s elapsed"
              f"{self._left(now)}", file=self.out, flush=True)
        self.last = now

    def _left(self, now: float) -> str:
        """The stage's remaining time at its pace since its first item finished (the first carries the stage's
        start-up: imports, Hypothesis's tables): a guess, said as one, once two items give a pace."""
        if not self.total or self.first_done is None or self.done < 2 or self.done >= self.total:
            return ""
        left = (now - self.first_done[0]) / (self.done - self.first_done[1]) * (self.total - self.done) \
            if self.done > self.first_done[1] else None
        return f", about {left:.0f}s left in {self.name}" if left is not None else ""

    def stage(self, name: str, total: int | None = None) -> None:
        self.close()
        self.name, self.done, self.total, self.note = name, 0, total, ""
        self.first_done: tuple[float, int] | None = None  # (when, how many) the stage's first items finished
        self._line()

    def advance(self, amount: int = 1, total: int | None = None, note: str | None = None) -> None:
        self.done += amount
        if self.first_done is None:
            self.first_done = (self.clock(), self.done)
        if total is not None:
            self.total = total
        if note is not None:
            self.note = note
        if self.clock() - self.last >= self.interval:
            self._line()

    def close(self) -> None:
        if self.name and (self.total is None or self.done != 0):
            self._line()


class RichReporter:
    """Progress bars per stage on the terminal."""

    def __init__(self, progress: Progress):
        self.progress = progress
        self.task = None

    def stage(self, name: str, total: int | None = None) -> None:
        self.close()
        self.task = self.progress.add_task(name, total=total, note="")

    def advance(self, amount: int = 1, total: int | None = None, note: str | None = None) -> None:
        if self.task is not None:
            self.progress.update(self.task, advance=amount, **({"total": total} if total is not None else {}),
                                 **({"note": note} if note is not None else {}))

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
        TextColumn("{task.fields[note]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=errors,
        transient=False,
    )


def fail(exc: DrafterError) -> None:
    errors.print(labelled("error:", "bold red", str(exc)), soft_wrap=True)
    raise typer.Exit(2)


@app.command()
def extract(
    src: SrcArg,
    corpus: CorpusOpt = None,
    select: SelectOpt = None,
    include_private: IncludePrivateOpt = None,
) -> None:
    """Print the targets of SRC as JSON: id, file, line, parameters, return annotation, docstring, fingerprint."""
    try:
        extraction = extract_targets(pipeline.resolve_src(src), tuple(corpus or ()), tuple(select or ()),
                                     bool(include_private))
    except DrafterError as exc:
        fail(exc)
    for error in extraction.errors:
        errors.print(labelled("skipped", "yellow", f"{error.file}: {error.reason}"))
    for passed in extraction.passed_over:
        errors.print(labelled("passed over", "dim", f"{passed.file}: {passed.reason}"), soft_wrap=True)
    sys.stdout.write(json.dumps(to_jsonable(extraction), indent=2) + "\n")


def _execute(stage: Callable, src: Path, **options):
    """Settings from files and options, the stage with progress bars, user errors as exit 2."""
    try:
        settings = load_settings(**options)
        errors.print(cache_line(settings.workspace, settings.cache), soft_wrap=True)
        interactive = sys.stderr.isatty()
        with progress_bar() if interactive else nullcontext() as progress:
            reporter = RichReporter(progress) if interactive else PlainReporter()
            result = stage(src, settings, reporter)
            reporter.close()
    except DrafterError as exc:
        fail(exc)
    except OSError as exc:  # a full disk, a folder that vanished: the environment, not a bug to show as a traceback
        where = f"{exc.filename}: " if exc.filename else ""
        fail(WorkspaceError(f"{where}{exc.strerror or exc} (a run that had started is kept as "
                            "runs/<id>.incomplete/ and is never a baseline)"))
    except KeyboardInterrupt:
        errors.print("interrupted: the partial run is kept as runs/<id>.incomplete/ and is never a baseline",
                     highlight=False, markup=False)
        raise typer.Exit(130) from None
    for warning in result.warnings:
        if warning.startswith(CACHE_NOTES):  # cache use is news, not a warning
            errors.print(labelled("cache:", "dim", warning), soft_wrap=True)
        else:
            errors.print(labelled("warning:", "yellow", warning), soft_wrap=True)
    return result


@app.command()
def draft(
    src: SrcArg,
    model: ModelOpt = None,
    workspace: WorkspaceOpt = None,
    corpus: CorpusOpt = None,
    select: SelectOpt = None,
    include_private: IncludePrivateOpt = None,
    prompts: PromptsOpt = None,
    base_url: BaseUrlOpt = None,
    concurrency: ConcurrencyOpt = None,
    temperature: TemperatureOpt = None,
    timeout: TimeoutOpt = None,
    retries: RetriesOpt = None,
    changed_since: ChangedSinceOpt = None,
    no_cache: NoCacheOpt = False,
) -> None:
    """Front half: extract → prompt → model → parse → lint. Writes targets.json, prompts/, replies/, candidates.json."""
    outcome = _execute(
        pipeline.draft, src, model=model, workspace=workspace, corpus=tuple(corpus or ()), select=tuple(select or ()),
        include_private=include_private,
        prompts=prompts, base_url=base_url, concurrency=concurrency, temperature=temperature, timeout=timeout,
        retries=retries, changed_since=changed_since, cache=False if no_cache else None,
    )
    print_table(console, draft_table(outcome.extraction, outcome.drafted, outcome.target_notes))
    console.print(targets_line(len(outcome.extraction.targets), outcome.target_notes))
    console.print(f"run folder: {outcome.run_dir}")


@app.command()
def run(
    src: SrcArg,
    model: ModelOpt = None,
    workspace: WorkspaceOpt = None,
    corpus: CorpusOpt = None,
    select: SelectOpt = None,
    include_private: IncludePrivateOpt = None,
    known_bad: Annotated[
        Optional[Path], typer.Option("--known-bad", help="Folder of unified diffs you already know are wrong; each is a mutant. Default: none.")
    ] = None,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", min=1, help="Worker processes. Default: the cores drafter may use.")] = None,
    max_examples: MaxExamplesOpt = None,
    seeds: SeedsOpt = None,
    prompts: PromptsOpt = None,
    base_url: BaseUrlOpt = None,
    concurrency: ConcurrencyOpt = None,
    temperature: TemperatureOpt = None,
    timeout: TimeoutOpt = None,
    retries: RetriesOpt = None,
    changed_since: ChangedSinceOpt = None,
    no_cache: NoCacheOpt = False,
    fail_under_kept: FailUnderKeptOpt = None,
    fail_under_score: FailUnderScoreOpt = None,
    rounds: RoundsOpt = None,
    max_calls: MaxCallsOpt = None,
    max_tokens: MaxTokensOpt = None,
    budget: BudgetOpt = None,
    shard: ShardOpt = None,
    resume: Annotated[Optional[Path], typer.Option("--resume", metavar="RUN", help=(
        "Finish this interrupted run folder (runs/<id>.incomplete) with the same SRC and options: work its journal "
        "holds is not done again. Default: a new run."))] = None,
) -> None:
    """All stages: draft, render, soundness on the clean code, sabotage, keep, report.

    Exit 0 whatever it keeps; 3 when fewer than --fail-under-kept N are kept or the mutation score is below
    --fail-under-score X; 2 on a usage error."""
    result = _execute(
        partial(pipeline.run, shard=_shard(shard), resume=resume), src, model=model, workspace=workspace,
        corpus=tuple(corpus or ()), select=tuple(select or ()), include_private=include_private, prompts=prompts,
        known_bad=known_bad, jobs=jobs, max_examples=max_examples, seeds=seeds, base_url=base_url,
        concurrency=concurrency, temperature=temperature, timeout=timeout, retries=retries, changed_since=changed_since,
        cache=False if no_cache else None, rounds=rounds, max_calls=max_calls, max_tokens=max_tokens, budget=budget,
    )
    _print_run(result, fail_under_kept, fail_under_score)


def _print_run(result, fail_under_kept: int | None, fail_under_score: float | None = None) -> None:
    try:
        stages = recorded_stages(result.run_dir)
    except DrafterError as exc:
        errors.print(f"time per stage not shown: {exc}", highlight=False, markup=False)
    else:
        if stages:
            print_table(console, stages_table(stages))
    print_run_summary(console, result.report, result.report_paths)
    console.print(f"kept files: {result.run_dir / 'kept'} (review them, then `drafter promote ID... --run "
                  f"{result.run_dir} --into oracle/properties`)", highlight=False, soft_wrap=True)
    kept = result.report.summary["kept"]
    if fail_under_kept is not None and kept < fail_under_kept:
        errors.print(f"only {kept} kept, fewer than --fail-under-kept {fail_under_kept}", highlight=False, markup=False)
        raise typer.Exit(3)
    if fail_under_score is not None:
        from drafter.report.entries import overall_score

        score = overall_score(result.report)
        if score is None or score < fail_under_score:
            measured = "no mutant was evaluated" if score is None else f"mutation score {score:.3f}"
            errors.print(f"{measured}, below --fail-under-score {fail_under_score:g}", highlight=False, markup=False)
            raise typer.Exit(3)


@app.command()
def refresh(
    src: SrcArg,
    model: ModelOpt = None,
    workspace: WorkspaceOpt = None,
    corpus: CorpusOpt = None,
    select: SelectOpt = None,
    include_private: IncludePrivateOpt = None,
    known_bad: Annotated[
        Optional[Path], typer.Option("--known-bad", help="Folder of unified diffs you already know are wrong; each is a mutant. Default: none.")
    ] = None,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", min=1, help="Worker processes. Default: the cores drafter may use.")] = None,
    max_examples: MaxExamplesOpt = None,
    seeds: SeedsOpt = None,
    prompts: PromptsOpt = None,
    base_url: BaseUrlOpt = None,
    concurrency: ConcurrencyOpt = None,
    temperature: TemperatureOpt = None,
    timeout: TimeoutOpt = None,
    retries: RetriesOpt = None,
    no_cache: NoCacheOpt = False,
    fail_under_kept: FailUnderKeptOpt = None,
    fail_under_score: FailUnderScoreOpt = None,
    rounds: RoundsOpt = None,
    max_calls: MaxCallsOpt = None,
    max_tokens: MaxTokensOpt = None,
    budget: BudgetOpt = None,
    shard: ShardOpt = None,
) -> None:
    """The scheduled job: redraft only targets that are new or whose signature or docstring changed since the
    newest complete run for SRC; carry the others' results and kept files forward.

    Exit codes: 0 nothing changed (no model call, no new run, `latest` untouched); 1 a new run was written
    (targets refreshed or removed); 2 a usage, configuration or SRC error; 3 fewer kept than --fail-under-kept or a
    mutation score below --fail-under-score."""
    from drafter.refresh import refresh as refresh_stage

    result = _execute(
        partial(refresh_stage, shard=_shard(shard)), src, model=model, workspace=workspace,
        corpus=tuple(corpus or ()), select=tuple(select or ()), include_private=include_private, prompts=prompts,
        known_bad=known_bad, jobs=jobs, max_examples=max_examples, seeds=seeds, base_url=base_url,
        concurrency=concurrency, temperature=temperature, timeout=timeout, retries=retries,
        cache=False if no_cache else None, rounds=rounds, max_calls=max_calls, max_tokens=max_tokens, budget=budget,
    )
    plan = result.plan
    baseline = plan.baseline.name if plan.baseline else "none (first run: everything is drafted)"
    console.print(f"baseline: {baseline}; {len(plan.changed)} new or changed, {len(plan.unchanged)} unchanged "
                  f"(carried forward), {len(plan.removed)} removed", highlight=False, markup=False)
    for target in plan.removed:
        console.print(f"removed: {target}", highlight=False, markup=False)
    if result.run is None:
        console.print("nothing changed: no new run", highlight=False, markup=False)
        raise typer.Exit(0)
    _print_run(result.run, fail_under_kept, fail_under_score)
    raise typer.Exit(1)


@app.command()
def merge(
    run_dirs: Annotated[list[Path], typer.Argument(metavar="RUN...", help="The run folders of every shard (--shard K/N) of one run.")],
    workspace: WorkspaceOpt = None,
    fail_under_kept: FailUnderKeptOpt = None,
    fail_under_score: FailUnderScoreOpt = None,
) -> None:
    """Join the run folders of N shards into one complete run in the workspace, with one report over every
    target; `latest` moves to it. Refuses shards of different SRC trees, settings or model, a missing or
    repeated shard, or an incomplete one.

    Exit 0; 3 under --fail-under-kept or --fail-under-score; 2 when the shards cannot be merged."""
    from drafter.merge import merge as merge_shards

    try:
        final, merged = merge_shards(run_dirs, workspace or load_settings().workspace)
    except DrafterError as exc:
        fail(exc)
    for warning in merged.warnings:
        errors.print(labelled("warning:", "yellow", warning), soft_wrap=True)
    paths = tuple(final / name for name in ("report.json", "report.md", "report.html"))
    _print_run(pipeline.RunResult(final, merged, paths, None), fail_under_kept, fail_under_score)


@app.command()
def report(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN", help="A finished run folder, e.g. workspace/latest.")],
    fmt: Annotated[str, typer.Option("--format", help="md | html | json | junit | mutation-testing.")] = "md",
    out: Annotated[Optional[Path], typer.Option("--out", help="Write to FILE. Default: stdout.")] = None,
) -> None:
    """Re-render the report of a finished run: markdown, one self-contained HTML file, report.json, JUnit XML
    (one test case per candidate: kept passes, rejected fails with its reason), or mutation-testing (JSON of the
    mutation-testing-report-schema, read by Stryker's viewer and dashboard)."""
    from drafter.report import FORMATS, load_report, render

    if fmt not in FORMATS:
        fail(DrafterError(f"--format {fmt}: choose one of {', '.join(FORMATS)}"))
    try:
        text = render(load_report(run_dir), fmt, run_dir.resolve())
    except DrafterError as exc:
        fail(exc)
    if out is None:
        sys.stdout.write(text)
        return
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        fail(DrafterError(f"--out {out}: cannot write ({exc.strerror or exc})"))
    console.print(f"report: {out}", soft_wrap=True)


@app.command()
def show(
    item_id: Annotated[str, typer.Argument(metavar="ID", help="A candidate, mutant or target id, as report.json names it.")],
    run_dir: Annotated[Path, typer.Option("--run", help="The finished run the id comes from.")] = Path("workspace/latest"),
) -> None:
    """Show one candidate (code, verdict, counterexample, outcome by mutant), mutant (diff, status, who killed it,
    round) or target (candidates, mutants) of a finished run. Exit 2 when the id is unknown."""
    from drafter.show import show as show_item

    try:
        console.print(show_item(run_dir, item_id), soft_wrap=True)
    except DrafterError as exc:
        fail(exc)


@app.command()
def promote(
    candidate_ids: Annotated[Optional[list[str]], typer.Argument(metavar="ID...", help="Kept candidate ids, e.g. 'shop.billing:apply_tax::zero_rate_is_identity'.")] = None,
    into: Annotated[Path, typer.Option("--into", help="Oracle properties folder to write into, e.g. oracle/properties.")] = ...,
    run_dir: Annotated[Path, typer.Option("--run", help="The run the ids come from.")] = Path("workspace/latest"),
    all_kept: Annotated[Optional[Path], typer.Option("--all-kept", metavar="RUN", help="Promote every kept candidate of RUN. Default: only the ids named.")] = None,
    keep_settings: Annotated[bool, typer.Option("--keep-settings", help="Keep each file's @settings instead of the oracle's Hypothesis profile. Default: off (they are dropped).")] = False,
) -> None:
    """Copy reviewed kept candidates into an oracle folder under stable names, with a provenance header, and
    record them in DIR/drafted.lock.json (which oracle-gate verifies). Never runs git.

    Exit 0 when every named candidate is in DIR; 2 when any was refused (not kept, unknown, or its file name is
    taken by a different file) — the others are still promoted."""
    from drafter.promote import promote as promote_candidates

    if all_kept is None and not candidate_ids:
        fail(DrafterError("name kept candidate ids, or give --all-kept RUN"))
    try:
        result = promote_candidates(all_kept or run_dir, tuple(candidate_ids or ()), into, all_kept=all_kept is not None,
                                    keep_settings=keep_settings)
    except DrafterError as exc:
        fail(exc)
    for item in result.promoted:
        console.print(f"{item.status}: {into / item.file} ({item.candidate_id})", soft_wrap=True)
    for reason in result.refused:
        errors.print(labelled("refused:", "bold red", reason), soft_wrap=True)
    console.print(f"lock: {result.lock}", soft_wrap=True)
    if result.refused:
        raise typer.Exit(2)


if __name__ == "__main__":
    app()
