"""The narrow channel between the properties and the sandbox that runs production code: length-prefixed JSON
frames over pipes, carrying plain data only.

Plain data is None, bool, int, float, complex, str, bytes, Decimal, Fraction and tuples, lists, dicts, sets and
frozensets of those, each of its *exact* type: a subclass (a Decimal whose `__eq__` always agrees) is refused,
never converted. Anything else stays in the sandbox and crosses as a handle (an id). Nothing is ever unpickled;
the decoder builds fresh builtin objects from tagged JSON and rejects any tag or shape it does not know.

Standard library only: the sandbox imports this module before any production code.
"""

import base64
import json
import struct
from decimal import Decimal
from fractions import Fraction

MAX_FRAME = 64 * 2**20
MAX_DEPTH = 100
NATIVE = (type(None), bool, int, float, str)
CONTAINERS = {tuple: "t", list: "l", set: "s", frozenset: "f"}
PLAIN = (*NATIVE, complex, bytes, Decimal, Fraction, *CONTAINERS, dict)


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
        if handle is not None:
            return handle(tag, rest)
    except ChannelError:
        raise
    except Exception as exc:  # wrong arity, unhashable key, bad base64 or number text: all malformed
        raise ChannelError(f"malformed {tag!r} value: {type(exc).__name__}: {exc}") from None
    raise ChannelError(f"unknown value tag {tag!r}")


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
