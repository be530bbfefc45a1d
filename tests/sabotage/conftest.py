"""Helpers for the sabotage tests: Targets built with the stdlib `ast` (independently of libcst)."""

from __future__ import annotations

import ast
import hashlib
import sys
import types
from pathlib import Path

import pytest

from drafter.data import Param, Target

sys.dont_write_bytecode = True
SHOP = Path(__file__).resolve().parents[2] / "examples" / "shop"


def _targets_in(src: Path, file: str) -> list[Target]:
    tree = ast.parse((src / file).read_text(encoding="utf-8"))
    module = file.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
    found: list[Target] = []

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qualname = prefix + node.name
                args = node.args
                params = tuple(
                    Param(a.arg, "positional_or_keyword", ast.unparse(a.annotation) if a.annotation else None)
                    for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]
                )
                found.append(
                    Target(
                        id=f"{module}:{qualname}",
                        module=module,
                        qualname=qualname,
                        file=file,
                        line=node.lineno,
                        end_line=node.end_lineno,
                        params=params,
                        returns=ast.unparse(node.returns) if node.returns else None,
                        decorators=tuple(ast.unparse(d) for d in node.decorator_list),
                        docstring=ast.get_docstring(node),
                        is_async=isinstance(node, ast.AsyncFunctionDef),
                        fingerprint=qualname,
                    )
                )

    visit(tree.body, "")
    return found


def targets_of(src: Path) -> list[Target]:
    """Every function and method (nested classes included) of every module under src."""
    files = sorted(p.relative_to(src).as_posix() for p in src.rglob("*.py"))
    return [t for f in files for t in _targets_in(src, f)]


def target_of(src: Path, target_id: str) -> Target:
    return next(t for t in targets_of(src) if t.id == target_id)


def tree_hash(root: Path) -> str:
    """Hash of every file's path and bytes under root (a new __pycache__ changes it too)."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(path.relative_to(root).as_posix().encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def write_src(tmp_path: Path, files: dict[str, str]) -> Path:
    src = tmp_path / "src"
    for name, text in files.items():
        path = src / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return src


def load(source: str, name: str = "mutant") -> dict:
    """Execute a (mutated) module's source in a fresh namespace, as the kill matrix would import it."""
    module = types.ModuleType(name)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    try:
        exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    finally:
        del sys.modules[name]
    return module.__dict__


@pytest.fixture
def shop() -> Path:
    return SHOP


@pytest.fixture
def helpers():
    """The helpers above, as a fixture (test modules cannot import conftest under --import-mode=importlib)."""
    from types import SimpleNamespace

    return SimpleNamespace(
        targets_of=targets_of, target_of=target_of, tree_hash=tree_hash, write_src=write_src, load=load
    )


@pytest.fixture(scope="session")
def shop_run():
    """Every shop target's MutantSet plus the known-bad mutants, with the SRC hash taken before generating them."""
    from types import SimpleNamespace

    from sabotage import load_known_bad, mutants_for

    before = tree_hash(SHOP)
    targets = targets_of(SHOP)
    sets = {t.id: mutants_for(t, SHOP) for t in targets}
    known_bad, errors = load_known_bad(SHOP / "known_bad", SHOP, targets)
    return SimpleNamespace(hash_before=before, targets=targets, sets=sets, known_bad=known_bad, errors=errors)
