"""The worker side of triage: call the original and the switched-in mutant on one input and say how they differ.

A triage test file (rendered by sabotage.triage, run by the engine like any test, with the mutant switched in)
calls `compare` in its body. The mutant is the live function's code; the original's code is compiled again from
the run folder's untouched source copy and put in place for the original's calls only. The first difference
raises `Difference`, so Hypothesis shrinks the input; its message carries the call and both outcomes as JSON.
"""

from __future__ import annotations

import copy
import functools
import importlib
import itertools
import json
import math
import sys
import types
from pathlib import Path

MARK = "drafter-difference:"
REPR_CHARS = 200
ITEMS_TAKEN = 1000  # of an iterator a function returns: enough to tell them apart, never an endless stream


class Difference(AssertionError):
    """Original and mutant behave differently on this input (the message says how)."""


class _Uncopyable(Exception):
    pass


def compare(module_name: str, qualname: str, file: str, args: tuple, kwargs: dict) -> None:
    """Raise Difference when original and mutant differ on `args`/`kwargs`: result (== with NaN equal to NaN),
    exception class, or an argument changed in place differently. An input on which the original disagrees with
    itself (time, randomness, identity) is rejected: it tells nothing. `file`: the target's module, relative to SRC."""
    from hypothesis import reject

    live, clearers, entry = _functions(module_name, qualname)
    mutant_code = live.__code__
    # The calling test file lives in <run folder>/triage/<target>/, the untouched source copy in <run folder>/source/.
    original_file = Path(sys._getframe(1).f_code.co_filename).resolve().parents[2] / "source" / file
    original_code = _original_code(str(original_file), qualname, mutant_code.co_firstlineno)
    try:
        first = _observe(entry, live, original_code, clearers, args, kwargs)
        again = _observe(entry, live, original_code, clearers, args, kwargs)
        other = _observe(entry, live, mutant_code, clearers, args, kwargs)
    except _Uncopyable:
        reject()
    finally:
        live.__code__ = mutant_code
    if not _same(first, again):
        reject()
    how = _how_differ(first, other)
    if how:
        shown = _call_text(qualname.rsplit(".", 1)[-1], args, kwargs)
        argument = how == "argument"
        payload = {"call": shown, "difference": how, "original": _describe(first, argument),
                   "mutant": _describe(other, argument)}
        raise Difference(MARK + json.dumps(payload))


@functools.lru_cache(maxsize=64)
def _functions(module_name: str, qualname: str) -> tuple:
    """The live function object (whose code the engine swaps), its cache clearers, and what a caller calls
    (decorators included); the same objects for every mutant of the target, only their code changes."""
    from sabotage import switch

    module = importlib.import_module(module_name)
    live, clearers = switch.find_live_function(module, qualname)
    return live, clearers, functools.reduce(getattr, qualname.split("."), module)


@functools.lru_cache(maxsize=64)
def _original_code(filename: str, qualname: str, first_line: int) -> types.CodeType:
    from sabotage import switch

    codes = switch._codes_named(switch._original_code(filename), qualname)
    same_line = [c for c in codes if c.co_firstlineno == first_line]
    if same_line or len(codes) == 1:
        return (same_line or codes)[0]
    raise LookupError(f"cannot find the original {qualname} in {filename}")


def _observe(entry, live, code: types.CodeType, clearers, args: tuple, kwargs: dict) -> tuple:
    """("returned", value, args after) | ("iterated", items, raised, args after) | ("raised", class, message, args after)."""
    try:
        args, kwargs = copy.deepcopy((args, kwargs))
    except Exception as exc:  # noqa: BLE001 - an input that cannot be copied cannot be given to both
        raise _Uncopyable(str(exc)) from None
    for clear in clearers:
        clear()
    live.__code__ = code
    try:
        value = entry(*args, **kwargs)
        if _is_iterator(value):
            items: list = []
            try:
                items.extend(itertools.islice(value, ITEMS_TAKEN))
            except Exception as exc:  # noqa: BLE001 - raising part-way is part of the outcome
                return ("iterated", items, _exception_name(exc), (args, kwargs))
            return ("iterated", items, "", (args, kwargs))
        return ("returned", value, (args, kwargs))
    except Exception as exc:  # noqa: BLE001 - an exception is an outcome; BaseException (the budget) passes
        return ("raised", _exception_name(exc), str(exc), (args, kwargs))


def _is_iterator(value) -> bool:
    try:
        return hasattr(value, "__next__") and iter(value) is value
    except Exception:  # noqa: BLE001
        return False


def _exception_name(exc: BaseException) -> str:
    kind = type(exc)
    return kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


def _same(a: tuple, b: tuple) -> bool:
    return not _how_differ(a, b)


def _how_differ(a: tuple, b: tuple) -> str:
    """"" when the outcomes are the same; else "result", "exception" or "argument"."""
    if a[0] != b[0]:
        return "exception" if "raised" in (a[0], b[0]) else "result"
    if a[0] == "raised":
        if a[1] != b[1]:
            return "exception"
    elif a[0] == "iterated":
        if not same_value(a[1], b[1]):
            return "result"
        if a[2] != b[2]:
            return "exception"
    elif not same_value(a[1], b[1]):
        return "result"
    return "" if same_value(a[-1], b[-1]) else "argument"


def same_value(a, b, depth: int = 0) -> bool:
    """==, except that NaN equals NaN (at any depth of lists, tuples and dicts) and instances without their own
    __eq__ compare by their attributes; a comparison that raises or is not a bool falls back on repr."""
    if a is b:
        return True
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, complex) and isinstance(b, complex):
        return same_value(a.real, b.real) and same_value(a.imag, b.imag)
    if depth < 50 and type(a) is type(b):
        if isinstance(a, (list, tuple)):
            return len(a) == len(b) and all(same_value(x, y, depth + 1) for x, y in zip(a, b))
        if isinstance(a, dict):
            return a.keys() == b.keys() and all(same_value(a[k], b[k], depth + 1) for k in a)
    try:
        equal = a == b
        if isinstance(equal, bool):
            if equal or type(a) is not type(b) or type(a).__eq__ is not object.__eq__:
                return equal
            if hasattr(a, "__dict__") and depth < 50:
                return same_value(vars(a), vars(b), depth + 1)
            return False
    except Exception:  # noqa: BLE001 - a comparison that raises says nothing either way
        pass
    return _repr(a) == _repr(b)


def _repr(value, limit: int = REPR_CHARS) -> str:
    try:
        text = repr(value)
    except Exception as exc:  # noqa: BLE001
        text = f"<unrepresentable {type(value).__name__}: {type(exc).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _describe(outcome: tuple, with_arguments: bool) -> str:
    if outcome[0] == "raised":
        text = f"raises {outcome[1]}" + (f": {outcome[2]}" if outcome[2] else "")
    elif outcome[0] == "iterated":
        text = f"yields {_repr(outcome[1])}" + (f", then raises {outcome[2]}" if outcome[2] else "")
    else:
        text = f"returns {_repr(outcome[1])}"
    if not with_arguments:
        return _clip(text)
    args, kwargs = outcome[-1]
    return _clip(text) + f"; arguments afterwards: {_call_text('', args, kwargs)}"


def _call_text(name: str, args: tuple, kwargs: dict) -> str:
    parts = [_repr(a) for a in args] + [f"{k}={_repr(v)}" for k, v in kwargs.items()]
    return _clip(f"{name}({', '.join(parts)})", 3 * REPR_CHARS)


def _clip(text: str, limit: int = 2 * REPR_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
