"""The sandbox's end of calls back into the test process: objects the test passed to production code (a key
function, a callback, a lambda, a bound method, an iterator, an instance of a test's class) stay in the test process
and are asked there, over the channel, while the sandbox waits; and what production code writes or warns during a
call travels with the next frame, so the test process can show it where plain pytest would.

Standard library only (and gate.channel, gate.replies): it runs in the sandbox beside production code. Nothing here
is trusted by the test process, which decides on its own side what a call back may do.
"""

import io
import sys
import threading
import types
import warnings
import weakref

from gate.channel import ChannelError, decode, encode, read_frame, write_frame
from gate.replies import build_exception

OUTPUT_LIMIT = 256 * 1024  # characters of stdout/stderr kept between two frames; the rest is counted as dropped
WARNINGS_LIMIT = 200  # warnings kept between two frames


class _Bounded(io.RawIOBase):
    """A byte sink that keeps at most OUTPUT_LIMIT bytes until it is drained."""

    def __init__(self) -> None:
        super().__init__()
        self.kept, self.dropped = bytearray(), 0

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        size = len(data)
        room = max(0, OUTPUT_LIMIT - len(self.kept))
        self.kept += bytes(data[:room])
        self.dropped += max(0, size - room)
        return size

    def drain(self) -> str:
        text = self.kept.decode("utf-8", "replace")
        if self.dropped:
            text += f"\n[{self.dropped} more bytes of output were dropped by the gate's channel]\n"
        self.kept, self.dropped = bytearray(), 0
        return text


def _stream(sink: _Bounded) -> io.TextIOWrapper:
    stream = io.TextIOWrapper(io.BufferedWriter(sink), encoding="utf-8", errors="backslashreplace",
                              write_through=True)
    stream.mode = "w"
    return stream


class Link:
    """The sandbox's side of the channel: writes frames (with what production code printed and warned since the
    last one), and calls objects of the test process, serving the test's own calls into production code while it
    waits for the answer."""

    def __init__(self, chan_in, chan_out, objects, answer) -> None:
        self.chan_in, self.chan_out, self.objects, self.answer = chan_in, chan_out, objects, answer
        self.thread = threading.get_ident()
        self.remotes: "weakref.WeakValueDictionary[int, object]" = weakref.WeakValueDictionary()
        self.released: list[int] = []
        self.origins: dict[int, tuple[BaseException, int]] = {}  # exceptions the test process raised, by id
        self.sinks = {"stdout": _Bounded(), "stderr": _Bounded()}
        self.streams = {name: _stream(sink) for name, sink in self.sinks.items()}
        self.warned: list[list] = []
        self.class_path = None  # set by the sandbox (its class_path)

    def capture(self) -> None:
        """Production code's print() and warnings from here on travel with the frames; every warning is sent (the
        test process's filters decide, as pytest's would)."""
        sys.stdout, sys.stderr = self.streams["stdout"], self.streams["stderr"]
        warnings.simplefilter("always")
        warnings.showwarning = self._warned

    def _warned(self, message, category, filename, lineno, file=None, line=None) -> None:
        if len(self.warned) < WARNINGS_LIMIT:
            # The module's name, so filters by module (`ignore::DeprecationWarning:books.hooks`) apply as they would.
            module = next((name for name, found in list(sys.modules.items())
                           if isinstance(found, types.ModuleType) and vars(found).get("__file__") == filename), None)
            self.warned.append([self.class_path(category), str(message)[:2000], str(filename), int(lineno),
                                module if type(module) is str else None])

    def frame(self, message: dict) -> None:
        for name, sink in self.sinks.items():
            try:
                self.streams[name].flush()
            except (OSError, ValueError):
                pass  # closed by production code: what it wrote before is in the sink
            text = sink.drain()
            if text:
                message.setdefault("output", []).append([name, text])
        if self.warned:
            message["warnings"], self.warned = self.warned, []
        if self.released:
            message["release_back"], self.released = self.released, []
        write_frame(self.chan_out, message)

    def remote(self, rest: list):
        """The stand-in for object `number` of the test process (the same stand-in while it lives)."""
        if len(rest) != 2 or type(rest[0]) is not int or type(rest[1]) is not bool:
            raise ChannelError("malformed object of the test process")
        number, is_callable = rest
        while number in self.released:
            self.released.remove(number)  # sent again: alive again on the other side
        found = self.remotes.get(number)
        if found is None:
            found = self.remotes[number] = (Callable if is_callable else Remote)(self, number)
        return found

    def back(self, number: int, op: str, args: tuple = (), kwargs: dict | None = None):
        """Ask the test process to do `op` on its object `number`, serving its calls until it answers."""
        if threading.get_ident() != self.thread:
            raise RuntimeError("objects of the test process can only be called from the thread that runs the call")
        self.frame({"back": {"of": number, "op": op, "args": encode(list(args), self.objects.handle),
                             "kwargs": encode(kwargs or {}, self.objects.handle)}})
        while True:
            message = read_frame(self.chan_in)
            if "back_reply" in message:
                break
            self.answer(message)  # the test process calls production code while it works on our call
        self.objects.release(message.get("release"))
        reply = message["back_reply"]
        if type(reply) is dict and "raise" in reply:
            exc = build_exception(reply["raise"], lambda data: decode(data, self.objects.get))
            origin = reply.get("origin")
            if type(origin) is int:
                if len(self.origins) > 256:
                    self.origins.clear()
                self.origins[id(exc)] = (exc, origin)
            raise exc
        if type(reply) is not dict or "value" not in reply:
            raise ChannelError("malformed answer from the test process")
        return decode(reply["value"], self.objects.get)

    def origin(self, exc: BaseException) -> int | None:
        found = self.origins.get(id(exc))
        return found[1] if found is not None and found[0] is exc else None


