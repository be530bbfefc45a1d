"""The properties' side of the sandbox: module proxies for the patched repository's packages, whose calls cross
the channel to a sandbox process (gate.sandbox) as plain data.

`install()` puts a finder first on `sys.meta_path` for the top-level names of the patched tree; `import books.money`
then yields a module whose attributes are fetched from the sandbox. Functions and other objects that are not plain
data are handles: calling one, reading an attribute or comparing it asks the sandbox. Exceptions come back as
(class path, message): a builtin or standard-library class is re-raised as itself, a class of the target as a
stand-in of the same name, always the same object (so `pytest.raises(journal.ParseError)` works).

Anything that breaks the channel's rules (a subclass of a plain type, a malformed frame, a sandbox that died or ran
over its budget, an action the sandbox refused, a BaseException or a skip raised by production code) is a
*violation*: it raises ChannelError in the test and is also recorded, and the gate's plugin blocks on any
violation whatever the test did with the error.
"""

import atexit
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import types
import weakref
from pathlib import Path

from gate import callbacks, subclass
from gate.channel import ChannelError, NotPlain, decode, encode, loaded, read_frame, write_frame
from gate.replies import SandboxZone, build_exception, exception_class, sync_in_place

# The sandbox's command line names nothing of the gate: it reads its boot code, with its settings, as the first
# length-prefixed bytes of its input (unbuffered: what follows is the channel's).
SANDBOX_ARGV = ("-s", "-P", "-B", "-c",
                "import os\nn = int(os.read(0, 8))\nb = b''\nwhile len(b) < n:\n    b += os.read(0, n - len(b))\nexec(b)")
SANDBOX_BOOT = ("import json, sys; s = json.loads({settings!r}); sys.path.insert(0, s['gate']); "
                "import gate.sandbox; sys.path.remove(s['gate']); run = gate.sandbox.main(s); "
                "del b, n, s, gate, json; run()\n")
# Names of environment variables that are the job's secrets, not the app's settings: kept out of the sandbox.
SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSW|KEY|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|^AWS_|^AZURE_|^GOOGLE_"
                         r"|^ACTIONS_|^ORACLE_GATE|^PYTEST_|^PYTHONPYCACHEPREFIX$|^PYTHONDONTWRITEBYTECODE$",
                         re.IGNORECASE)
# Raised by production code, these would steer the test run rather than fail a test.
STEERING = frozenset({("unittest.case", "SkipTest")})

_violations: list[str] = []
_released: list[int] = []
_sandbox: "Sandbox | None" = None


def violations() -> list[str]:
    return list(dict.fromkeys(_violations))


def _violation(text: str) -> ChannelError:
    _violations.append(text)
    return ChannelError(f"oracle-gate sandbox: {text}")


class _TimedReader:
    """read(n) on a pipe that gives up when the call's wall-clock budget is spent."""

    def __init__(self, fd: int, deadline: float) -> None:
        self.fd, self.deadline = fd, deadline

    def read(self, size: int) -> bytes:
        left = self.deadline - time.monotonic()
        if left <= 0 or not select.select([self.fd], [], [], left)[0]:
            raise TimeoutError
        return os.read(self.fd, min(size, 1 << 20))


