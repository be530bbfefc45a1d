"""The heuristic proposer against `hypothesis write` (the ghostwriter), scored on the same mutants.

    python bench/proposer_vs_ghostwriter.py                 # every package under bench/vendor/
    python bench/proposer_vs_ghostwriter.py semver humanize # some of them
    python bench/proposer_vs_ghostwriter.py /tmp/src/pkg    # any package elsewhere (the folder holding it)
    python bench/proposer_vs_ghostwriter.py --select 'inflection:*'   # restrict targets (passed to the pipeline)

Per package: the whole pipeline with `--model heuristic` (2 workers, 50 examples, 5 seeds), then ghostwriter tests
(`hypothesis.extra.ghostwriter.magic`, i.e. `hypothesis write`) of the same targets, run through the same soundness
check and kill matrix on the same operator mutants (mutants are deterministic per target). Printed per package:
targets with a candidate, candidates, unsound, kept, distinct mutants killed (heuristic: by kept candidates, and
how many of those by a kept candidate's own assertion; ghostwriter: by any sound test, assertion or crash — it has
no assertions to keep by). The ghostwriter imports
the target (that is how it works); the heuristic never does. Needs `pip install -e '.[bench]'` (black).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.append(str(REPO))
sys.dont_write_bytecode = True

from drafter.config import Settings  # noqa: E402
from drafter.data import Rendered  # noqa: E402
from drafter.extract import extract  # noqa: E402
from drafter.killmatrix import build_kill_matrix  # noqa: E402
from drafter.pipeline import mutant_stage, run  # noqa: E402
from drafter.runfolder import copy_source  # noqa: E402
from drafter.soundness import check_soundness  # noqa: E402

VENDOR = REPO / "bench" / "vendor"
JOBS, MAX_EXAMPLES, SEEDS = 2, 50, 5
# Command-line entry points (argparse namespaces, printing, sys.exit) are not what either tool is for.
SKIPPED_MODULES = ("cli", "__main__")


# more-itertools: the recipes module (54 functions, stubs in recipes.pyi); more.py's 150 would take an hour here.
PACKAGE_SELECT = {"more_itertools": ("more_itertools.recipes:*",)}


def default_select(src: Path) -> tuple[str, ...]:
    """The package's chosen targets, else every target outside command-line modules, as --select patterns."""
    if src.name in PACKAGE_SELECT:
        return PACKAGE_SELECT[src.name]
    return tuple(t.id for t in extract(src).targets if t.module.rsplit(".", 1)[-1] not in SKIPPED_MODULES)


def heuristic_figures(src: Path, workspace: Path, select: tuple[str, ...]) -> tuple[dict, set[str]]:
    settings = Settings(model="heuristic", workspace=workspace, jobs=JOBS, max_examples=MAX_EXAMPLES, seeds=SEEDS,
                        select=select)
    result = run(src, settings)
    outcome = result.outcome
    items = [d for d in outcome.drafted if d.candidate is not None]
    kept = {d.id for d in items if d.verdict.stage == "kept"}
    statuses = Counter(outcome.soundness[d.id].status for d in items if d.id in outcome.soundness)
    killed = {r.mutant_id for r in outcome.matrix.results if r.candidate_id in kept and r.killed}
    by_assertion = {r.mutant_id for r in outcome.matrix.results if r.candidate_id in kept and r.outcome == "assertion"}
    reasons = Counter(f"{d.verdict.stage}:{d.verdict.reason}" for d in items if d.verdict.reason)
    figures = {"targets": len(outcome.draft.extraction.targets), "with_candidate": len({d.target for d in items}),
               "candidates": len(items), "unsound": statuses["unsound"],
               "not_run": sum(n for s, n in statuses.items() if s not in ("sound", "unsound")),
               "kept": len(kept), "killed": len(killed), "assertion_killed": len(by_assertion), "reasons": reasons,
               "mutants_faced": len([m for m in outcome.mutants if m.target])}
    return figures, killed


