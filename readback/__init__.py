"""The one loader for every JSON file the project reads back: run folders, caches, locks, ledgers, configs.

A top-level package because both `drafter/` and `gate/` read files back and `gate/` never imports `drafter/`;
it imports neither. `load` checks, in order: a regular file (a FIFO would block, a folder is a mistake), a size
bound, UTF-8, JSON, a depth bound (never a RecursionError), then a shape. Every failure is an `UnreadableJSON`
whose message names the file and, for a shape, the key (`candidates[3].kills`).

Shapes are plain values: a type (`str`, `int`, `float`, `bool`, `dict`, `list`, `object` for anything), `None`,
`[S]` a list of S, `{"key": S}` an object with those keys (others allowed; `OptionalKey(S)` marks a key that may be
missing), `MapOf(S)` an object of any keys whose values are S, and `Either(S1, S2, ...)`.
"""

from __future__ import annotations

import dataclasses
import json
import os
import stat
import types
import typing
from pathlib import Path
from typing import Any

MAX_BYTES = 256 * 1024 * 1024  # a report of a very large run is tens of MB; a cache entry is far smaller
MAX_DEPTH = 64  # the deepest of our own files is about 6


class UnreadableJSON(ValueError):
    """A JSON file that is missing, not a regular file, too big, not JSON, too deep or of the wrong shape."""

    def __init__(self, path: Path, problem: str, key: str = ""):
        self.path, self.problem, self.key = Path(path), problem, key
        super().__init__(f"{path}: {'key ' + repr(key) + ' ' if key else ''}{problem}")


@dataclasses.dataclass(frozen=True)
class OptionalKey:
    shape: Any


@dataclasses.dataclass(frozen=True)
class MapOf:
    shape: Any


class Either:
    def __init__(self, *shapes: Any):
        self.shapes = shapes


def regular_file(path: Path) -> os.stat_result:
    """The file's stat when it is a regular file (links followed); UnreadableJSON naming what it is otherwise."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise UnreadableJSON(path, "cannot be read (no such file)") from None
    except OSError as exc:
        raise UnreadableJSON(path, f"cannot be read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(info.st_mode):
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file (a FIFO, socket or device)"
        raise UnreadableJSON(path, f"is {kind}")
    return info


def load(path: Path | str, shape: Any = object, *, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value of `path`, checked as the module docstring says."""
    path = Path(path)
    info = regular_file(path)
    if info.st_size > max_bytes:
        raise UnreadableJSON(path, f"is {info.st_size:,} bytes, over the limit of {max_bytes:,}")
    try:
        # O_NONBLOCK: should the file have been swapped for a FIFO since the stat, opening it does not block.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as handle:
            raw = handle.read(max_bytes + 1)
    except OSError as exc:
        raise UnreadableJSON(path, f"cannot be read ({exc.strerror or exc})") from None
    if len(raw) > max_bytes:
        raise UnreadableJSON(path, f"is over the limit of {max_bytes:,} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableJSON(path, f"is not UTF-8 text (byte {exc.start})") from None
    value = loads(text, path, max_depth)
    check(value, shape, path)
    return value


def loads(text: str, path: Path | str = "<text>", max_depth: int = MAX_DEPTH) -> Any:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UnreadableJSON(Path(path), f"is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise UnreadableJSON(Path(path), f"is nested deeper than {max_depth}") from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise UnreadableJSON(Path(path), f"is not valid JSON ({exc})") from None
    if depth(value) > max_depth:
        raise UnreadableJSON(Path(path), f"is nested deeper than {max_depth}")
    return value


def depth(value: Any) -> int:
    """How deep lists and objects nest in a parsed value (iterative: any depth is safe to measure)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


_NAMES = {str: "a string", int: "a whole number", float: "a number", bool: "true or false", dict: "an object",
          list: "a list", type(None): "null"}


def describe(shape: Any) -> str:
    if shape is None:
        return "null"
    if isinstance(shape, type):
        return _NAMES.get(shape, shape.__name__)
    if isinstance(shape, list):
        return f"a list of {describe(shape[0]).removeprefix('a ').removeprefix('an ')}s" if shape else "a list"
    if isinstance(shape, (dict, MapOf)):
        return "an object"
    if isinstance(shape, Either):
        return " or ".join(describe(s) for s in shape.shapes)
    return str(shape)


def _got(value: Any) -> str:
    for kind in (bool, int, float, str, list, dict):
        if isinstance(value, kind):
            return _NAMES[kind] if kind in (list, dict, bool) else f"{_NAMES[kind]} ({_short(value)})"
    return "null" if value is None else type(value).__name__


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 40 else text[:37] + "..."


def matches(value: Any, shape: Any) -> bool:
    try:
        check(value, shape, "")
    except UnreadableJSON:
        return False
    return True


def _same_kind(value: Any, shape: Any) -> bool:
    if isinstance(value, dict):
        return isinstance(shape, (dict, MapOf)) or shape is dict
    if isinstance(value, list):
        return isinstance(shape, list) or shape is list
    return False


def check(value: Any, shape: Any, path: Path | str, key: str = "") -> None:
    """UnreadableJSON naming `key` (and the file) when `value` does not have `shape`."""
    def wrong() -> UnreadableJSON:
        return UnreadableJSON(Path(path), f"should be {describe(shape)}, not {_got(value)}", key)

    if shape is object:
        return
    if shape is None:
        if value is not None:
            raise wrong()
    elif isinstance(shape, Either):
        if not any(matches(value, s) for s in shape.shapes):
            near = [s for s in shape.shapes if _same_kind(value, s)]
            if len(near) == 1:  # the one alternative of the value's kind says which key inside is wrong
                check(value, near[0], path, key)
            raise wrong()
    elif isinstance(shape, type):
        if shape is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        elif shape is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        else:
            ok = isinstance(value, shape)
        if not ok:
            raise wrong()
    elif isinstance(shape, list):
        if not isinstance(value, list):
            raise wrong()
        for i, item in enumerate(value):
            check(item, shape[0] if shape else object, path, f"{key}[{i}]")
    elif isinstance(shape, MapOf):
        if not isinstance(value, dict):
            raise wrong()
        for name, item in value.items():
            check(item, shape.shape, path, f"{key}.{name}" if key else name)
    elif isinstance(shape, dict):
        if not isinstance(value, dict):
            raise wrong()
        for name, inner in shape.items():
            where = f"{key}.{name}" if key else name
            if name not in value:
                if not isinstance(inner, OptionalKey):
                    raise UnreadableJSON(Path(path), "is missing", where)
                continue
            check(value[name], inner.shape if isinstance(inner, OptionalKey) else inner, path, where)
    else:
        raise TypeError(f"not a shape: {shape!r}")


def shape_of(cls: type) -> dict:
    """The shape of a frozen dataclass as JSON (tuples are lists; fields with defaults may be missing)."""
    hints = typing.get_type_hints(cls)
    shape = {}
    for field in dataclasses.fields(cls):
        inner = _from_hint(hints[field.name])
        has_default = field.default is not dataclasses.MISSING or field.default_factory is not dataclasses.MISSING
        shape[field.name] = OptionalKey(inner) if has_default else inner
    return shape


def _from_hint(hint: Any) -> Any:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is type(None):
        return None
    if origin in (typing.Union, types.UnionType):
        return Either(*(_from_hint(a) for a in args))
    if origin in (tuple, list):
        return [_from_hint(args[0])] if args else list
    if origin is dict:
        return MapOf(_from_hint(args[1])) if args else dict
    if hint is Any:
        return object
    if dataclasses.is_dataclass(hint):
        return shape_of(hint)
    return hint
