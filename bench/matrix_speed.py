"""Kill-matrix speed: the in-process engine against one fresh `pytest` per mutant, on examples/shop.

    python bench/matrix_speed.py [--reps 3] [--jobs N] [--naive-mutants 12]

Prints candidate x mutant evaluations per second for both, their ratio, and the engine's wall time
against the time spent inside test bodies. The naive rate is measured on an evenly spread sample of
the mutants (each naive evaluation costs a whole interpreter; the rate per pair is what compares).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
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

from drafter.data import Mutant, Rendered, Soundness  # noqa: E402
from drafter.killmatrix import build_kill_matrix  # noqa: E402
from drafter.soundness import check_soundness  # noqa: E402

SHOP = REPO / "examples" / "shop"
FIXTURES = Path(__file__).resolve().parent / "fixtures"  # plays the run folder: staged/<slug>/test_<name>.py
RUN_DIR = FIXTURES


# ---------------------------------------------------------------- inputs (the lead may point these at a real run)


def bench_inputs() -> tuple[list[Rendered], list[Mutant], Path]:
    """Rendered candidates (paths relative to RUN_DIR), their targets' mutants, and the source folder."""
    rendered = []
    for path in sorted((FIXTURES / "staged").glob("*/test_*.py")):
        slug, name = path.parent.name, path.stem
        module, _, qualname = _split_slug(slug)
        target = f"{module}:{qualname}"
        rendered.append(Rendered(f"{target}::{name[5:]}", target, path.relative_to(RUN_DIR).as_posix(), name,
                                 path.read_text()))
    targets = sorted({r.target for r in rendered})
    return rendered, _mutants(targets), SHOP


def _split_slug(slug: str) -> tuple[str, str, str]:
    parts = slug.split(".")
    for cut in range(len(parts) - 1, 0, -1):  # the longest prefix that is a module file of SHOP
        if (SHOP.joinpath(*parts[:cut]).with_suffix(".py")).exists():
            return ".".join(parts[:cut]), ":", ".".join(parts[cut:])
    raise ValueError(f"no module for {slug}")


def _mutants(targets: list[str]) -> list[Mutant]:
    if importlib.util.find_spec("sabotage.mutants") and importlib.util.find_spec("drafter.extract"):
        from drafter.extract import extract
        from sabotage.mutants import mutants_for

        extraction = extract(SHOP)
        return [m for t in targets for m in mutants_for(extraction.target(t), SHOP).mutants]
    return _hand_made_mutants(targets)


def _hand_made_mutants(targets: list[str]) -> list[Mutant]:
    """Fallback while sabotage.mutants is missing: a few libcst edits per target (operators swapped)."""
    import libcst as cst

    swaps = {cst.Add: cst.Subtract, cst.Subtract: cst.Add, cst.Multiply: cst.Add, cst.FloorDivide: cst.Multiply}
    compares = {cst.LessThan: cst.GreaterThan, cst.GreaterThan: cst.LessThan, cst.LessThanEqual: cst.LessThan,
                cst.NotEqual: cst.Equal, cst.Equal: cst.NotEqual, cst.NotIn: cst.In, cst.In: cst.NotIn}
    out = []
    for target in targets:
        module_name, qualname = target.split(":")
        file = module_name.replace(".", "/") + ".py"
        text = (SHOP / file).read_text()
        module = cst.parse_module(text)
        function = _find(module, qualname.split("."))
        nodes = [n for n in _walk(function) if type(getattr(n, "operator", None)) in swaps | compares]
        for n, node in enumerate(nodes, start=1):
            op = node.operator
            new_op = (swaps | compares)[type(op)]()
            source = module.deep_replace(node, node.with_changes(operator=new_op)).code
            out.append(Mutant(f"{target}#swap-{n}", target, "swap", f"{type(op).__name__} -> {type(new_op).__name__}",
                              "", module_name, file, source))
    return out


def _find(node, path):
    import libcst as cst

    body = node.body if isinstance(node, cst.Module) else node.body.body
    for statement in body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) and statement.name.value == path[0]:
            return statement if len(path) == 1 else _find(statement, path[1:])
    raise KeyError(".".join(path))


