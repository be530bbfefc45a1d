"""The test process's end of calls back from production code, and what production code printed and warned.

An object the test passes to production code that is not plain data (a key function, a callback, a lambda, a bound
method, an iterator, an instance of a test's class) stays here and crosses as a number; the sandbox may ask only
those objects, only for a call or one of a few operations (`OPS`), with arguments and results that cross by the
channel's rules. What production code printed to stdout/stderr and the warnings it issued come with the sandbox's
frames and are shown here after the call, so `capsys` and `pytest.warns` see them.

Standard library only (and gate.channel, gate.replies); the proxies pass in what they own.
"""

import itertools
import operator
import sys
import types
import warnings

from gate.channel import ChannelError, NotPlain, decode, loaded
from gate.replies import exception_class

OPS = {"call": None, "repr": repr, "str": str, "hash": hash, "bool": bool, "len": len, "iter": iter, "next": next,
       "contains": operator.contains, "getitem": operator.getitem, "eq": operator.eq, "ne": operator.ne,
       "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge, "index": operator.index,
       "int": int, "float": float, "getattr": getattr}
# Attributes the sandbox may read of what the test passed: public ones and a callable's name (functools.wraps
# reads them); never `__globals__`, `__class__`, `__dict__`, a frame or code.
READABLE_DUNDERS = frozenset({"__name__", "__qualname__", "__module__", "__doc__"})
UNPASSABLE = (types.ModuleType, types.FrameType, types.CodeType, types.TracebackType)
RAISED_KEPT = 256
NAMESPACES = frozenset({("argparse", "Namespace"), ("types", "SimpleNamespace")})

_passed: dict[int, object] = {}  # number -> an object the test passed, while the sandbox holds it
_numbers: dict[int, int] = {}  # id(object) -> its number
_raised: dict[int, BaseException] = {}  # number -> an exception a call back raised, so it comes back as itself
_counter = itertools.count(1)
_pending: list[tuple] = []
_steering: list[BaseException] = []  # a BaseException (pytest.skip, KeyboardInterrupt) raised in a call back
_registries: dict[str, dict] = {}
_to_release: list[int] = []


def passed(obj) -> list:
    """The channel's form of a test object handed to production code: ["cb", number, callable]."""
    if isinstance(obj, UNPASSABLE):
        raise NotPlain(f"a {type(obj).__name__} ({getattr(obj, '__name__', '?')}) cannot be passed to production "
                       "code")
    number = _numbers.get(id(obj))
    if number is None or _passed.get(number) is not obj:
        number = next(_counter)
        _passed[number], _numbers[id(obj)] = obj, number
    return ["cb", number, callable(obj)]


def or_passed(handle_of):
    """`handle_of`, and for what it refuses: the object's channel form as one the test passed."""
    def handle(obj):
        try:
            return handle_of(obj)
        except NotPlain:
            return passed(obj)
    return handle


def find(rest: list):
    """The test object behind a ["cb", number] the sandbox sent back."""
    if len(rest) != 1 or type(rest[0]) is not int or rest[0] not in _passed:
        raise ChannelError(f"the sandbox named an object the test never passed ({str(rest)[:40]})")
    return _passed[rest[0]]


def namespace(module, qualname, attributes, decode_value):
    """An argparse.Namespace or types.SimpleNamespace the sandbox sent by value, as this process's own class."""
    cls = loaded(module, qualname) if (module, qualname) in NAMESPACES else None
    values = decode_value(attributes)
    if cls is None or type(values) is not dict or not all(type(k) is str for k in values):
        raise ChannelError(f"malformed namespace {str(module)[:40]}.{str(qualname)[:40]}")
    made = cls()
    for key, value in values.items():
        setattr(made, key, value)
    return made


def release() -> None:
    """Forget the objects the sandbox no longer holds; done before the next request, since the frame that says
    so may still name them (an argument the call changed comes back after the call let go of it)."""
    numbers, _to_release[:] = list(_to_release), []
    for number in numbers:
        obj = _passed.pop(number, None) if type(number) is int else None
        if obj is not None and _numbers.get(id(obj)) == number:
            del _numbers[id(obj)]


