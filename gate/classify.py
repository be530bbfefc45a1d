"""Voting classifier: the write-set x import-graph rule.

A test votes only if it is outside the write-set and nothing it imports (the closure over project modules, its
conftest.py files included) is in the write-set. What the static graph cannot see (importlib, __import__, exec,
plugin loaders) makes the test non-voting. Frozen or quarantined tests in the ledger are witnesses.
"""

import os
from collections import deque
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import libcst as cst

from gate import gitutil
from gate.writeset import changes_since
from gate.check import Check

DYNAMIC_MODULES = frozenset({"importlib", "pkgutil", "runpy", "pkg_resources", "pluggy", "zipimport", "stevedore"})
DYNAMIC_CALLS = frozenset({"__import__", "exec", "eval", "import_module", "load_module", "exec_module",
                           "spec_from_file_location", "entry_points", "iter_entry_points",
                           "load_setuptools_entrypoints"})
PRUNED_DIRS = frozenset({".git", "__pycache__", "node_modules", ".hypothesis", ".pytest_cache"})


@dataclass(frozen=True)
class ModuleFacts:
    imports: tuple[str, ...]  # absolute dotted names this file may load (parents included)
    dynamic: tuple[str, ...]  # what the static graph cannot follow
    error: str | None = None


class _ImportVisitor(cst.CSTVisitor):
    def __init__(self, package: str) -> None:
        self.package = package
        self.names: list[str] = []
        self.dynamic: list[str] = []

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            self._add(_dotted(alias.name))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        base = _dotted(node.module) if node.module else ""
        if node.relative:
            parts = self.package.split(".") if self.package else []
            up = len(node.relative) - 1
            parts = parts[: len(parts) - up] if up <= len(parts) else []
            base = ".".join(p for p in parts + ([base] if base else []) if p)
        if base:
            self._add(base)
        if not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                self._add(f"{base}.{_dotted(alias.name)}" if base else _dotted(alias.name))

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        name = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else ""
        if name in DYNAMIC_CALLS:
            self.dynamic.append(f"calls {name}()")

    def _add(self, name: str) -> None:
        if name.split(".")[0] in DYNAMIC_MODULES:
            self.dynamic.append(f"imports {name}")
        parts = name.split(".")
        self.names += [".".join(parts[: i + 1]) for i in range(len(parts))]


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def module_names(rel: str) -> set[str]:
    """Every dotted name a file may be imported under: each suffix of its path (repository root, `src/`-style
    roots, pytest's rootdir insertion). Over-approximating only ever removes votes."""
    parts = list(PurePosixPath(rel).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return {".".join(parts[i:]) for i in range(len(parts))}


def _package_of(rel: str) -> str:
    path = PurePosixPath(rel)
    parts = list(path.parent.parts)
    return ".".join(parts)


class ImportGraph:
    """Project modules keyed by every dotted name they may carry, with their parsed import facts."""

    def __init__(self, root: Path, extra_paths: tuple[str, ...] = ()) -> None:
        self.root = root
        self.files = sorted(set(_python_files(root)) | {p for p in extra_paths if p.endswith(".py")})
        self.by_name: dict[str, set[str]] = {}
        for rel in self.files:
            for name in module_names(rel):
                self.by_name.setdefault(name, set()).add(rel)
        self._facts: dict[str, ModuleFacts] = {}

    def facts(self, rel: str) -> ModuleFacts:
        if rel not in self._facts:
            path = self.root / rel
            if not path.exists():
                self._facts[rel] = ModuleFacts((), ())
            else:
                try:
                    module = cst.parse_module(path.read_bytes())
                    visitor = _ImportVisitor(_package_of(rel))
                    module.visit(visitor)
                    self._facts[rel] = ModuleFacts(tuple(dict.fromkeys(visitor.names)), tuple(visitor.dynamic))
                except (OSError, cst.ParserSyntaxError) as exc:
                    self._facts[rel] = ModuleFacts((), (), f"cannot parse {rel}: {type(exc).__name__}")
        return self._facts[rel]

    def edges(self, rel: str) -> list[str]:
        targets = [t for name in self.facts(rel).imports for t in sorted(self.by_name.get(name, ()))]
        return [t for t in dict.fromkeys(targets) if t != rel]

    def closure(self, start: str) -> dict[str, str | None]:
        """Every project file reachable from start (its conftest.py files included), with the BFS parent."""
        parent: dict[str, str | None] = {start: None}
        for conftest in _conftests_above(self.root, start):
            parent.setdefault(conftest, start)
        queue = deque(parent)
        while queue:
            current = queue.popleft()
            for nxt in self.edges(current):
                if nxt not in parent:
                    parent[nxt] = current
                    queue.append(nxt)
        return parent


def _python_files(root: Path) -> list[str]:
    out = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in PRUNED_DIRS and not (Path(folder) / d / "pyvenv.cfg").exists())
        out += [(Path(folder) / f).relative_to(root).as_posix() for f in files if f.endswith(".py")]
    return out


