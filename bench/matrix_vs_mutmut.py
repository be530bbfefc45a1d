"""drafter against mutmut 3 on any module: kill matrix, soundness and mutant generation per CPU-second, one worker each.

    .venv/bin/pip install -e '.[bench]'       # mutmut 3, bench-only
    python bench/matrix_vs_mutmut.py [--src FOLDER --replies FILE] [--reps 3] [--max-examples 100] [--no-mutmut]

--src is a folder holding the module or package (default bench/vendor/inflection, inflection 0.5.1); --replies a replay
file of candidate properties for its targets, as a model would answer (default bench/inflection_replies.json). The
tests are the same for both tools: the candidates drafter's pipeline finds sound on the module with that replay file,
as rendered Hypothesis files. Each tool mutates the module with its own operators and runs those tests against its
own mutants, with one worker (drafter --jobs 1, mutmut --max-children 1). The runs are interleaved (drafter, mutmut,
drafter, …) and the figures are medians. CPU is user + system of the process and every child it waited for.

- Kill matrix: mutants answered per CPU-second of the matrix phase only (drafter: build_kill_matrix, its forced-fail
  proof included; mutmut: from the start of its mutant runner to the end, after its clean and stats runs). mutmut
  runs with Hypothesis shrinking off (a conftest profile), as drafter's matrix does, and once more with its default
  (shrinking on) in the first --default-reps repetitions. With --variants, drafter runs also without replaying
  recorded inputs (every pair draws through Hypothesis) and without the coverage skip, to show what each is worth.
- Soundness: CPU of drafter's soundness stage (check_soundness, --jobs 1, its seeds and shrink) on the same sound
  candidates, against the kill matrix's CPU for them.
- Generation: mutants made per CPU-second (drafter: mutants_for of every target, parse cache cleared; mutmut: its
  create_mutants step).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.dont_write_bytecode = True

from drafter.config import Settings  # noqa: E402
from drafter.extract import extract  # noqa: E402
from drafter.killmatrix import build_kill_matrix  # noqa: E402
from drafter.pipeline import run  # noqa: E402
from drafter.soundness import check_soundness  # noqa: E402

INFLECTION = REPO / "bench" / "vendor" / "inflection"
REPLIES = REPO / "bench" / "inflection_replies.json"
NOT_CODE = ("LICENSE", "LICENCE", "COPYING")

NO_SHRINK_CONFTEST = """\
from hypothesis import Phase, settings

settings.register_profile("bench", phases=(Phase.explicit, Phase.generate), database=None, deadline=None)
settings.load_profile("bench")
"""

# Runs inside the mutmut project: mutmut's own `run` with marks at its phase boundaries.
MUTMUT_DRIVER = r"""
import json, resource, sys, time
from pathlib import Path


def mark():
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return [own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime, time.perf_counter()]


import mutmut.__main__ as mm

marks = {"start": mark()}
real_create, real_runner = mm.create_mutants, mm.get_mutant_runner


def create(n):
    marks["generation_start"] = mark()
    out = real_create(n)
    marks["generation_end"] = mark()
    return out


def runner(n):
    made = real_runner(n)
    real_startup = made.startup

    def startup():
        marks["matrix_start"] = mark()
        return real_startup()

    made.startup = startup
    return made


mm.create_mutants, mm.get_mutant_runner = create, runner
try:
    mm._run((), max_children=1)
except SystemExit:
    pass
marks["end"] = mark()
counts = {}
for meta in Path("mutants").rglob("*.meta"):
    for key, code in json.loads(meta.read_text())["exit_code_by_key"].items():
        status = mm.status_by_exit_code.get(code, str(code))
        counts[status] = counts.get(status, 0) + 1