def serve(request, encode_value, decode_handle, violation) -> dict:
    """Answer one call back: `encode_value` turns the result into channel form, `decode_handle` builds handles,
    `violation(text)` records a breach of the channel's rules (and returns an error)."""
    from gate.sandbox import described  # an exception as the channel carries it (standard library)

    def describe(exc: BaseException) -> dict:
        found = described(exc)
        found.pop("traceback", None)  # the test's own source lines stay here
        return found

    try:
        if type(request) is not dict or type(request.get("of")) is not int or request.get("op") not in OPS:
            raise ChannelError(f"malformed call back {str(request)[:100]}")
        target = find([request["of"]])
        args, kwargs = decode(request.get("args"), decode_handle), decode(request.get("kwargs"), decode_handle)
        if type(args) is not list or type(kwargs) is not dict or not all(type(k) is str for k in kwargs):
            raise ChannelError("malformed arguments of a call back")
        if request["op"] == "getattr" and (len(args) != 1 or type(args[0]) is not str or kwargs or (
                args[0].startswith("_") and args[0] not in READABLE_DUNDERS)):
            raise ChannelError(f"the sandbox asked for attribute {str(args)[:60]} of an object the test passed; "
                               "only public attributes and a callable's name are readable")
    except ChannelError as exc:
        return {"back_reply": {"raise": describe(violation(str(exc)))}}
    op = request["op"]
    try:
        value = target(*args, **kwargs) if op == "call" else OPS[op](target, *args)
    except Exception as exc:
        return {"back_reply": _raising(exc, describe)}
    except BaseException as exc:  # noqa: BLE001 - it steers the test run: raised here once production code returns
        _steering.append(exc)
        return {"back_reply": {"raise": describe(RuntimeError(f"{type(exc).__name__} in the test process"))}}
    try:
        return {"back_reply": {"value": encode_value(value)}}
    except ChannelError as exc:
        return {"back_reply": {"raise": describe(exc)}}


def _raising(exc: BaseException, describe) -> dict:
    number = next(_counter)
    if len(_raised) >= RAISED_KEPT:
        _raised.pop(next(iter(_raised)))
    _raised[number] = exc
    return {"raise": describe(exc), "origin": number}


def raised(origin) -> BaseException | None:
    """The test's own exception that production code let through, if the sandbox names one."""
    return _raised.get(origin) if type(origin) is int else None


def collect(frame: dict) -> None:
    """Keep what a frame of the sandbox carries besides its answer: output, warnings, released objects."""
    released = frame.get("release_back")
    _to_release.extend(released if type(released) is list else ())
    for item in frame.get("output", ()) if type(frame.get("output")) is list else ():
        if type(item) is list and len(item) == 2 and item[0] in ("stdout", "stderr") and type(item[1]) is str:
            _pending.append(("output", *item))
    for item in frame.get("warnings", ()) if type(frame.get("warnings")) is list else ():
        if type(item) is list and len(item) == 5 and type(item[1]) is str and type(item[2]) is str \
                and type(item[3]) is int and type(item[4]) in (str, type(None)):
            _pending.append(("warning", *item))


def deliver() -> None:
    """Show what production code printed (in this process's sys.stdout/sys.stderr) and reissue its warnings (so
    this process's filters, pytest.warns among them, see them); then raise what a call back raised that steers the
    run."""
    items, _pending[:] = list(_pending), []
    for kind, *rest in items:
        if kind == "output":
            getattr(sys, rest[0]).write(rest[1])
    for kind, *rest in items:
        if kind == "warning":
            path, message, filename, lineno, module = rest
            try:
                category = exception_class(path)
            except ChannelError:
                category = UserWarning
            if not issubclass(category, Warning):
                category = UserWarning
            # module=None would mean "do not warn" to warn_explicit: leave it out to have it derived from the file.
            where = {"module": module} if module is not None else {}
            warnings.warn_explicit(message, category, filename, lineno, registry=_registries.setdefault(filename, {}),
                                   **where)
    if _steering:
        raise _steering.pop()
