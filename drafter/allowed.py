"""The allow-lists shared by lint (what a candidate may name) and render (where each name is imported from)."""

from __future__ import annotations

import builtins
import sys

import hypothesis.strategies

# Pure stdlib modules a candidate may use by module name (`math.isclose`, `decimal.Decimal`).
PURE_STDLIB = ("math", "decimal", "fractions", "string", "itertools", "functools", "operator", "collections", "datetime", "re")

# Well-known names of those modules usable bare; render imports them with `from <module> import <name>`.
STDLIB_BARE_NAMES: dict[str, str] = {
    **{
        name: "decimal"
        for name in (
            "Decimal", "InvalidOperation", "DivisionByZero", "Inexact", "Rounded", "localcontext", "getcontext",
            "ROUND_HALF_EVEN", "ROUND_HALF_UP", "ROUND_HALF_DOWN", "ROUND_UP", "ROUND_DOWN",
            "ROUND_CEILING", "ROUND_FLOOR", "ROUND_05UP",
        )
    },
    "Fraction": "fractions",
    **{name: "collections" for name in ("Counter", "OrderedDict", "defaultdict", "deque", "namedtuple", "ChainMap")},
    # `datetime` is both a module and a class: render decides from how it is used (see render.stdlib_import).
    **{name: "datetime" for name in ("date", "timedelta", "timezone")},
    **{name: "functools" for name in ("reduce", "partial")},
    **{
        name: "string"
        for name in ("ascii_letters", "ascii_lowercase", "ascii_uppercase", "digits", "hexdigits", "punctuation")
    },
}

# Names hypothesis provides to the test file; `st` attributes must be real strategy names.
HYPOTHESIS_NAMES = ("st", "assume")
STRATEGY_NAMES = frozenset(hypothesis.strategies.__all__)

# pytest is the runner, not a library: only its error-contract helpers are allowed.
PYTEST_ATTRS = frozenset({"raises", "approx"})

# Builtins that reach outside the value world (code execution, I/O, introspection of frames/scopes).
FORBIDDEN_BUILTINS = frozenset(
    {
        "eval", "exec", "compile", "__import__", "open", "input", "breakpoint", "globals", "locals", "vars",
        "setattr", "delattr", "exit", "quit", "help", "copyright", "credits", "license", "memoryview",
        "__build_class__", "__loader__", "__spec__", "__builtins__", "__debug__",
    }
)
ALLOWED_BUILTINS = frozenset(n for n in dir(builtins) if not n.startswith("_") and n not in FORBIDDEN_BUILTINS)

# Names that never belong in a candidate even though Python would accept them.
FORBIDDEN_MODULES = frozenset(sys.stdlib_module_names) - set(PURE_STDLIB)

# Reading golden data: files, fixtures, corpus.
GOLDEN_NAMES = frozenset(
    {"open", "pathlib", "Path", "PurePath", "os", "glob", "shutil", "io", "fileinput", "tempfile",
     "request", "tmp_path", "tmp_path_factory", "tmpdir", "tmpdir_factory", "datadir", "shared_datadir",
     "original_datadir", "pytestconfig", "capsys", "monkeypatch"}
)
GOLDEN_ATTRS = frozenset({"read_text", "read_bytes", "open", "readlines", "iterdir", "glob", "rglob"})
GOLDEN_JSON_LOADERS = frozenset({"load", "loads"})

# Strategies that need an explicit, literal max_size no larger than the cap.
SIZED_STRATEGIES = frozenset({"text", "binary", "lists", "sets", "frozensets", "dictionaries", "iterables"})
MAX_COLLECTION_SIZE = 50

# Values an expected-value comparison may use without being a recorded result.
TRIVIAL_LITERALS = (0, 1, -1, None, True, False, "", b"")


def is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__") and len(name) > 4


def target_names(module_names: tuple[str, ...], target_name: str, owner: str | None) -> frozenset[str]:
    """What a candidate of one target may name from SRC: its module's public names, itself and its class."""
    names = set(module_names)
    names.add(owner or target_name)
    return frozenset(names)
