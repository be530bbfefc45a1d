"""Put a mutant in place inside a live, imported module and take it out again.

The mutated function's code object replaces the ``__code__`` of the LIVE function object, so every
reference the tests already hold (``from shop.billing import apply_tax``, ``Envelope.to_dict``) runs
the mutant. Module-level code is never re-executed. Whatever cannot be switched this way safely
raises ``SwitchUnsafe`` with a reason, and the caller runs that mutant in a fresh process instead.
"""

from __future__ import annotations

import __future__
import ast
import functools
import inspect
import operator
import symtable
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


class SwitchUnsafe(Exception):
    """This mutant cannot be switched in-process safely; the message says why."""


class MutantInvalid(Exception):
    """The mutated module source does not compile."""


class SwitchProbe(Exception):
    """Raised by the forced-fail stand-in: proof that tests really run the switched code."""


PROBE_CALLS = [0]  # how often a forced-fail stand-in was entered in this process


def _probe(qualname: str) -> SwitchProbe:
    PROBE_CALLS[0] += 1
    return SwitchProbe(qualname)


def count_calls(code: types.CodeType):
    """A profile hook counting frames that run `code`, and the counter it fills."""
    counter = [0]

    def hook(frame: types.FrameType, event: str, arg: object) -> None:
        if event == "call" and frame.f_code is code:
            counter[0] += 1

    return hook, counter


@dataclass(frozen=True)
class Switch:
    """A prepared swap: the live function and the code object that replaces its own."""

    live: types.FunctionType
    code: types.CodeType
    cache_clearers: tuple[Callable[[], None], ...] = ()


@contextmanager
def switched_in(switch: Switch) -> Iterator[None]:
    """The mutant is live inside the block; the original code is back afterwards, whatever happens."""
    saved = switch.live.__code__
    _clear(switch.cache_clearers)
    switch.live.__code__ = switch.code
    try:
        yield
    finally:
        switch.live.__code__ = saved
        _clear(switch.cache_clearers)


def prepare_switch(module: types.ModuleType, qualname: str, mutated_source: str, body_only: bool = False) -> Switch:
    """Compile the mutated module and pick the target's code object out of it, without running it.

    MutantInvalid: the source does not compile. SwitchUnsafe: anything other than the body of
    `qualname` changed (checked here unless the generator already knows, `body_only`), the live function
    cannot be found, or its closure does not fit the new code.
    """
    filename = getattr(module, "__file__", None)
    if not filename:
        raise SwitchUnsafe(f"module {module.__name__} has no source file")
    place = _function_place(filename, qualname) if body_only else None
    piece = place.piece(mutated_source) if place is not None else None
    mutated_code = _compiled(module, filename, mutated_source if piece is None else piece, place if piece else None)
    if not body_only:
        _require_only_body_changed(filename, mutated_source, qualname)
    live, clearers = find_live_function(module, qualname)

    original_codes = _codes_named(_original_code(filename), qualname)
    mutated_codes = _codes_named(mutated_code, qualname)
    if len(original_codes) != len(mutated_codes):
        raise SwitchUnsafe(f"{qualname} is defined {len(original_codes)} time(s) in the original, "
                           f"{len(mutated_codes)} in the mutant")
    lines = [c.co_firstlineno for c in original_codes]
    if live.__code__.co_firstlineno not in lines:
        raise SwitchUnsafe(f"the loaded {module.__name__} does not match its source file")
    code = mutated_codes[lines.index(live.__code__.co_firstlineno)]
    if code.co_freevars != live.__code__.co_freevars:
        raise SwitchUnsafe(f"closure mismatch for {qualname}: free variables {live.__code__.co_freevars} "
                           f"in the original, {code.co_freevars} in the mutant")
    return Switch(live, code, clearers)


