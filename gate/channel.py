"""The narrow channel between the properties and the sandbox that runs production code: length-prefixed JSON
frames over pipes, carrying plain data only.

Plain data is None, NotImplemented, Ellipsis, bool, int, float, complex, str, bytes, bytearray, memoryview (as
bytes), Decimal, Fraction, UUID, slices, ranges, POSIX paths, the datetime family (date, time, datetime, timedelta; time zones
that are fixed offsets or zoneinfo keys), members of standard-library enums, and tuples, lists, dicts, sets and
frozensets of those, each of its *exact* type: a subclass (a Decimal whose `__eq__` always agrees) is refused, never
converted. Named tuples cross as their class's name, fields and values (each side rebuilds one; see
`named_tuple`). Anything else stays where it lives and crosses as a handle (an id). Nothing is ever unpickled; the decoder builds fresh objects from tagged JSON and
rejects any tag or shape it does not know.

Standard library only: the sandbox imports this module before any production code.
"""

import base64
import datetime
import enum
import json
import os
import pathlib
import struct
import sys
import types
import uuid
import zoneinfo
from decimal import Decimal
from fractions import Fraction

MAX_FRAME = 64 * 2**20
MAX_DEPTH = 100
NATIVE = (type(None), bool, int, float, str)
CONTAINERS = {tuple: "t", list: "l", set: "s", frozenset: "f"}
CLOCK = (datetime.date, datetime.datetime, datetime.time, datetime.timedelta, datetime.timezone)
# By value, never as an object the other side calls back: a test's tmp_path handed to production code would
# otherwise let it call write_text() in the unwalled properties' process. What it does with a path happens in the
# sandbox, under its wall.
PATHS = {pathlib.PurePosixPath: "pure", pathlib.PosixPath: "posix"}
PLAIN = (*NATIVE, complex, bytes, bytearray, memoryview, Decimal, Fraction, uuid.UUID, slice, range, *CLOCK,
         *CONTAINERS, dict, pathlib.PurePath)
TUPLE_METHODS = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__len__", "__iter__",
                 "__getitem__", "__contains__", "__bool__")


class ChannelError(Exception):
    """The channel carried something it may not: a non-plain value, a malformed frame, a dead sandbox."""


class NotPlain(ChannelError):
    """A value of a type that may not cross (or a subclass of a plain type)."""


def encode(value, handle_of=None, depth: int = 0):
    """JSON-ready form of a plain value. `handle_of(value)` turns anything else into a tagged handle; without it,
    anything else is NotPlain."""
    if depth > MAX_DEPTH:
        raise NotPlain(f"value nested deeper than {MAX_DEPTH} levels")
    kind = type(value)
    if kind in NATIVE:
        return value
    if value is NotImplemented or value is Ellipsis:  # a comparison's answer; a slice's `...`
        return ["NI" if value is NotImplemented else "..."]
    if kind in CONTAINERS:
        return [CONTAINERS[kind], [encode(v, handle_of, depth + 1) for v in value]]
    if kind is dict:
        return ["d", [[encode(k, handle_of, depth + 1), encode(v, handle_of, depth + 1)] for k, v in value.items()]]
    if kind is bytes:
        return ["b", base64.b64encode(value).decode("ascii")]
    if kind is Decimal:
        return ["D", str(value)]
    if kind is Fraction:
        return ["F", value.numerator, value.denominator]
    if kind is complex:
        return ["c", value.real, value.imag]
    if kind is bytearray:
        return ["B", base64.b64encode(value).decode("ascii")]
    if kind is memoryview:
        return ["b", base64.b64encode(value.tobytes()).decode("ascii")]
    if kind is uuid.UUID:
        return ["U", value.hex]
    if kind is range:
        return ["rg", value.start, value.stop, value.step]
    if kind in PATHS:
        return ["P", PATHS[kind], base64.b64encode(os.fsencode(value)).decode("ascii")]
    if kind is slice:
        return ["sl", [encode(part, handle_of, depth + 1) for part in (value.start, value.stop, value.step)]]
    if kind in CLOCK:
        return _clock(value, handle_of)
    if isinstance(value, enum.Enum) and _stdlib(kind.__module__) and _resolves(kind.__module__, kind.__qualname__,
                                                                                kind):
        return ["E", kind.__module__, kind.__qualname__, encode(value.value, None, depth + 1)]
    if isinstance(value, enum.Enum) and handle_of is not None:
        return handle_of(value)  # a member of the target's own enum (an IntEnum too) stays where it lives
    if _is_named_tuple(kind):
        return ["n", str(kind.__module__), str(kind.__qualname__), list(kind._fields),
                [encode(v, handle_of, depth + 1) for v in value]]
    if isinstance(value, PLAIN):
        base = next(t for t in PLAIN if isinstance(value, t))
        raise NotPlain(f"{kind.__module__}.{kind.__qualname__} is a subclass of {base.__name__}; only exact plain "
                       "types cross the channel")
    if handle_of is None:
        raise NotPlain(f"{kind.__module__}.{kind.__qualname__} is not plain data")
    return handle_of(value)


