"""Wall and CPU of `drafter run` per stage, a "before" tree against an "after" tree, medians and ratios.

    python bench/run_stages.py [--module smartypants|roman|parse] [--src DIR --replies FILE]
                               [--before REV] [--after REV] [--reps 3] [--jobs 2]

Both trees run the whole pipeline (`drafter.pipeline.run`, a replay file as the model) on the same module with the
same replies, --jobs, seeds and example counts, in a fresh workspace each time, interleaved (before, after, before,
...), after one untimed warm-up run of each (compiled bytecode, Hypothesis's Unicode tables where the tree keeps them
in a user cache folder: DRAFTER_CACHE_DIR points at one temporary folder for the whole bench).

"Before" is a git revision (default: the last commit before issue 21's work began) unpacked with `git archive` into
a temporary folder; "after" is this working tree unless --after names a revision. Each run is a fresh interpreter
with PYTHONPATH at its tree and this venv, so the two trees differ only in their code. Old revisions record no CPU
per stage, so stages are measured from outside, the same way for both trees: the driver passes a progress reporter
whose `stage(name)` calls mark the boundaries, and wraps a few of the pipeline module's own functions to mark the
stages it does not announce (prepare: copying SRC and the import check; keep; report: building and writing the
reports). CPU is user + system of the process and of its waited-for children (every worker pool is joined within
its stage, so its CPU and that of the children it forked land in the stage that ran it).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BEFORE_ISSUE_21 = "5d07bec"  # source_facts parsed once per run; the next commits (issue 21's) are the Unicode cache,
# per-statement mutants, one walk, function-only compile, symtable render, then looping mutants and the tracer
MODULES = {name: (REPO / "bench" / "vendor" / name, REPO / "bench" / f"{name}_replies.json")
           for name in ("smartypants", "roman", "parse")}
# Pipeline functions both trees have, called once at the start of a stage no progress line announces.
MARKERS = {"copy_source": "prepare", "keep_stage": "keep", "build_report": "report"}


def cpu_seconds() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


class StageTimes:
    """A progress reporter that times what happens between one stage's start and the next one's."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        self.current: str | None = None
        self.started = (0.0, 0.0)

    def switch(self, name: str | None) -> None:
        now = (time.perf_counter(), cpu_seconds())
        if self.current is not None:
            self.wall[self.current] = self.wall.get(self.current, 0.0) + now[0] - self.started[0]
            self.cpu[self.current] = self.cpu.get(self.current, 0.0) + now[1] - self.started[1]
        self.current, self.started = name, now

    def stage(self, name: str, total: int | None = None) -> None:
        self.switch(name)

    def advance(self, amount: int = 1, total: int | None = None, note: str | None = None) -> None:
        pass


def drive(src: str, replies: str, jobs: int, seeds: int, max_examples: int) -> None:
    """One whole run in this process with the tree on PYTHONPATH; prints its stage times as JSON."""
    import drafter
    from drafter import pipeline
    from drafter.config import Settings

    times = StageTimes()
    for name, stage in MARKERS.items():
        original = getattr(pipeline, name)

        def marked(*args, _original=original, _stage=stage, **kwargs):
            times.switch(_stage)
            return _original(*args, **kwargs)

        setattr(pipeline, name, marked)
    with tempfile.TemporaryDirectory(prefix="run-stages-") as workspace:
        settings = Settings(model=f"replay:{replies}", workspace=Path(workspace), jobs=jobs, seeds=seeds,
                            max_examples=max_examples)
        times.switch("setup")
        result = pipeline.run(Path(src), settings, times)
        times.switch(None)
        recorded = json.loads((result.run_dir / "run.json").read_text()).get("stages")  # trees that record their own
    s = result.report.summary
    print(json.dumps({"drafter": drafter.__file__, "wall": times.wall, "cpu": times.cpu, "recorded": recorded,
                      "counts": {"candidates": s["candidates"], "kept": s["kept"], "mutants": s["mutants"]["total"],
                                 "killed": s["mutants"]["killed"], "survived": s["mutants"]["survived"]}}))


def unpack(rev: str, into: Path) -> Path:
    """The tree of `rev` (read-only use), without touching the repository's worktrees."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", rev], check=True,
                             capture_output=True).stdout
    tree = into / rev.replace("/", "_")
    tree.mkdir()
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(tree, filter="data")
    return tree


def one_run(tree: Path, args, env: dict) -> dict:
    command = [sys.executable, str(Path(__file__).resolve()), "--drive", "--src", str(args.src),
               "--replies", str(args.replies), "--jobs", str(args.jobs), "--seeds", str(args.seeds),
               "--max-examples", str(args.max_examples)]
    started = time.perf_counter()
    process = subprocess.Popen(command, env={**env, "PYTHONPATH": str(tree)}, cwd=tree,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = process.communicate()
    if process.returncode:
        raise SystemExit(f"the run under {tree} failed:\n{err[-3000:]}")
    record = json.loads(out.strip().splitlines()[-1])
    if not Path(record["drafter"]).resolve().is_relative_to(tree.resolve()):
        raise SystemExit(f"the run under {tree} imported drafter from {record['drafter']}")
    record["process_wall"] = time.perf_counter() - started
    return record


def whole_process_cpu(before: resource.struct_rusage, after: resource.struct_rusage) -> float:
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def measured(tree: Path, args, env: dict) -> dict:
    """One run and its whole process's CPU (from the kernel's account of this process's waited-for children)."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    record = one_run(tree, args, env)
    record["process_cpu"] = whole_process_cpu(kids, resource.getrusage(resource.RUSAGE_CHILDREN))
    return record