def _compiled(module: types.ModuleType, filename: str, source: str, place: _Place | None) -> types.CodeType:
    try:
        if place is None:
            return compile(source, filename, "exec", dont_inherit=True)
        return compile(source, filename, "exec", flags=place.flags, dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        raise MutantInvalid(f"mutated {module.__name__} does not compile: {exc}") from None


_FUTURE_FLAGS = functools.reduce(operator.or_, (getattr(__future__, name).compiler_flag
                                                for name in __future__.all_feature_names))


@dataclass(frozen=True)
class _Place:
    """Where the only definition of a function sits in its module's text, so a mutant of its body is compiled
    as that function alone: the text before and after it (which a body-only mutant keeps), and one header line
    per enclosing class or block so the function compiles in the same scopes (name mangling, `__class__`) at
    the same line numbers, with the module's `from __future__` flags."""

    before: str
    after: str
    headers: str
    flags: int

    def piece(self, mutated_source: str) -> str | None:
        """The source to compile for this mutant, or None when it changed text outside the function."""
        if (len(mutated_source) < len(self.before) + len(self.after) or not mutated_source.startswith(self.before)
                or not mutated_source.endswith(self.after)):
            return None
        return self.headers + mutated_source[len(self.before): len(mutated_source) - len(self.after)]


@functools.lru_cache(maxsize=256)
def _function_place(filename: str, qualname: str) -> _Place | None:
    """None when the function cannot be compiled alone the same way: defined more than once, nested in a
    function, or its lines do not split as the compiler counts them."""
    text = Path(filename).read_text(encoding="utf-8")
    found = [(node, ancestors) for node, ancestors, name in _definitions(ast.parse(text).body, (), "")
             if name == qualname]
    if len(found) != 1 or "\r" in text:
        return None
    node, ancestors = found[0]
    lines = text.split("\n")
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    headers: list[str] = []
    depth = -1
    for enclosing in ancestors:  # an `elif` or `except` block sits at its statement's depth: one header for both
        line = lines[enclosing.lineno - 1]
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        if len(indent) > depth:
            depth = len(indent)
            headers.append(indent + (f"class {enclosing.name}:\n" if isinstance(enclosing, ast.ClassDef) else "if 1:\n"))
    # The compiler reads one thing from the module's scope: which global names an import binds (it then loads
    # their attributes without LOAD_METHOD). A never-run import line among the blank lines binds the same.
    imported = [s.get_name() for s in symtable.symtable(text, filename, "exec").get_symbols() if s.is_imported()]
    padding = first - 1 - len(headers)
    if padding < (1 if imported else 0):
        return None
    lead = "import " + ", ".join(f"_ as {name}" for name in imported) + "\n" * padding if imported else "\n" * padding
    start = sum(len(line) + 1 for line in lines[: first - 1])
    end = sum(len(line) + 1 for line in lines[: node.end_lineno])
    flags = _original_code(filename).co_flags & _FUTURE_FLAGS
    return _Place(text[:start], text[end:], lead + "".join(headers), flags)


def _definitions(body: list, ancestors: tuple, scope: str):
    """(def, enclosing statements, qualname) of every def not nested in another def."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node, ancestors, scope + node.name
            continue
        inner_scope = scope + node.name + "." if isinstance(node, ast.ClassDef) else scope
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(node, field, None) or ():
                if isinstance(child, (ast.excepthandler, ast.match_case)):
                    yield from _definitions(child.body, ancestors + (node,), inner_scope)
                elif isinstance(child, ast.stmt):
                    yield from _definitions([child], ancestors + (node,), inner_scope)


def prepare_forced_fail(module: types.ModuleType, qualname: str) -> Switch:
    """A stand-in for the target that raises SwitchProbe on every call (same free variables)."""
    live, clearers = find_live_function(module, qualname)
    freevars = live.__code__.co_freevars
    # The stand-in runs with the target module's globals, so it reaches SwitchProbe through __import__.
    stub = "\n".join(
        ["def _outer():"]
        + [f"    {name} = None" for name in freevars]
        + ["    def _stand_in(*args, **kwargs):"]
        + [f"        {name}" for name in freevars]
        + [f"        raise __import__('sabotage.switch', fromlist=['_'])._probe({qualname!r})",
           "    return _stand_in"]
    )
    namespace: dict = {}
    exec(compile(stub, live.__code__.co_filename, "exec", dont_inherit=True), namespace)
    code = namespace["_outer"]().__code__
    if code.co_freevars != freevars:
        raise SwitchUnsafe(f"cannot build a forced-fail stand-in with free variables {freevars}")
    return Switch(live, code.replace(co_name=live.__code__.co_name, co_qualname=qualname), clearers)


def find_live_function(module: types.ModuleType, qualname: str) -> tuple[types.FunctionType, tuple]:
    """The plain function object behind `qualname`, through classes, descriptors and decorators.

    Also returns the cache_clear of every caching layer met on the way (an lru_cache would
    otherwise answer from results computed by the original code).
    """
    *owners, name = qualname.split(".")
    holder: object = module
    for part in owners:
        holder = getattr(holder, part, None)
        if not inspect.isclass(holder):
            raise SwitchUnsafe(f"cannot find class {part} of {qualname} in {module.__name__}")
    try:
        obj = inspect.getattr_static(holder, name)
    except AttributeError:
        raise SwitchUnsafe(f"cannot find {qualname} in {module.__name__}") from None
    clearers: list[Callable[[], None]] = []
    seen: set[int] = set()
    pending = [obj]
    while pending:
        obj = pending.pop(0)
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if callable(getattr(obj, "cache_clear", None)):
            clearers.append(obj.cache_clear)
        if isinstance(obj, types.FunctionType) and obj.__code__.co_qualname == qualname:
            return obj, tuple(clearers)
        pending.extend(_unwrapped(obj))
    raise SwitchUnsafe(f"cannot reach the function object of {qualname} through its decorators")


def _unwrapped(obj: object) -> list[object]:
    """What a descriptor or decorator wraps: the places the real function may hide."""
    if isinstance(obj, (staticmethod, classmethod)):
        return [obj.__func__]
    if isinstance(obj, property):
        return [f for f in (obj.fget, obj.fset, obj.fdel) if f is not None]
    if isinstance(obj, functools.cached_property):
        return [obj.func]
    inner = []
    if hasattr(obj, "__wrapped__"):
        inner.append(obj.__wrapped__)
    if isinstance(obj, functools.partial):
        inner.append(obj.func)
    # A decorator without functools.wraps keeps the function in its wrapper's closure.
    for cell in getattr(obj, "__closure__", None) or ():
        try:
            inner.append(cell.cell_contents)
        except ValueError:  # empty cell
            pass
    return inner


def _codes_named(code: types.CodeType, qualname: str) -> list[types.CodeType]:
    found = [code] if code.co_qualname == qualname else []
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found.extend(_codes_named(const, qualname))
    return found


def _clear(clearers: tuple[Callable[[], None], ...]) -> None:
    for clear in clearers:
        clear()


@functools.lru_cache(maxsize=64)
def _original_code(filename: str) -> types.CodeType:
    """The module's original code, compiled once per worker (the source copy never changes during a run)."""
    return compile(Path(filename).read_text(encoding="utf-8"), filename, "exec", dont_inherit=True)


@functools.lru_cache(maxsize=64)
def _blanked_original(filename: str, qualname: str) -> str:
    return _blanked(Path(filename).read_text(encoding="utf-8"), qualname, "original")


def _blanked(source: str, qualname: str, which: str) -> str:
    """The module's tree with the body of every definition of `qualname` emptied, as text."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise MutantInvalid(f"does not parse: {exc}") from None
    blanker = _BodyBlanker(qualname)
    blanker.visit(tree)
    if not blanker.found:
        raise SwitchUnsafe(f"{qualname} is not defined in the {which} source")
    return ast.dump(tree)


class _BodyBlanker(ast.NodeVisitor):
    """Empties the body of every definition of one qualname (in place)."""

    def __init__(self, qualname: str) -> None:
        self.qualname = qualname
        self.stack: list[str] = []
        self.found = 0

    def _scope(self, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.stack.append(node.name)
        # Nested functions get "<locals>" in real qualnames; the target is never nested, so a plain join is enough.
        if ".".join(self.stack) == self.qualname and not isinstance(node, ast.ClassDef):
            self.found += 1
            node.body = []
        self.generic_visit(node)
        self.stack.pop()

    visit_ClassDef = visit_FunctionDef = visit_AsyncFunctionDef = _scope


def _require_only_body_changed(filename: str, mutated: str, qualname: str) -> None:
    """For patches from elsewhere (known-bad): operator mutants are body-only by construction."""
    if _blanked_original(filename, qualname) != _blanked(mutated, qualname, "mutated"):
        raise SwitchUnsafe(f"the mutant changes code outside the body of {qualname} "
                           "(module level, signature, defaults or decorators)")