class Sandbox:
    """One sandbox process for the whole test session, started at the first import of a target module."""

    def __init__(self, gate_parent: str, production: list[str], budget: float, call_timeout: float,
                 root: str | None = None) -> None:
        # Its own folders look like any temporary folder; the log lies outside them, where it cannot read.
        self.scratch, self.log_folder = tempfile.mkdtemp(), tempfile.mkdtemp()
        home, tmp = Path(self.scratch) / "home", Path(self.scratch) / "tmp"
        home.mkdir()
        tmp.mkdir()
        self.log = open(Path(self.log_folder) / "sandbox.log", "wb")  # noqa: SIM115 - lives as long as the process
        env = {k: v for k, v in os.environ.items() if not SECRET_NAME.search(k)}
        env.update(HOME=str(home), TMPDIR=str(tmp))  # PYTHONHASHSEED stays the run's, which the verdict records
        settings = {"gate": gate_parent, "production": production, "budget": budget, "scratch": self.scratch}
        self.proc = subprocess.Popen(
            [sys.executable, *SANDBOX_ARGV], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
            cwd=root or production[0], env=env, close_fds=True, start_new_session=True)
        boot = SANDBOX_BOOT.format(settings=_json(settings)).encode()
        self.proc.stdin.write(b"%08d" % len(boot) + boot)
        self.proc.stdin.flush()
        self.call_timeout, self.dead, self.calls, self.seconds, self.wall = call_timeout, "", 0, 0.0, ""
        self.lock = threading.RLock()
        atexit.register(self.close)

    def request(self, message: dict) -> dict:
        with self.lock:
            if self.dead:
                raise _violation(f"the sandbox is gone ({self.dead}); no further calls can be answered")
            if _released:
                message["release"], _released[:] = list(_released), []
            callbacks.release()
            start = time.perf_counter()
            try:
                write_frame(self.proc.stdin, message)
                reader = _TimedReader(self.proc.stdout.fileno(), time.monotonic() + self.call_timeout)
                reply = read_frame(reader)
                while set(reply) == {"refusal"} or "back" in reply:
                    if "back" in reply:  # production code calls an object the test passed; it waits for us
                        callbacks.collect(reply)
                        write_frame(self.proc.stdin, callbacks.serve(reply["back"], _out, _handle, _violation))
                        reader = _TimedReader(self.proc.stdout.fileno(), time.monotonic() + self.call_timeout)
                    else:  # written by the sandbox's hook the moment it refused
                        _violation(f"production code tried {str(reply['refusal'])[:300]}, which the sandbox "
                                   "refuses")
                    reply = read_frame(reader)
                callbacks.collect(reply)
            except NotPlain:
                raise
            except TimeoutError:
                self._kill(f"a call ran over its {self.call_timeout:g} s budget")
                raise _violation(self.dead) from None
            except (ChannelError, OSError) as exc:
                self._kill(f"the channel broke: {exc}{self._log_tail()}")
                raise _violation(self.dead) from None
            finally:
                self.calls += 1
                self.seconds += time.perf_counter() - start
            if type(reply.get("wall")) is str:
                self.wall = reply["wall"][:100]
            return reply

    def _log_tail(self) -> str:
        try:
            self.log.flush()
            tail = (Path(self.log_folder) / "sandbox.log").read_bytes()[-600:].decode("utf-8", "replace").strip()
        except OSError:
            return ""
        return f" (sandbox output: {tail})" if tail else ""

    def _kill(self, why: str) -> None:
        self.dead = why
        try:
            os.killpg(self.proc.pid, 9)
        except OSError:
            pass
        self.proc.wait()

    def close(self) -> None:
        if not self.dead:
            self.dead = "closed"
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
            self._kill("closed")
        self.log.close()
        shutil.rmtree(self.scratch, ignore_errors=True)
        shutil.rmtree(self.log_folder, ignore_errors=True)


def _json(value) -> str:
    import json

    return json.dumps(value)


def stats() -> dict:
    if _sandbox is None:
        return {"started": False, "calls": 0, "seconds": 0.0}
    return {"started": True, "calls": _sandbox.calls, "seconds": round(_sandbox.seconds, 4), "wall": _sandbox.wall}


def _exception(described) -> BaseException:
    own = callbacks.raised(described.get("origin")) if type(described) is dict else None
    if own is not None:
        return own  # the test's own exception, raised in a call back, that production code let through
    try:
        return build_exception(described, lambda data: decode(data, _handle))
    except ChannelError as exc:
        raise _violation(str(exc)) from None