def _conftests_above(root: Path, rel: str) -> list[str]:
    parts = PurePosixPath(rel).parent.parts
    found = []
    for i in range(len(parts) + 1):
        candidate = PurePosixPath(*parts[:i], "conftest.py").as_posix()
        if (root / candidate).is_file():
            found.append(candidate)
    return found


def _chain(parent: dict[str, str | None], end: str) -> str:
    steps = [end]
    while parent[steps[-1]] is not None:
        steps.append(parent[steps[-1]])
    return " -> ".join(reversed(steps))


def is_test_file(rel: str) -> bool:
    name = PurePosixPath(rel).name
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def classify_tests(root: Path, write_set: set[str], tests: tuple[str, ...],
                   witnesses: dict[str, str] | None = None) -> tuple[dict[str, str], dict[str, str]]:
    """(labels, reasons): every test file under the test folders labelled vote | non_voting | witness.
    witnesses maps ledger test ids (file or file::node) to the ledger's reason."""
    graph = ImportGraph(root, tuple(write_set))
    labels: dict[str, str] = {}
    reasons: dict[str, str] = {}
    test_files = [f for f in graph.files if is_test_file(f) and any(f.startswith(t.rstrip("/") + "/") for t in tests)]
    for test in test_files:
        label, reason = _classify_one(graph, test, write_set)
        labels[test], reasons[test] = label, reason
    for test_id, why in sorted((witnesses or {}).items()):
        file = test_id.split("::", 1)[0]
        if labels.get(file) == "vote" or test_id == file or file not in labels:
            labels[test_id], reasons[test_id] = "witness", why
    return labels, reasons


def _classify_one(graph: ImportGraph, test: str, write_set: set[str]) -> tuple[str, str]:
    if test in write_set:
        return "non_voting", "the test file itself is in the write-set"
    parent = graph.closure(test)
    for rel in parent:
        facts = graph.facts(rel)
        if facts.error:
            return "non_voting", f"{facts.error} (the import graph cannot be trusted)"
        if rel in write_set:
            return "non_voting", f"imports changed code: {_chain(parent, rel)}"
        if facts.dynamic:
            return "non_voting", f"dynamic import the static graph cannot follow: {facts.dynamic[0]} in {rel}"
    return "vote", f"outside the write-set; {len(parent) - 1} project modules imported, none changed"


def check_classify(repo: Path, base: str, tests: str = "tests", prod: str = "src,app,lib",
                   witnesses: dict[str, str] | None = None, oracle: str = "oracle") -> Check:
    """Classify every test against base..working tree. Zero voting tests blocks unless the oracle's properties,
    which the patch cannot touch and `oracle-gate run` runs from the base's copy, vote instead."""
    root = gitutil.repo_root(repo)
    write_set = {p for change in changes_since(root, base) for p in change.paths}
    test_dirs = tuple(t.strip().strip("/") for t in tests.split(",") if t.strip())
    labels, reasons = classify_tests(root, write_set, test_dirs, witnesses)
    votes = sum(1 for label in labels.values() if label == "vote")
    oracle_dir = oracle.strip("/")
    properties = [f for f in _python_files(root / oracle_dir) if is_test_file(f)] if (root / oracle_dir).is_dir() else []
    oracle_votes = bool(properties) and not any(f"{oracle_dir}/{f}" in write_set for f in properties)
    prod_trees = [p.strip().strip("/") for p in prod.split(",") if p.strip()]
    changed_prod = sorted(p for p in write_set if any(p.startswith(t + "/") for t in prod_trees))
    evidence = ([f"{votes} voting tests"] if votes else []) + (
        [f"{len(properties)} oracle property files under {oracle_dir}/ (outside the write-set)"] if oracle_votes else [])
    blocked = not evidence
    summary = [f"{votes} voting tests of {len(labels)}; evidence that votes: {', '.join(evidence) or 'none'}"] + [
        f"{t}: {labels[t]} ({reasons[t]})" for t in labels if labels[t] != "vote"]
    if blocked:
        summary.insert(0, "blocked: zero voting tests and no oracle properties outside the write-set")
    return Check("classify", not blocked, tuple(summary),
                 {"blocked": blocked, "vote_count": votes, "evidence": evidence, "tests": labels, "reasons": reasons,
                  "write_set": sorted(write_set), "changed_production": changed_prod})