def decode(data, handle=None, depth: int = 0):
    """The plain value a JSON-ready form stands for; `handle(tag, rest)` builds objects for tags beyond plain data.
    ChannelError for any shape that is not exactly one of ours."""
    if depth > MAX_DEPTH:
        raise ChannelError(f"value nested deeper than {MAX_DEPTH} levels")
    if type(data) in NATIVE:
        return data
    if type(data) is not list or not data or type(data[0]) is not str:
        raise ChannelError(f"malformed value {str(data)[:80]!r}")
    tag, rest = data[0], data[1:]
    if tag in SINGLETONS and not rest:
        return SINGLETONS[tag]
    try:
        if tag in ("t", "l", "s", "f"):
            (items,) = rest
            if type(items) is not list:
                raise ChannelError(f"malformed {tag} value")
            values = [decode(v, handle, depth + 1) for v in items]
            return {"t": tuple, "l": list, "s": set, "f": frozenset}[tag](values)
        if tag == "d":
            (pairs,) = rest
            out = {}
            for pair in pairs:
                key, value = pair
                out[decode(key, handle, depth + 1)] = decode(value, handle, depth + 1)
            return out
        if tag == "b" and type(rest[0]) is str and len(rest) == 1:
            return base64.b64decode(rest[0].encode("ascii"), validate=True)
        if tag == "D" and type(rest[0]) is str and len(rest) == 1:
            return Decimal(rest[0])
        if tag == "F" and len(rest) == 2 and all(type(x) is int for x in rest):
            return Fraction(rest[0], rest[1])
        if tag == "c" and len(rest) == 2 and all(type(x) is float for x in rest):
            return complex(rest[0], rest[1])
        if tag == "B" and type(rest[0]) is str and len(rest) == 1:
            return bytearray(base64.b64decode(rest[0].encode("ascii"), validate=True))
        if tag == "U" and type(rest[0]) is str and len(rest) == 1:
            return uuid.UUID(hex=rest[0])
        if tag == "rg" and len(rest) == 3 and all(type(x) is int for x in rest):
            return range(*rest)
        if tag == "P" and len(rest) == 2 and rest[0] in ("pure", "posix") and type(rest[1]) is str:
            text = os.fsdecode(base64.b64decode(rest[1].encode("ascii"), validate=True))
            return (pathlib.PurePosixPath if rest[0] == "pure" else pathlib.PosixPath)(text)
        if tag == "sl" and len(rest) == 1 and type(rest[0]) is list and len(rest[0]) == 3:
            return slice(*(decode(part, handle, depth + 1) for part in rest[0]))
        if tag in CLOCK_TAGS:
            return _unclock(tag, rest, handle)
        if tag == "E" and len(rest) == 3 and type(rest[0]) is str and type(rest[1]) is str:
            return _enum_member(rest[0], rest[1], decode(rest[2], None, depth + 1))
        if tag == "n" and len(rest) == 4 and type(rest[3]) is list:
            module, qualname, fields, values = rest
            cls = named_tuple(module, qualname, fields)
            return cls(*(decode(v, handle, depth + 1) for v in values))
        if handle is not None:
            return handle(tag, rest)
    except ChannelError:
        raise
    except Exception as exc:  # wrong arity, unhashable key, bad base64 or number text: all malformed
        raise ChannelError(f"malformed {tag!r} value: {type(exc).__name__}: {exc}") from None
    raise ChannelError(f"unknown value tag {tag!r}")


CLOCK_TAGS = frozenset({"dd", "dt", "tm", "td", "tz"})
SINGLETONS = {"NI": NotImplemented, "...": Ellipsis}


def _clock(value, handle_of=None):
    kind = type(value)
    if kind is datetime.timedelta:
        return ["td", value.days, value.seconds, value.microseconds]
    if kind is datetime.timezone:
        offset = value.utcoffset(None)
        name = value.tzname(None)
        default = datetime.timezone(offset).tzname(None)
        return ["tz", offset.days, offset.seconds, offset.microseconds, None if name == default else name]
    if kind is datetime.date:
        return ["dd", value.year, value.month, value.day]
    zone = _zone(value.tzinfo, handle_of)
    if kind is datetime.time:
        return ["tm", value.hour, value.minute, value.second, value.microsecond, value.fold, zone]
    return ["dt", value.year, value.month, value.day, value.hour, value.minute, value.second, value.microsecond,
            value.fold, zone]


def _zone(tzinfo, handle_of=None):
    if tzinfo is None:
        return None
    if type(tzinfo) is datetime.timezone:
        return _clock(tzinfo)
    if type(tzinfo) is zoneinfo.ZoneInfo and type(tzinfo.key) is str:
        return ["zi", tzinfo.key]
    if handle_of is not None:
        return handle_of(tzinfo)  # a time zone class of the target's own: its methods are asked where it lives
    raise NotPlain(f"a time zone of type {type(tzinfo).__module__}.{type(tzinfo).__qualname__} cannot cross the "
                   "channel (fixed offsets and zoneinfo zones can)")