def table(runs: dict[str, list[dict]], labels: tuple[str, str]) -> list[str]:
    before, after = (runs[label] for label in labels)
    stages = list(dict.fromkeys(s for r in after + before for s in r["wall"]))  # the newer order
    lines = [f"{'stage':<12} {'wall before':>11} {'wall after':>10} {'ratio':>6}   "
             f"{'CPU before':>10} {'CPU after':>9} {'ratio':>6}"]

    def median(records, kind, stage):
        values = [r[kind].get(stage) for r in records]
        return statistics.median(values) if all(v is not None for v in values) else None

    def cell(value, width):
        return f"{value:>{width}.2f}" if value is not None else f"{'—':>{width}}"

    def ratio(old, new):
        return f"{old / new:>5.2f}x" if old is not None and new else f"{'—':>6}"

    rows = [(stage, *(median(rs, kind, stage) for kind in ("wall", "cpu") for rs in (before, after)))
            for stage in stages]
    for r in before + after:
        r["total"] = {"wall": sum(r["wall"].values()), "cpu": sum(r["cpu"].values())}
    rows.append(("stages", *(statistics.median(x["total"][k] for x in rs) for k in ("wall", "cpu")
                             for rs in (before, after))))
    rows.append(("process", *(statistics.median(x[f"process_{k}"] for x in rs) for k in ("wall", "cpu")
                              for rs in (before, after))))
    for stage, wall_old, wall_new, cpu_old, cpu_new in rows:
        lines.append(f"{stage:<12} {cell(wall_old, 11)} {cell(wall_new, 10)} {ratio(wall_old, wall_new)}   "
                     f"{cell(cpu_old, 10)} {cell(cpu_new, 9)} {ratio(cpu_old, cpu_new)}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--module", choices=sorted(MODULES), default="smartypants")
    parser.add_argument("--src", type=Path, help="any folder of Python modules (with --replies)")
    parser.add_argument("--replies", type=Path, help="its replay file")
    parser.add_argument("--before", default=BEFORE_ISSUE_21, help="git revision (default: before issue 21's work)")
    parser.add_argument("--after", default="", help="git revision (default: this working tree)")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--max-examples", type=int, default=100)
    parser.add_argument("--drive", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.drive:
        return drive(str(args.src), str(args.replies), args.jobs, args.seeds, args.max_examples)
    if (args.src is None) != (args.replies is None):
        parser.error("--src and --replies go together")
    if args.src is None:
        args.src, args.replies = MODULES[args.module]
    args.src, args.replies = args.src.resolve(), args.replies.resolve()
    with tempfile.TemporaryDirectory(prefix="run-stages-trees-") as scratch:
        scratch = Path(scratch)
        env = {**os.environ, "DRAFTER_CACHE_DIR": str(scratch / "user-cache")}
        trees = {f"before {args.before}": unpack(args.before, scratch),
                 f"after {args.after or 'working tree'}": unpack(args.after, scratch) if args.after else REPO}
        labels = tuple(trees)
        print(f"{args.src.name} with {args.replies.name}; --jobs {args.jobs}, seeds {args.seeds}, "
              f"max_examples {args.max_examples}, {args.reps} reps interleaved; load {os.getloadavg()}", flush=True)
        for label, tree in trees.items():
            warm = measured(tree, args, env)
            print(f"warm-up {label}: {warm['process_wall']:.1f} s wall, {warm['process_cpu']:.1f} CPU s", flush=True)
        runs: dict[str, list[dict]] = {label: [] for label in labels}
        for rep in range(args.reps):
            for label, tree in trees.items():
                record = measured(tree, args, env)
                runs[label].append(record)
                print(f"rep {rep + 1} {label}: {record['process_wall']:.1f} s wall, {record['process_cpu']:.1f} "
                      f"CPU s, {record['counts']}; load {os.getloadavg()[0]:.2f}", flush=True)
    print(f"\nmedians of {args.reps}, seconds; ratio = before / after (above 1: after is faster)")
    print("\n".join(table(runs, labels)))
    for label in labels:
        recorded = [r["recorded"] for r in runs[label] if r.get("recorded")]
        if len(recorded) == len(runs[label]):
            print(f"{label}, CPU per stage as its own run.json records it (medians): " + ", ".join(
                f"{name} {statistics.median(r[name]['cpu_seconds'] for r in recorded):.2f}" for name in recorded[0]))
    print(f"load at the end {os.getloadavg()}")


if __name__ == "__main__":
    main()