def ghostwrite(source_dir: Path, module: str, qualnames: list[str]) -> str:
    """`hypothesis write` of the module's targets, in a subprocess that imports the copy of SRC."""
    env = {**os.environ, "PYTHONPATH": str(source_dir), "PYTHONWARNINGS": "ignore"}
    proc = subprocess.run([sys.executable, __file__, "--ghostwrite", module, *qualnames], capture_output=True,
                          text=True, env=env, timeout=300)
    return proc.stdout if proc.returncode == 0 else ""


def _ghostwrite_main(module: str, qualnames: list[str]) -> None:
    import importlib

    from hypothesis.extra import ghostwriter

    mod = importlib.import_module(module)
    objects = []
    for qualname in qualnames:
        owner = getattr(mod, qualname.split(".")[0], None)
        if owner is not None and owner not in objects:
            objects.append(owner)  # a class: ghostwriter writes its constructor and class/static methods
    if objects:
        print(ghostwriter.magic(*objects))


def split_tests(source: str, module: str, qualnames: set[str]) -> tuple[str, dict[str, set[str]]]:
    """The file with every target reference rewritten to its defining module, and test name -> qualnames it calls.

    Ghostwriter names a function by its shortest public path (`humanize.naturalsize`); the kill matrix switches
    the defining module's binding (`humanize.filesize.naturalsize`), so the test must call that one."""
    tree = ast.parse(source)
    calls: dict[str, set[str]] = {}

    class Rewrite(ast.NodeTransformer):
        def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
            parts, inner = [node.attr], node.value
            while isinstance(inner, ast.Attribute):
                parts.append(inner.attr)
                inner = inner.value
            if isinstance(inner, ast.Name):
                dotted = [inner.id, *reversed(parts)]
                for width in (2, 1):
                    qualname = ".".join(dotted[-width:])
                    if qualname in qualnames and len(dotted) > width:
                        self.found.add(qualname)
                        return ast.parse(f"{module}.{'.'.join(dotted[len(dotted) - width:])}", mode="eval").body
            return self.generic_visit(node)

    rewrite = Rewrite()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            rewrite.found = set()
            rewrite.visit(node)
            calls[node.name] = set(rewrite.found)
    tree.body.insert(0, ast.parse(f"import {module}").body[0])
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n", calls


def ghostwriter_figures(src: Path, workspace: Path, select: tuple[str, ...]) -> tuple[dict, set[str], list]:
    extraction = extract(src)
    targets = [t for t in extraction.targets if not select or any(_matches(t.id, s) for s in select)]
    run_dir = Path(tempfile.mkdtemp(dir=workspace))
    source_dir = copy_source(src, run_dir / "source")
    rendered: list[Rendered] = []
    by_module: dict[str, list] = {}
    for target in targets:
        by_module.setdefault(target.module, []).append(target)
    for module, module_targets in sorted(by_module.items()):
        text = ghostwrite(source_dir, module, [t.qualname for t in module_targets])
        if not text.strip():
            continue
        try:
            rewritten, calls = split_tests(text, module, {t.qualname for t in module_targets})
        except SyntaxError:
            continue
        path = f"staged/ghostwriter/test_{module.replace('.', '_')}.py"
        (run_dir / path).parent.mkdir(parents=True, exist_ok=True)
        (run_dir / path).write_text(rewritten)
        for test, qualnames in sorted(calls.items()):
            for qualname in sorted(qualnames):
                target = next(t for t in module_targets if t.qualname == qualname)
                rendered.append(Rendered(f"{target.id}::gw:{test}", target.id, path, test, rewritten))
    checks = check_soundness(rendered, run_dir, source_dir, seeds=SEEDS, max_examples=MAX_EXAMPLES, jobs=JOBS)
    statuses = Counter(c.status for c in checks)
    by_id = {r.candidate_id: r for r in rendered}
    sound = [(by_id[c.candidate_id], c) for c in checks if c.status == "sound"]
    facing = {r.target for r, _ in sound}
    warnings: list[str] = []
    mutants, _ = mutant_stage(extraction, source_dir, None, warnings, facing)
    matrix = build_kill_matrix(sound, mutants, run_dir, source_dir, jobs=JOBS, max_examples=MAX_EXAMPLES)
    killed = {r.mutant_id for r in matrix.results if r.killed}
    assertion = {r.mutant_id for r in matrix.results if r.outcome == "assertion"}
    figures = {"targets": len(targets), "with_candidate": len({r.target for r in rendered}),
               "candidates": len(rendered), "unsound": statuses["unsound"],
               "not_run": sum(n for s, n in statuses.items() if s not in ("sound", "unsound")),
               "kept": len(sound), "killed": len(killed), "assertion_killed": len(assertion),
               "mutants_faced": len(mutants)}
    return figures, killed, mutants