def _unzone(data, handle=None):
    if data is None:
        return None
    if type(data) is list and data[:1] == ["zi"] and len(data) == 2 and type(data[1]) is str:
        return zoneinfo.ZoneInfo(data[1])
    if type(data) is list and data[:1] == ["tz"]:
        return _unclock("tz", data[1:])
    if type(data) is list and data[:1] == ["h"] and handle is not None:
        zone = handle("h", data[1:])
        if isinstance(zone, datetime.tzinfo):
            return zone
    raise ChannelError("malformed time zone")


def _unclock(tag: str, rest: list, handle=None):
    numbers = rest[:-1] if tag in ("tm", "dt", "tz") else rest
    if not all(type(n) is int for n in numbers):
        raise ChannelError(f"malformed {tag!r} value")
    if tag == "td":
        days, seconds, micro = rest
        return datetime.timedelta(days=days, seconds=seconds, microseconds=micro)
    if tag == "tz":
        days, seconds, micro, name = rest
        offset = datetime.timedelta(days=days, seconds=seconds, microseconds=micro)
        if name is None:
            return datetime.timezone.utc if not offset else datetime.timezone(offset)
        if type(name) is not str:
            raise ChannelError("malformed time zone name")
        return datetime.timezone(offset, name)
    if tag == "dd":
        return datetime.date(*rest)
    if tag == "tm":
        *parts, fold, zone = rest
        return datetime.time(*parts, tzinfo=_unzone(zone, handle), fold=fold)
    *parts, fold, zone = rest
    return datetime.datetime(*parts, tzinfo=_unzone(zone, handle), fold=fold)


def _stdlib(module: str) -> bool:
    return module.split(".")[0] in sys.stdlib_module_names


def _resolves(module: str, qualname: str, obj) -> bool:
    """Whether module.qualname, looked up among modules already loaded (nothing is imported), is obj."""
    return loaded(module, qualname) is obj


def loaded(module: str, qualname: str):
    """module.qualname among the modules already loaded, read from their dictionaries: nothing is imported and no
    code of theirs runs (no module `__getattr__`, no descriptor, no proxy of the gate)."""
    found = sys.modules.get(module)
    if type(found) is not types.ModuleType:
        return None
    for part in qualname.split("."):
        found = getattr(found, "__dict__", {}).get(part)
    return found


def _enum_member(module: str, qualname: str, value):
    cls = loaded(module, qualname) if _stdlib(module) else None
    if not (isinstance(cls, type) and issubclass(cls, enum.Enum)):
        raise ChannelError(f"{module}.{qualname} is not a loaded standard-library enum")
    return cls(value)


def _is_named_tuple(kind: type) -> bool:
    """A class made by collections.namedtuple or typing.NamedTuple that changes none of tuple's behaviour."""
    fields = kind.__dict__.get("_fields")
    return (kind.__bases__ == (tuple,) and type(fields) is tuple and all(type(f) is str for f in fields)
            and all(getattr(kind, m, None) is getattr(tuple, m, None) for m in TUPLE_METHODS))


_named_tuples: dict[tuple, type] = {}


def named_tuple(module, qualname, fields) -> type:
    """The class a named tuple is rebuilt as: a loaded class of that name with those fields, else one made here
    (one per name and fields, so `type(a) is type(b)` holds for two values of one class)."""
    if type(module) is not str or type(qualname) is not str or type(fields) is not list or not all(
            type(f) is str and f.isidentifier() and not f.startswith("_") for f in fields):
        raise ChannelError("malformed named tuple")
    found = loaded(module, qualname)
    if isinstance(found, type) and _is_named_tuple(found) and list(found._fields) == fields:
        return found
    key = (module, qualname, tuple(fields))
    if key not in _named_tuples:
        import collections

        made = collections.namedtuple(qualname.rsplit(".", 1)[-1] or "Tuple", fields, module=module)
        made.__qualname__ = qualname
        _named_tuples[key] = made
    return _named_tuples[key]


def write_frame(stream, message: dict) -> None:
    body = json.dumps(message, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    if len(body) > MAX_FRAME:
        raise NotPlain(f"a message of {len(body)} bytes exceeds the channel's {MAX_FRAME} bytes")
    stream.write(struct.pack(">I", len(body)) + body)
    stream.flush()


def _read_exactly(stream, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = stream.read(left)
        if not chunk:
            raise ChannelError("the other side closed the channel")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_frame(stream) -> dict:
    (size,) = struct.unpack(">I", _read_exactly(stream, 4))
    if size > MAX_FRAME:
        raise ChannelError(f"a frame of {size} bytes exceeds the channel's {MAX_FRAME} bytes")
    try:
        message = json.loads(_read_exactly(stream, size).decode("ascii"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ChannelError(f"malformed frame: {type(exc).__name__}") from None
    if type(message) is not dict:
        raise ChannelError("malformed frame: not an object")
    return message