def _raise(described) -> None:
    exc = _exception(described)
    cls = type(exc)
    name = f"{cls.__module__}.{cls.__qualname__}"
    # SystemExit (a CLI's exit) fails the test that meets it, or pytest.raises catches it, as under plain pytest.
    if not issubclass(cls, (Exception, SystemExit)) or (cls.__module__, cls.__qualname__) in STEERING:
        raise _violation(f"production code raised {name}, which would steer the test run instead of failing it")
    raise exc


class SandboxObject:
    """A handle on an object that stays in the sandbox: attributes, calls, operators, iteration and isinstance
    checks against it are asked of the sandbox."""

    __slots__ = ("_number", "_meta", "__weakref__")

    def __init__(self, number: int, meta: dict) -> None:
        object.__setattr__(self, "_number", number)
        object.__setattr__(self, "_meta", meta)

    def _dunder_getattr(self, name: str):
        return _ask({"op": "getattr", "of": self._number, "name": name})

    def __getattr__(self, name: str):
        if name in SandboxObject.__slots__:
            raise AttributeError(name)  # a handle made without __init__ (object.__new__): it stands for nothing
        if name in ("__name__", "__qualname__") and self._meta["name"]:
            return self._meta["name"]
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)  # introspection (inspect, typing) stays on this side
        return _ask({"op": "getattr", "of": self._number, "name": name})

    def __setattr__(self, name, value):
        self._dunder("setattr", name, value)

    def __delattr__(self, name):
        self._dunder("delattr", name)

    def __call__(self, *args, **kwargs):
        return _ask({"op": "call", "of": self._number, "args": _out(list(args)), "kwargs": _out(kwargs)},
                    (args, kwargs))

    def _dunder(self, name: str, *args):
        return _ask({"op": "dunder", "of": self._number, "name": name, "args": _out(list(args))}, (args, {}))

    def __repr__(self) -> str:
        try:
            text = self._dunder("repr")
        except Exception:
            text = None
        return text if type(text) is str else f"<sandbox {self._meta['type']} #{self._number}>"

    def __str__(self) -> str:
        return _exact(self._dunder("str"), str, "str()")

    def __format__(self, spec) -> str:
        return _exact(self._dunder("format", spec), str, "format()")

    def __bool__(self) -> bool:
        return _exact(self._dunder("bool"), bool, "bool()")

    def __len__(self) -> int:
        return _exact(self._dunder("len"), int, "len()")

    def __hash__(self) -> int:
        return _exact(self._dunder("hash"), int, "hash()")

    def __int__(self) -> int:
        return _exact(self._dunder("int"), int, "int()")

    def __float__(self) -> float:
        return _exact(self._dunder("float"), float, "float()")

    def __index__(self) -> int:
        return _exact(self._dunder("index"), int, "index")

    def __iter__(self):
        """Lazily, in growing batches: a production generator runs no further ahead than a few items."""
        iterator, batch = self._dunder("iter"), 1
        while True:
            items = _exact(iterator._dunder("take", batch) if type(iterator) is SandboxObject else None, list,
                           "iteration")
            yield from items
            if len(items) < batch:
                return
            batch = min(batch * 2, 256)

    def __next__(self):
        items = _exact(self._dunder("take", 1), list, "next()")
        if not items:
            raise StopIteration
        return items[0]

    def __reversed__(self):
        return self._dunder("reversed")

    def __getitem__(self, key):
        return self._dunder("getitem", key)

    def __setitem__(self, key, value):
        self._dunder("setitem", key, value)

    def __delitem__(self, key):
        self._dunder("delitem", key)

    def __contains__(self, item) -> bool:
        return _exact(self._dunder("contains", item), bool, "in")

    def __instancecheck__(self, obj) -> bool:
        # An object of this side that cannot cross is no instance of a class of the sandbox (pytest, Hypothesis and
        # typing ask such questions of every class they meet).
        return _crosses(obj) and _exact(self._dunder("isinstance", obj), bool, "isinstance()")

    def __subclasscheck__(self, cls) -> bool:
        return type(cls) is SandboxObject and _exact(self._dunder("issubclass", cls), bool, "issubclass()")

    def __round__(self, *digits):
        return self._dunder("round", *digits)

    def __neg__(self):
        return self._dunder("neg")

    def __pos__(self):
        return self._dunder("pos")

    def __abs__(self):
        return self._dunder("abs")

    def __invert__(self):
        return self._dunder("invert")

    def __mro_entries__(self, bases):
        if self._meta["kind"] != "class":
            raise _violation(f"{CHANNEL_LIMIT}: a test subclasses {self._meta['type']}, not a class")
        limit = lambda text: _violation(f"{CHANNEL_LIMIT}: {text}")  # noqa: E731
        return (subclass.mirror(self, SandboxObject, _crosses, limit),)  # a test's class of its own: gate.subclass

    def __reduce_ex__(self, protocol):
        """pickle: the sandbox pickles its object; this side keeps the bytes unread and hands them back to the
        sandbox to unpickle, so nothing production code pickled is ever unpickled in the test process."""
        return unpickled, (_exact(self._dunder("pickle", protocol), bytes, "pickle.dumps()"),)

    def __copy__(self):
        return self._dunder("copy")

    def __deepcopy__(self, memo):
        return self._dunder("deepcopy")

    def __del__(self) -> None:
        number = getattr(self, "_number", None)
        if number is not None:
            _released.append(number)


