"""What the properties' side builds from the sandbox's replies: exceptions (their class, real or a stand-in, their
attributes and chain), the caller's own arguments as production code left them, and time zones of the target's own
classes.

Standard library only (and gate.channel); no state of the proxies.
"""

import datetime
import sys

from gate.channel import MAX_DEPTH, ChannelError, loaded

MUTABLE = (list, dict, set, bytearray)
SAME_BY_VALUE = (int, str, bytes, bool, type(None))
_stand_ins: dict[tuple[str, str, bool], type] = {}


def _real_class(module: str, qualname: str, genuine) -> type | None:
    """The builtin or standard-library exception class of that name, if the sandbox vouched that its class is that
    very class there and this process has loaded it (nothing is imported on the sandbox's word)."""
    if genuine is not True or (module != "builtins" and module.split(".")[0] not in sys.stdlib_module_names):
        return None
    found = loaded(module, qualname)
    return found if isinstance(found, type) and issubclass(found, BaseException) else None


def exception_class(path) -> type:
    """The class an exception of the sandbox is re-raised as: the real one for builtin and standard-library
    classes, otherwise a stand-in of that name (one object per name for the whole session)."""
    if type(path) is not list or not path or not all(
            type(p) is list and len(p) == 3 and type(p[0]) is str and type(p[1]) is str and type(p[2]) is bool
            for p in path):
        raise ChannelError("malformed exception class path")
    cls: type = BaseException
    for module, qualname, genuine in reversed(path):
        real = _real_class(module, qualname, genuine)
        if real is not None:
            cls = real if issubclass(real, cls) else cls
            continue
        key = (module, qualname, genuine)
        if key not in _stand_ins:
            _stand_ins[key] = type(qualname.rsplit(".", 1)[-1], (cls,), {"__module__": module,
                                                                          "__qualname__": qualname})
        cls = _stand_ins[key]
    return cls


def build_exception(described, decode_value, depth: int = 0) -> BaseException:
    """The exception the sandbox described: its class (real or stand-in), args, plain attributes (decoded by
    `decode_value`) and chain. ChannelError for a malformed description."""
    if type(described) is not dict or depth > 20:
        raise ChannelError("malformed exception from the sandbox")
    cls = exception_class(described.get("mro"))
    message = described.get("message") if type(described.get("message")) is str else ""
    try:
        args = decode_value(described.get("args")) if described.get("args") is not None else (message,)
        exc = cls(*args) if type(args) is tuple else cls(message)
    except Exception:
        exc = cls.__new__(cls)
        exc.args = (message,)
    attributes = described.get("attributes")
    for pair in attributes if type(attributes) is list else ():
        if type(pair) is list and len(pair) == 2 and type(pair[0]) is str:
            try:
                setattr(exc, pair[0], decode_value(pair[1]))
            except (AttributeError, TypeError, ChannelError):
                pass  # a read-only attribute of a real class: its args already carry it
    unsent = described.get("unsent")
    if type(unsent) is list and unsent:
        exc.add_note(f"attributes that could not cross the channel: {', '.join(map(str, unsent))[:300]}")
    if type(described.get("traceback")) is str:
        exc.add_note("raised in the sandbox process:\n" + described["traceback"])
    for link in ("cause", "context"):
        if described.get(link) is not None:
            setattr(exc, f"__{link}__", build_exception(described[link], decode_value, depth + 1))
    exc.__suppress_context__ = described.get("suppress_context") is True
    return exc


def sync_in_place(mine, theirs, depth: int = 0) -> None:
    """Make the caller's own objects what production code left them as: a list, dict, set or bytearray is changed
    in place (so the caller sees an in-place sort, or a cheat that edits its input), nested ones too."""
    if depth > MAX_DEPTH or type(mine) is not type(theirs):
        return
    kind = type(mine)
    if kind is list:
        if len(mine) == len(theirs):
            for i, (a, b) in enumerate(zip(mine, theirs)):
                if type(a) in MUTABLE and type(a) is type(b):
                    sync_in_place(a, b, depth + 1)
                elif not (a is b or type(a) is type(b) and a == b and type(a) in SAME_BY_VALUE):
                    mine[i] = b
        else:
            mine[:] = theirs
    elif kind is dict:
        items = []
        for key, value in theirs.items():
            if key in mine and type(mine[key]) in MUTABLE:
                sync_in_place(mine[key], value, depth + 1)
                value = mine[key] if type(mine[key]) is type(value) else value
            items.append((key, value))
        mine.clear()
        mine.update(items)
    elif kind is set:
        mine.clear()
        mine.update(theirs)
    elif kind is bytearray:
        mine[:] = theirs
    elif isinstance(mine, tuple) and len(mine) == len(theirs):
        for a, b in zip(mine, theirs):
            sync_in_place(a, b, depth + 1)


class SandboxZone(datetime.tzinfo):
    """A time zone of the target's own classes, for this side's datetimes; each method asks the sandbox."""

    def __init__(self, handle) -> None:  # a gate.proxy.SandboxObject
        self.handle = handle

    def utcoffset(self, dt):
        return self.handle.utcoffset(dt)

    def dst(self, dt):
        return self.handle.dst(dt)

    def tzname(self, dt):
        return self.handle.tzname(dt)

    def fromutc(self, dt):
        return self.handle.fromutc(dt)

    def __eq__(self, other):
        return self.handle == (other.handle if type(other) is SandboxZone else other)

    def __hash__(self):
        return hash(self.handle)

    def __repr__(self):
        return repr(self.handle)

    def __reduce_ex__(self, protocol):  # pickled, copied and deep-copied as its handle is, by the sandbox
        return self.handle.__reduce_ex__(protocol)

    def __copy__(self):
        return self.handle.__copy__()

    def __deepcopy__(self, memo):
        return self.handle.__deepcopy__(memo)