READABLE_DUNDERS = frozenset({"__name__", "__qualname__", "__module__", "__doc__"})


class Remote:
    """An object of the test process: comparisons, hash, repr, str, len, int, float, index, iteration, `in`, `[]`
    and reading its public attributes (and its name) are asked there."""

    __slots__ = ("_link", "_number", "__weakref__")

    def __init__(self, link: Link, number: int) -> None:
        object.__setattr__(self, "_link", link)
        object.__setattr__(self, "_number", number)

    def _ask(self, op: str, *args):
        return self._link.back(self._number, op, args)

    def __getattr__(self, name):
        if name.startswith("_") and name not in READABLE_DUNDERS:
            raise AttributeError(f"private attributes of an object the test passed ({name!r}) are not readable")
        return self._ask("getattr", name)

    def __setattr__(self, name, value):
        raise AttributeError(f"an object the test passed cannot be changed here ({name!r})")

    def __repr__(self):
        return _typed(self._ask("repr"), str)

    def __str__(self):
        return _typed(self._ask("str"), str)

    def __hash__(self):
        return _typed(self._ask("hash"), int)

    def __bool__(self):
        return _typed(self._ask("bool"), bool)

    def __len__(self):
        return _typed(self._ask("len"), int)

    def __index__(self):
        return _typed(self._ask("index"), int)

    def __int__(self):
        return _typed(self._ask("int"), int)

    def __float__(self):
        return _typed(self._ask("float"), float)

    def __iter__(self):
        return self._ask("iter")

    def __next__(self):
        return self._ask("next")

    def __contains__(self, item):
        return _typed(self._ask("contains", item), bool)

    def __getitem__(self, key):
        return self._ask("getitem", key)

    def __del__(self):
        link = getattr(self, "_link", None)
        if link is not None:
            link.released.append(self._number)


def _compare(name: str):
    def compare(self, other):
        return self._ask(name, other)
    compare.__name__ = f"__{name}__"
    return compare


for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    setattr(Remote, f"__{_name}__", _compare(_name))


class Callable(Remote):
    """A function, bound method, class or other callable of the test process."""

    __slots__ = ()

    def __call__(self, *args, **kwargs):
        return self._link.back(self._number, "call", args, kwargs)


def _typed(value, kind: type):
    if type(value) is not kind:
        raise TypeError(f"the test process answered {type(value).__name__}, not {kind.__name__}")
    return value


# Classes made here for a test's subclass of a production class -> the test's class (a Remote), so an instance
# crosses to the test process as an instance of the test's class.
SUBCLASSES: "weakref.WeakKeyDictionary[type, Remote]" = weakref.WeakKeyDictionary()
MEMBER_KINDS = ("method", "classmethod", "staticmethod", "property", "value")


def subclass(parent: type, name: str, qualname: str, module: str, members: list, test_class) -> type:
    """The production-side twin of a test's `class Mine(Base)`: a subclass of `parent` whose members the test
    defined call the test's own functions back."""
    if not isinstance(parent, type) or not isinstance(test_class, Callable) or not all(
            type(m) is list and len(m) == 3 and type(m[0]) is str and m[1] in MEMBER_KINDS for m in members):
        raise ChannelError("malformed subclass")
    namespace = {"__module__": str(module), "__qualname__": str(qualname)}
    for member, kind, value in members:
        if kind == "value":
            namespace[member] = value
        elif not isinstance(value, Callable):
            raise ChannelError(f"malformed subclass member {member!r}")
        elif kind == "staticmethod":
            namespace[member] = staticmethod(value)
        else:
            forward = _forwarding(value, member)
            namespace[member] = {"method": forward, "classmethod": classmethod(forward),
                                 "property": property(forward)}[kind]
    made = type(parent)(str(name), (parent,), namespace)
    SUBCLASSES[made] = test_class
    return made


def _forwarding(function: "Callable", name: str):
    def forward(self, *args, **kwargs):
        return function(self, *args, **kwargs)
    forward.__name__ = forward.__qualname__ = name
    return forward


def from_base(obj, start: type, name: str):
    """obj's attribute `name` as the classes above `start` define it: `super()` of a test's subclass."""
    return getattr(super(start, obj), name)


def call_from_base(obj, start: type, name: str, args: list, kwargs: dict):
    return getattr(super(start, obj), name)(*args, **kwargs)