def _matches(target_id: str, pattern: str) -> bool:
    from fnmatch import fnmatchcase

    return fnmatchcase(target_id, pattern)


def compare(src: Path, select: tuple[str, ...]) -> dict:
    select = select or default_select(src)
    with tempfile.TemporaryDirectory() as workspace:
        heuristic, h_killed = heuristic_figures(src, Path(workspace) / "h", select)
        ghost, g_killed, _ = ghostwriter_figures(src, Path(workspace), select)
    return {"heuristic": heuristic, "ghostwriter": ghost, "both": len(h_killed & g_killed),
            "only_heuristic": len(h_killed - g_killed), "only_ghostwriter": len(g_killed - h_killed)}


def show(name: str, result: dict) -> None:
    h, g = result["heuristic"], result["ghostwriter"]
    print(f"## {name}: {h['targets']} targets")
    print(f"{'':12} {'with cand.':>10} {'cand.':>6} {'unsound':>8} {'not run':>8} {'kept':>5} {'killed':>7} {'faced':>6}")
    for label, f in (("heuristic", h), ("ghostwriter", g)):
        print(f"{label:12} {f['with_candidate']:>10} {f['candidates']:>6} {f['unsound']:>8} {f['not_run']:>8} "
              f"{f['kept']:>5} {f['killed']:>7} {f['mutants_faced']:>6}")
    share = 100 * h["unsound"] / max(h["candidates"], 1)
    ratio = h["killed"] / g["killed"] if g["killed"] else float("inf")
    print(f"heuristic unsound {share:.0f}%; kills heuristic/ghostwriter = {ratio:.2f}x, {h['assertion_killed']} of the "
          f"heuristic's by a kept candidate's assertion "
          f"(both {result['both']}, only heuristic {result['only_heuristic']}, only ghostwriter "
          f"{result['only_ghostwriter']}; ghostwriter 'kept' = sound tests, {g['assertion_killed']} of its kills "
          f"by an assertion)")
    print("heuristic rejections: " + ", ".join(f"{r} {n}" for r, n in sorted(h["reasons"].items())))


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--ghostwrite":
        _ghostwrite_main(sys.argv[2], sys.argv[3:])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("packages", nargs="*", help="folders under bench/vendor, or paths (default: all vendored)")
    parser.add_argument("--select", action="append", default=[], help="target id glob, as drafter --select")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    names = args.packages or sorted(p.name for p in VENDOR.iterdir() if p.is_dir())
    import drafter
    print(f"drafter from {Path(drafter.__file__).parent}")
    results = {}
    for name in names:
        # A folder holding a package or module (unpacked from PyPI, say), else a name under bench/vendor.
        src = Path(name) if "/" in name or not (VENDOR / name).is_dir() else VENDOR / name
        results[name] = compare(src, tuple(args.select))
        show(name, results[name])
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, default=dict) + "\n")


if __name__ == "__main__":
    main()