def unpickled(data: bytes):
    """What the sandbox unpickles from bytes it pickled: a new handle (or plain data), never an object built here."""
    if type(data) is not bytes:
        raise TypeError(f"a pickled sandbox object is bytes, not {type(data).__name__}")
    return _ask({"op": "unpickle", "data": _out(data)})


def _binary(name: str):
    def forward(self, other):
        return self._dunder(name, other)

    def reflected(self, other):
        return self._dunder(f"r{name}", other)
    return forward, reflected


def _compared(name: str):
    def compare(self, other):
        # `handle == typing.Any` is False, as it would be for any object that never met this one.
        return self._dunder(name, other) if _crosses(other) else NotImplemented
    return compare


def _crosses(value) -> bool:
    try:
        encode(value, _handle_of)
    except (NotPlain, RecursionError):
        return False
    return True


for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    setattr(SandboxObject, f"__{_name}__", _compared(_name))
for _name in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift", "and", "or",
              "xor"):
    _forward, _reflected = _binary(_name)
    setattr(SandboxObject, f"__{_name}__", _forward)
    setattr(SandboxObject, f"__r{_name}__", _reflected)


_live: "weakref.WeakValueDictionary[int, SandboxObject]" = weakref.WeakValueDictionary()


def _exact(value, kind: type, what: str):
    if type(value) is not kind:
        raise _violation(f"{what} of a sandbox object gave {type(value).__name__}, not {kind.__name__}")
    return value


def _handle_of(obj):
    if isinstance(obj, SandboxObject):  # an instance of a test's subclass of a production class too
        return ["h", obj._number]
    if type(obj) is SandboxZone:
        return ["h", obj.handle._number]
    if isinstance(obj, TargetModule):
        return ["h", obj.__dict__["_gate_handle"]._number]
    raise NotPlain(f"{type(obj).__module__}.{type(obj).__qualname__} is not plain data")


def _out(value):
    """Arguments as plain data; handles go back as their ids, the test's own objects as numbers it keeps. What
    cannot cross is a limit of the channel, not a fault of the patch: a violation that says so."""
    try:
        return encode(value, _handle_or_passed)  # the test's own objects stay here, called back
    except NotPlain as exc:
        raise _violation(f"{CHANNEL_LIMIT}: a test passed production code a value it cannot carry ({exc})") from None


_handle_or_passed = callbacks.or_passed(_handle_of)


