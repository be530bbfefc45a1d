"""Helpers for the execution-engine tests: a tiny source package and hand-written rendered tests."""

from __future__ import annotations

import hashlib
import importlib
import sys
import textwrap
from pathlib import Path

import pytest

from drafter.data import Mutant, Rendered, Soundness

CALC = '''\
"""A tiny package for engine tests."""
import functools

SCALE = 2


def double(x):
    return x * SCALE


def absolute(x):
    if x < 0:
        return -x
    return x


def _traced(fn):
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


@_traced
def triple(x):
    return x * 3


@functools.lru_cache(maxsize=None)
def square(x):
    return x * x


class Counter:
    def __init__(self, start=0):
        self.value = start

    def bump(self, by):
        return Counter(self.value + by)

    @staticmethod
    def zero():
        return 0

    @property
    def twice(self):
        return self.value * 2


class Child(Counter):
    def bump(self, by):
        return super().bump(by * 1)


def countdown(n):
    while n > 0:
        yield n
        n -= 1


async def fetch(x):
    return x + 1


def make_adder(k):
    def add(x):
        return x + k
    return add
'''


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.fixture
def pkg(tmp_path: Path) -> tuple[Path, str]:
    """A source folder with a uniquely named package (tests may import it in this process)."""
    name = "calc_" + hashlib.sha1(str(tmp_path).encode()).hexdigest()[:8]
    source = tmp_path / "source"
    write(source / name / "__init__.py", "")
    write(source / name / "core.py", CALC)
    return source, name


@pytest.fixture
def imported(pkg):
    """Import the tiny package in this process; sys.path and sys.modules are cleaned afterwards."""
    source, name = pkg
    sys.path.insert(0, str(source))
    sys.dont_write_bytecode = True
    try:
        yield importlib.import_module(f"{name}.core")
    finally:
        sys.path.remove(str(source))
        for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[mod]


def rendered(run_dir: Path, pkg_name: str, target: str, test_name: str, body: str, *,
             imports: str = "", given: str = "x=st.integers(-1000, 1000)") -> Rendered:
    """Write a rendered-style test file under run_dir/staged/<slug>/ and describe it."""
    slug = f"{pkg_name}.core.{target}"
    rel = f"staged/{slug}/test_{test_name}.py"
    source = (
        "from hypothesis import assume, given, settings, strategies as st\n"
        f"from {pkg_name}.core import *\n{textwrap.dedent(imports)}\n\n"
        "@settings(max_examples=50, deadline=None, database=None)\n"
        f"@given({given})\n"
        f"def test_{test_name}({given.split('=')[0] if '=' in given else ''}):\n"
        + textwrap.indent(textwrap.dedent(body).strip() + "\n", "    ")
    )
    write(run_dir / rel, source)
    return Rendered(f"{pkg_name}.core:{target}::{test_name}", f"{pkg_name}.core:{target}", rel,
                    f"test_{test_name}", source)


def mutant(source_dir: Path, pkg_name: str, target: str, mid: str, old: str, new: str) -> Mutant:
    """A mutant of core.py made by replacing one exact snippet (test data, not code analysis)."""
    original = (source_dir / pkg_name / "core.py").read_text()
    assert original.count(old) == 1, old
    return Mutant(
        id=f"{pkg_name}.core:{target}#{mid}", target=f"{pkg_name}.core:{target}" if target else "",
        operator=mid, description=mid, diff="", module=f"{pkg_name}.core", file=f"{pkg_name}/core.py",
        source=original.replace(old, new),
    )


def sound(r: Rendered, seconds: float = 0.05) -> tuple[Rendered, Soundness]:
    return r, Soundness(r.candidate_id, "sound", seconds)


def tree_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(str(path.relative_to(root)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


class Kit:
    """The helpers above, handed to tests as a fixture (importlib mode: tests cannot import conftest)."""

    write = staticmethod(write)
    rendered = staticmethod(rendered)
    mutant = staticmethod(mutant)
    sound = staticmethod(sound)
    tree_hash = staticmethod(tree_hash)


@pytest.fixture
def kit() -> type[Kit]:
    return Kit