print("RESULT " + json.dumps({"marks": marks, "counts": counts}))
"""


def cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def drafter_inputs(src: Path, replies: Path, workspace: Path, max_examples: int):
    """The sound candidates of a replay run on the module, the mutants they face, the run and source folders."""
    settings = Settings(model=f"replay:{replies}", workspace=workspace, jobs=2, max_examples=max_examples)
    outcome = run(src, settings).outcome
    sound = [(outcome.rendered[c], s) for c, s in outcome.soundness.items() if s.status == "sound"]
    facing = {r.target for r, _ in sound}
    mutants = [m for m in outcome.mutants if m.target in facing]
    return sound, mutants, outcome.draft.run_dir, outcome.draft.run_dir / "source"


def code_entries(src: Path) -> list[Path]:
    """The module files and packages at the top of SRC (licences and other files left out)."""
    return sorted(p for p in src.iterdir() if not p.name.startswith((".", *NOT_CODE)) and p.name != "__pycache__"
                  and (p.suffix == ".py" or (p / "__init__.py").is_file()))


def mutmut_project(folder: Path, src: Path, sound, run_dir: Path, shrink: bool) -> Path:
    """The module and the same rendered test files, laid out the way mutmut 3 expects."""
    folder.mkdir(parents=True)
    for entry in code_entries(src):
        (shutil.copytree if entry.is_dir() else shutil.copyfile)(entry, folder / entry.name)
    tests = folder / "tests"
    tests.mkdir()
    for index, (item, _) in enumerate(sound):
        shutil.copy(run_dir / item.path, tests / f"test_{index:03d}_{Path(item.path).stem[5:]}.py")
    if not shrink:
        (tests / "conftest.py").write_text(NO_SHRINK_CONFTEST)
    (folder / "pyproject.toml").write_text(
        f'[tool.mutmut]\nsource_paths = {json.dumps([e.name + ("/" if e.is_dir() else "") for e in code_entries(src)])}\n'
        'pytest_add_cli_args_test_selection = ["tests/"]\n'
        '[tool.pytest.ini_options]\naddopts = "-p no:cacheprovider"\n')
    return folder


def run_mutmut(src: Path, sound, run_dir: Path, shrink: bool) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-mutmut-") as tmp:
        project = mutmut_project(Path(tmp) / "project", src, sound, run_dir, shrink)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "HYPOTHESIS"))}
        done = subprocess.run([sys.executable, "-c", MUTMUT_DRIVER], cwd=project, env=env, capture_output=True,
                              text=True, timeout=3600)
    line = next((row for row in done.stdout.splitlines() if row.startswith("RESULT ")), None)
    if line is None:
        raise SystemExit(f"mutmut did not finish (exit {done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    data = json.loads(line[len("RESULT "):])
    marks, counts = data["marks"], data["counts"]
    answered = sum(counts.values())
    ran = answered - counts.get("no tests", 0)
    matrix_cpu = marks["end"][0] - marks["matrix_start"][0]
    generation_cpu = marks["generation_end"][0] - marks["generation_start"][0]
    return {"mutants": answered, "ran": ran, "counts": counts, "matrix_cpu": matrix_cpu,
            "matrix_wall": marks["end"][1] - marks["matrix_start"][1], "generation_cpu": generation_cpu,
            "total_cpu": marks["end"][0] - marks["start"][0]}


def run_drafter(sound, mutants, run_dir: Path, source: Path, max_examples: int, coverage: bool = True,
                replayed: bool = True) -> dict:
    from dataclasses import replace

    pairs = sound if coverage else [(item, replace(clean, lines=None)) for item, clean in sound]
    before, started = cpu(), time.perf_counter()
    matrix = build_kill_matrix(pairs, mutants, run_dir, source, jobs=1, max_examples=max_examples, replayed=replayed)
    matrix_cpu, wall = cpu() - before, time.perf_counter() - started
    by_mutant: dict[str, set[str]] = {}
    for result in matrix.results:
        by_mutant.setdefault(result.mutant_id, set()).add(result.outcome)
    killed = sum(1 for outcomes in by_mutant.values() if outcomes & {"assertion", "crash", "timeout"})
    unreached = sum(1 for outcomes in by_mutant.values() if outcomes == {"not_reached"})
    return {"mutants": len(by_mutant), "ran": len(by_mutant) - unreached, "killed": killed, "not_reached": unreached,
            "pairs_run": sum(1 for r in matrix.results if r.outcome != "not_reached"), "matrix_cpu": matrix_cpu,
            "matrix_wall": wall}


def run_soundness(sound, run_dir: Path, source: Path, max_examples: int) -> dict:
    before, started = cpu(), time.perf_counter()
    checks = check_soundness([item for item, _ in sound], run_dir, source, max_examples=max_examples, jobs=1)
    return {"soundness_cpu": cpu() - before, "soundness_wall": time.perf_counter() - started,
            "sound": sum(1 for c in checks if c.status == "sound")}


def drafter_generation(src: Path, reps: int) -> tuple[float, int, int]:
    import sabotage.mutants as generator

    targets = extract(src, (), ()).targets
    rates, made = [], 0
    for _ in range(reps):
        generator._parsed.cache_clear()
        started = time.process_time()
        made = 0
        for target in targets:
            try:
                made += len(generator.mutants_for(target, src).mutants)
            except generator.SabotageError:
                pass  # counted nowhere: the pipeline reports it as a warning
        rates.append(made / (time.process_time() - started))
    return statistics.median(rates), made, len(targets)


def lines_of(src: Path) -> int:
    files: list[Path] = []
    for entry in code_entries(src):
        files.extend(entry.rglob("*.py") if entry.is_dir() else [entry])
    return sum(len(f.read_text(encoding="utf-8").splitlines()) for f in files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, default=INFLECTION, help="folder holding the module (default: inflection)")
    parser.add_argument("--replies", type=Path, default=REPLIES, help="replay file of candidates for its targets")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--max-examples", type=int, default=100)
    parser.add_argument("--default-reps", type=int, default=0, help="repetitions that also run mutmut with shrinking on")
    parser.add_argument("--variants", action="store_true", help="also drafter without replay, without coverage skip")
    parser.add_argument("--no-mutmut", action="store_true",
                        help="drafter only: its kill matrix, soundness and generation, no ratio to mutmut")
    args = parser.parse_args()
    src, replies = args.src.resolve(), args.replies.resolve()
    if not code_entries(src):
        raise SystemExit(f"--src {src}: no module file or package in it")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-") as workspace:
        sound, mutants, run_dir, source = drafter_inputs(src, replies, Path(workspace), args.max_examples)
        if not sound:
            raise SystemExit(f"no candidate of {replies} is sound on {src}: nothing to run the mutants against")
        names = ", ".join(e.name for e in code_entries(src))
        print(f"inputs: {names} ({lines_of(src)} lines), {len(sound)} sound candidates of "
              f"{len({r.target for r, _ in sound})} targets as test files, drafter {len(mutants)} mutants, "
              f"max_examples {args.max_examples}")
        replayable = sum(1 for _, clean in sound if clean.examples)
        print(f"  {replayable} of {len(sound)} candidates recorded inputs a kill run may replay", flush=True)
        rows: dict[str, list[dict]] = {"drafter": [], "drafter, no replay": [], "drafter, no coverage skip": [],
                                       "mutmut, no shrink": [], "mutmut, default": []}
        soundness: list[dict] = []
        for rep in range(args.reps):
            rows["drafter"].append(run_drafter(sound, mutants, run_dir, source, args.max_examples))
            if not args.no_mutmut:
                rows["mutmut, no shrink"].append(run_mutmut(src, sound, run_dir, shrink=False))
            soundness.append(run_soundness(sound, run_dir, source, args.max_examples))
            if args.variants:
                rows["drafter, no coverage skip"].append(run_drafter(sound, mutants, run_dir, source,
                                                                     args.max_examples, coverage=False))
                rows["drafter, no replay"].append(run_drafter(sound, mutants, run_dir, source, args.max_examples,
                                                              replayed=False))
            if rep < args.default_reps and not args.no_mutmut:
                rows["mutmut, default"].append(run_mutmut(src, sound, run_dir, shrink=True))
            mine, checked = rows["drafter"][-1], soundness[-1]
            theirs = (f"mutmut {rows['mutmut, no shrink'][-1]['mutants']} in "
                      f"{rows['mutmut, no shrink'][-1]['matrix_cpu']:.2f} CPU-s "
                      f"(generation {rows['mutmut, no shrink'][-1]['generation_cpu']:.2f}), "
                      if rows["mutmut, no shrink"] else "")
            print(f"  repetition {rep + 1}/{args.reps} done, {time.perf_counter() - started:.0f}s: drafter matrix "
                  f"{mine['mutants']} in {mine['matrix_cpu']:.2f} CPU-s, {theirs}soundness "
                  f"{checked['soundness_cpu']:.2f} CPU-s", flush=True)
    rate = {}
    print("\nkill matrix, one worker (medians):")
    for name, results in rows.items():
        if not results:
            continue
        rate[name] = statistics.median(r["mutants"] / r["matrix_cpu"] for r in results)
        ran = statistics.median(r["ran"] / r["matrix_cpu"] for r in results)
        last = results[-1]
        extra = (f"killed {last['killed']}, not reached {last['not_reached']}, {last['pairs_run']} pairs run"
                 if name.startswith("drafter") else ", ".join(f"{k} {v}" for k, v in sorted(last["counts"].items())))
        print(f"  {name:26s} {rate[name]:7.1f} mutants answered per CPU-s ({ran:6.1f} run per CPU-s); "
              f"{last['mutants']} mutants, matrix CPU {statistics.median(r['matrix_cpu'] for r in results):.2f}s, "
              f"wall {statistics.median(r['matrix_wall'] for r in results):.2f}s; {extra}")
    default = f"{rate['drafter'] / rate['mutmut, default']:.2f}x" if "mutmut, default" in rate else "not run"
    if "mutmut, no shrink" in rate:
        print(f"  ratio drafter / mutmut (no shrink): {rate['drafter'] / rate['mutmut, no shrink']:.2f}x  "
              f"(default mutmut: {default}; goal >= 10x)")
    for variant in ("drafter, no replay", "drafter, no coverage skip"):
        if variant in rate and "mutmut, no shrink" in rate:
            print(f"  {variant} / mutmut (no shrink): {rate[variant] / rate['mutmut, no shrink']:.2f}x")

    matrix_cpu = statistics.median(r["matrix_cpu"] for r in rows["drafter"])
    sound_cpu = statistics.median(r["soundness_cpu"] for r in soundness)
    print("\nsoundness of the same candidates, one worker (medians):")
    print(f"  soundness CPU {sound_cpu:.2f}s (wall {statistics.median(r['soundness_wall'] for r in soundness):.2f}s, "
          f"{soundness[-1]['sound']} of {len(sound)} sound again), kill matrix CPU {matrix_cpu:.2f}s")
    print(f"  ratio soundness / kill matrix: {statistics.median(r['soundness_cpu'] / d['matrix_cpu'] for r, d in zip(soundness, rows['drafter'])):.2f}x  (goal <= 2x)")

    drafter_rate, drafter_made, targets = drafter_generation(src, max(5, args.reps))
    print("\nmutant generation (medians):")
    print(f"  drafter {drafter_rate:7.1f} mutants per CPU-s ({drafter_made} mutants of {targets} targets)")
    mutmut_rates = [r["mutants"] / r["generation_cpu"] for r in rows["mutmut, no shrink"] + rows["mutmut, default"]]
    if not mutmut_rates:
        print(f"total bench wall {time.perf_counter() - started:.0f}s")
        return
    mutmut_rate = statistics.median(mutmut_rates)
    print(f"  mutmut  {mutmut_rate:7.1f} mutants per CPU-s ({rows['mutmut, no shrink'][-1]['mutants']} mutants)")
    print(f"  ratio   {drafter_rate / mutmut_rate:7.2f}x  (goal >= 1.5x)")
    print(f"total bench wall {time.perf_counter() - started:.0f}s")


if __name__ == "__main__":
    main()