def _handle(tag: str, rest: list):
    if tag == "cb":
        return callbacks.find(rest)
    if tag == "ns" and len(rest) == 3:
        return callbacks.namespace(*rest, lambda data: decode(data, _handle))
    if tag == "x" and len(rest) == 1:
        return exception_class(rest[0])
    if tag == "e" and len(rest) == 1:
        return _exception(rest[0])
    if tag != "h" or len(rest) != 2 or type(rest[0]) is not int or type(rest[1]) is not dict:
        raise ChannelError(f"unknown value tag {tag!r}")
    number, meta = rest
    if set(meta) - {"sub"} != {"kind", "type", "name", "package", "stdlib"} or not all(
            type(meta[k]) is str for k in ("kind", "type", "name")) or type(meta["package"]) is not bool:
        raise ChannelError("malformed handle")
    ours = _stdlib_object(meta["stdlib"], meta["kind"])
    if ours is not None:
        return ours
    module = sys.modules.get(meta["name"]) if meta["kind"] == "module" else None
    if isinstance(module, TargetModule) and module.__dict__["_gate_handle"]._number == number:
        return module
    while number in _released:
        _released.remove(number)  # a handle the sandbox just sent again is alive again
    found = _live.get(number)
    if found is None:
        found = _live[number] = subclass.instance(callbacks.find([meta["sub"]]), SandboxObject, number, meta) \
            if type(meta.get("sub")) is int else SandboxObject(number, meta)
    if meta["kind"] == "tzinfo":  # datetime needs a real tzinfo: one whose methods ask the sandbox's
        zone = _zones.get(number)
        if zone is None:
            zone = _zones[number] = SandboxZone(found)
        return zone
    return found


_zones: "weakref.WeakValueDictionary[int, SandboxZone]" = weakref.WeakValueDictionary()


def _stdlib_object(name, kind: str):
    """Our own copy of a standard-library module, class or function the sandbox handed over, if loaded here."""
    if type(name) is not list or len(name) != 2 or not all(type(n) is str for n in name):
        return None
    module, qualname = name
    if module != "builtins" and module.split(".")[0] not in sys.stdlib_module_names:
        return None
    found = sys.modules.get(module) if kind == "module" else loaded(module, qualname)
    return None if found is None or isinstance(found, TargetModule) else found


def _ask(message: dict, sent: tuple | None = None):
    if _sandbox is None:
        raise _violation("production code was called before the sandbox started")
    reply = _sandbox.request(message)
    callbacks.deliver()
    if "after_refused" in reply:
        raise _violation(f"an argument production code changed in place cannot cross back: "
                         f"{str(reply['after_refused'])[:300]}")
    if "after" in reply and sent is not None:
        try:
            after = decode(reply["after"], _handle)
        except ChannelError as exc:
            raise _violation(f"arguments changed in place came back malformed: {exc}") from None
        if type(after) is not list or len(after) != 2:
            raise _violation("arguments changed in place came back malformed")
        sync_in_place(list(sent[0]), after[0])
        sync_in_place(sent[1], after[1])
    return _answer(reply)


CHANNEL_LIMIT = "a limit of the gate's channel, not a fault of the patch"
# A module's own metadata that tests read (`from idna.package_data import __version__`), asked of the sandbox.
METADATA = re.compile(r"__(version|version_info|author|license|copyright|email|title|url|description|credits)__")


def _answer(reply: dict):
    if "raise" in reply:
        _raise(reply["raise"])
    if "value" in reply:
        try:
            return decode(reply["value"], _handle)
        except ChannelError as exc:
            raise _violation(f"a reply from production code is not plain data: {exc}") from None
    refused = reply.get("refused")
    raise _violation(f"production code's reply cannot cross the channel: {str(refused)[:500]}")