def _walk(node):
    import libcst as cst

    found = []

    class Collect(cst.CSTVisitor):
        def on_visit(self, n):
            found.append(n)
            return True

    node.visit(Collect())
    return found


# ---------------------------------------------------------------- the two ways


def engine(sound: list[tuple[Rendered, Soundness]], mutants: list[Mutant], source: Path, jobs: int | None):
    matrix = build_kill_matrix(sound, mutants, RUN_DIR, source, jobs=jobs, max_examples=100)
    return len(matrix.results), matrix


def naive(sound: list[tuple[Rendered, Soundness]], mutants: list[Mutant], source: Path) -> tuple[int, float]:
    """One fresh `python -m pytest` per mutant over a temp copy of SRC with the mutant written in."""
    pairs, started = 0, time.perf_counter()
    for mutant in mutants:
        tests = [r for r, _ in sound if r.target == mutant.target]
        if not tests:
            continue
        with tempfile.TemporaryDirectory(prefix="naive-") as tmp:
            copy = Path(tmp) / "source"
            shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__", "corpus"))
            (copy / mutant.file).write_text(mutant.source)
            files = []
            for r in tests:
                dest = Path(tmp) / "tests" / Path(r.path).parent.name / Path(r.path).name
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(RUN_DIR / r.path, dest)
                files.append(str(dest))
            (Path(tmp) / "pytest.ini").write_text("[pytest]\n")
            env = dict(os.environ, PYTHONPATH=str(copy), PYTHONDONTWRITEBYTECODE="1")
            subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--import-mode=importlib",
                            "-c", str(Path(tmp) / "pytest.ini"), *files],
                           cwd=tmp, env=env, capture_output=True, text=True)
        pairs += len(tests)
    return pairs, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--naive-mutants", type=int, default=12, help="mutants in the naive sample (0: all)")
    args = parser.parse_args()

    started = time.perf_counter()
    rendered, mutants, source = bench_inputs()
    clean = check_soundness(rendered, RUN_DIR, source, jobs=args.jobs)
    sound = [(r, s) for r, s in zip(rendered, clean) if s.status == "sound"]
    for r, s in zip(rendered, clean):
        if s.status != "sound":
            print(f"  not sound, left out: {r.candidate_id}: {s.status} {s.detail}")
    print(f"inputs: {len(sound)} sound candidates, {len(mutants)} mutants, "
          f"{sum(1 for m in mutants for r, _ in sound if r.target == m.target)} pairs")

    rates, walls, inside = [], [], []
    for _ in range(args.reps):
        pairs, matrix = engine(sound, mutants, source, args.jobs)
        rates.append(pairs / matrix.seconds)
        walls.append(matrix.seconds)
        inside.append(matrix.test_seconds)
    killed = sum(r.killed for r in matrix.results)
    print(f"engine: {statistics.median(rates):8.1f} pairs/s  (median of {args.reps}; wall {statistics.median(walls):.2f}s, "
          f"inside test bodies {statistics.median(inside):.2f}s summed over workers, "
          f"wall/test {statistics.median(w / t for w, t in zip(walls, inside)):.2f}; "
          f"{killed}/{len(matrix.results)} pairs killed, {len(matrix.fresh_process)} mutants in fresh processes, "
          f"{len(matrix.invalid)} invalid)")

    sample = mutants if args.naive_mutants <= 0 else mutants[:: max(1, len(mutants) // args.naive_mutants)][: args.naive_mutants]
    naive_pairs, naive_seconds = naive(sound, sample, source)
    naive_rate = naive_pairs / naive_seconds
    print(f"naive:  {naive_rate:8.1f} pairs/s  ({naive_pairs} pairs over {len(sample)} mutants in {naive_seconds:.1f}s, "
          "one fresh pytest per mutant)")
    print(f"ratio:  {statistics.median(rates) / naive_rate:8.1f}x  (goal >= 10x; total bench wall {time.perf_counter() - started:.1f}s)")


if __name__ == "__main__":
    main()