class TargetModule(types.ModuleType):
    """A module of the patched tree, as the properties see it: attributes come from the sandbox."""

    def __getattr__(self, name: str):
        if name == "__all__":  # `from target import *`: the module's __all__, else its public names
            return _exact(self.__dict__["_gate_handle"]._dunder("names"), list, "__all__")
        if name.startswith("__") and name.endswith("__") and not METADATA.fullmatch(name):
            raise AttributeError(name)  # the import system's and introspection's own names stay on this side
        value = self.__dict__["_gate_handle"]._dunder_getattr(name)
        if isinstance(value, (SandboxObject, TargetModule, type)):
            self.__dict__[name] = value  # functions and classes are fixed: the same object each time
        return value

    def __setattr__(self, name: str, value) -> None:
        """A test that sets a module's attribute (monkeypatch.setattr) sets it where production code reads it; the
        import system's own bookkeeping (dunders, submodules) stays on this side."""
        if (name.startswith("__") and name.endswith("__")) or isinstance(value, TargetModule):
            super().__setattr__(name, value)
            return
        self.__dict__.pop(name, None)
        self.__dict__["_gate_handle"]._dunder("setattr", name, value)

    def __delattr__(self, name: str) -> None:
        if name.startswith("__") and name.endswith("__"):
            super().__delattr__(name)
            return
        self.__dict__.pop(name, None)
        self.__dict__["_gate_handle"]._dunder("delattr", name)


class TargetLoader(importlib.abc.Loader):
    def __init__(self, handle: SandboxObject) -> None:
        self.handle = handle

    def create_module(self, spec):
        module = TargetModule(spec.name)
        module.__dict__["_gate_handle"] = self.handle
        return module

    def exec_module(self, module) -> None:
        pass


class TargetFinder(importlib.abc.MetaPathFinder):
    def __init__(self, names: frozenset[str]) -> None:
        self.names = names

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] not in self.names:
            return None
        reply = _sandbox.request({"op": "import", "module": fullname})
        callbacks.deliver()
        raised = reply.get("raise")
        if type(raised) is dict and type(raised.get("mro")) is list and raised["mro"][:1] == [
                ["builtins", "ModuleNotFoundError"]]:
            return None
        handle = _answer(reply)  # raises the import's own error, or a violation
        if type(handle) is not SandboxObject or handle._meta["kind"] != "module":
            raise _violation(f"importing {fullname} in the sandbox gave no module")
        spec = importlib.machinery.ModuleSpec(fullname, TargetLoader(handle), is_package=handle._meta["package"])
        if spec.submodule_search_locations is not None:
            spec.submodule_search_locations = []
        return spec


def target_names(production: list[str], exclude: set[str], base_names: set[str] | None = None) -> frozenset[str]:
    """Top-level modules and packages of the patched tree, less the standard library, everything the gate already
    imported (pytest, hypothesis, the gate: a shadow in the tree stays a shadow), the oracle's own folders, and any
    name the base does not have that the gate's own environment provides (a patch that adds `yaml/` cannot serve
    the tests a `yaml` of its own)."""
    names = top_level_names(production)
    return frozenset(n for n in names if n not in sys.stdlib_module_names and n not in sys.modules
                     and n not in exclude and n not in ("conftest", "setup")
                     and (base_names is None or n in base_names or importlib.util.find_spec(n) is None))


def top_level_names(roots) -> set[str]:
    names = set()
    for root in map(Path, roots):
        for entry in root.iterdir() if root.is_dir() else ():
            name = entry.stem if entry.suffix == ".py" and entry.is_file() else entry.name if entry.is_dir() else ""
            if name.isidentifier() and (entry.is_file() or any(entry.glob("*.py"))):
                names.add(name)
    return names


def install(gate_parent: str, production: list[str], options: dict) -> frozenset[str]:
    """Start the sandbox and route imports of the patched tree's packages to it. Returns the proxied names."""
    global _sandbox
    base = options.get("base_names")
    names = target_names(production, set(options.get("exclude", ())), set(base) if base is not None else None)
    _sandbox = Sandbox(gate_parent, production, float(options.get("budget", 600)),
                       float(options.get("call_timeout", 60)), options.get("root"))
    sys.meta_path.insert(0, TargetFinder(names))
    return names
