"""The sandbox process: imports the patched production code and answers the properties' calls over the channel.

It starts from the gate's own interpreter with a scrubbed environment in a private temporary folder, under a budget
(CPU seconds, address space, file size, open files), imports production code from the patched tree as a checkout
has it, and raises two fences before any of it runs: a kernel wall where Linux offers Landlock
(wall) and an audit hook. Both allow reads only from that tree, the interpreter's own library folders and the
temporary folder, and writes only to that folder; the hook also refuses processes, sockets, ctypes and walks of the
garbage collector. The hook is a tripwire inside one interpreter; what it refuses is reported to the gate and
blocks. The wall is what holds when code gets past the hook.

Nothing here is trusted by the other side: every reply is decoded strictly there, so a target that rewrites this
module can at most send wrong plain data, never an object of its own into the properties' process.

Standard library only (and gate.channel): it runs before and beside production code.
"""

import _imp
import builtins
import copy
import datetime
import functools
import importlib
import importlib.machinery
import itertools
import json
import operator
import os
import pickle
import posix
import resource
import struct
import sys
import traceback
import types
import urllib.parse

from gate.channel import ChannelError, NotPlain, decode, encode, loaded, read_frame, write_frame
from gate.reverse import SUBCLASSES, Link, Remote, call_from_base, from_base, subclass

REFUSED_EVENTS = frozenset({
    "subprocess.Popen", "os.system", "os.posix_spawn", "os.posix_spawnp", "os.fork", "os.forkpty", "pty.spawn",
    "os.kill", "os.killpg", "signal.pthread_kill", "ctypes.dlopen", "ctypes.dlsym", "ctypes.cdata",
    "socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg", "gc.get_objects", "gc.get_referrers",
    "gc.get_referents", "sys.settrace", "sys.setprofile", "webbrowser.open", "sqlite3.enable_load_extension",
    "sqlite3.load_extension",
})
REFUSED_IMPORTS = frozenset({"_posixsubprocess", "_ctypes", "_xxsubinterpreters"})
WRITE_EVENTS = frozenset({
    "os.remove", "os.rmdir", "os.mkdir", "os.chmod", "os.chown", "os.truncate", "os.utime", "os.symlink",
    "os.link", "os.rename", "shutil.rmtree", "shutil.copyfile", "shutil.copytree", "shutil.move",
})
SOURCE_AND_DESTINATION = frozenset({"os.link", "os.symlink", "shutil.copyfile", "shutil.copytree"})
BOTH_WRITTEN = frozenset({"os.rename", "shutil.move"})
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
# File-creating functions that raise no audit event: replaced in os and posix by stand-ins that raise one of ours,
# so the hook checks the path and makes the node itself.
UNAUDITED = ("mkfifo", "mknod")
UNAUDITED_EVENT = "oracle-gate.unaudited"
BUILTIN_EVENT = "oracle-gate.create_builtin"  # a fresh `posix` module would hold the originals again
UNAUDITED_KEYWORDS = frozenset({"mode", "device"})
IN_MEMORY = frozenset({"", ":memory:", b"", b":memory:"})
BINARY = ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift", "and", "or",
          "xor")
DUNDERS = {
    "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
    "ge": operator.ge, "repr": repr, "str": str, "bool": bool, "len": len, "hash": hash,
    "getitem": operator.getitem, "setitem": operator.setitem, "delitem": operator.delitem,
    "contains": operator.contains, "iter": iter, "take": lambda it, n: list(itertools.islice(it, n)),
    "neg": operator.neg, "pos": operator.pos, "abs": abs, "invert": operator.invert, "int": int, "float": float,
    "index": operator.index, "format": format, "round": round, "reversed": reversed,
    "isinstance": lambda cls, obj: isinstance(obj, cls), "issubclass": lambda cls, sub: issubclass(sub, cls),
    "setattr": setattr, "delattr": delattr, "copy": copy.copy, "deepcopy": copy.deepcopy,
    "pickle": lambda obj, protocol: pickle.dumps(obj, protocol),
    "dir": lambda obj: [str(n) for n in dir(obj)], "subclass": subclass, "from_base": from_base,
    "call_from_base": call_from_base,
    "names": lambda module: [str(n) for n in getattr(module, "__all__", None) or vars(module) if not n.startswith("_")],
    **{name: getattr(operator, f"{name}_" if name in ("and", "or") else name) for name in BINARY},
    **{f"r{name}": (lambda op: lambda a, b: op(b, a))(getattr(operator, f"{name}_" if name in ("and", "or") else name))
       for name in BINARY},
}
SHARED = (list, dict, set, bytearray)
NAMESPACES = frozenset({("argparse", "Namespace"), ("types", "SimpleNamespace")})
MUTABLE_TAGS = frozenset({"l", "d", "s", "B"})  # a value holding one of these can be changed by the call


def set_budget(cpu_seconds: float) -> None:
    """CPU seconds, address space, file size, open files and no core files; a limit the platform refuses is
    skipped (the per-call wall clock of the other side still holds)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            mapped = int(statm.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        mapped = 0
    limits = {resource.RLIMIT_CPU: max(1, int(cpu_seconds)), resource.RLIMIT_AS: mapped + 4 * 2**30,
              resource.RLIMIT_FSIZE: 64 * 2**20, resource.RLIMIT_NOFILE: 256, resource.RLIMIT_CORE: 0,
              resource.RLIMIT_NPROC: 0}
    for limit, wanted in limits.items():
        _, hard = resource.getrlimit(limit)
        try:
            resource.setrlimit(limit, (wanted if hard == resource.RLIM_INFINITY else min(wanted, hard), hard))
        except (ValueError, OSError):
            pass


def install_hook(read_roots: tuple[str, ...], write_root: str, channel_fd: int, stand_ins: bool = True) -> None:
    """The audit hook. Its state, the builtins and the functions it calls are bound in this closure when it is
    installed, so production code that rebinds a builtin (`builtins.any`), a function of os (`os.path.realpath`) or a
    global of this module (reachable through any frame) cannot loosen it. Each refusal is written to the channel
    the moment it happens, so no record of it is left in this process for production code to find and clear."""
    any, all, enumerate, isinstance, type, len, set, str, bytes, int, tuple, list, dict = (  # noqa: A001
        builtins.any, builtins.all, builtins.enumerate, builtins.isinstance, builtins.type, builtins.len,
        builtins.set, builtins.str, builtins.bytes, builtins.int, builtins.tuple, builtins.list, builtins.dict)
    PermissionError, TypeError, ValueError, OSError, PathLike = (  # noqa: A001
        builtins.PermissionError, builtins.TypeError, builtins.ValueError, builtins.OSError, os.PathLike)
    realpath, fspath, fsencoding, sep = os.path.realpath, posix.fspath, sys.getfilesystemencoding(), os.sep
    refused_events, refused_imports, write_events = REFUSED_EVENTS, REFUSED_IMPORTS, WRITE_EVENTS
    source_and_destination, both_written, write_flags = SOURCE_AND_DESTINATION, BOTH_WRITTEN, WRITE_FLAGS
    unaudited_event, builtin_event, keywords, in_memory = UNAUDITED_EVENT, BUILTIN_EVENT, UNAUDITED_KEYWORDS, IN_MEMORY
    unquote, module_spec = urllib.parse.unquote, importlib.machinery.ModuleSpec
    reads = tuple(realpath(r) for r in read_roots) + (write_root, os.devnull, "/dev/urandom", f"/proc/{os.getpid()}")
    writes = (write_root, os.devnull)

    def fsdecode(path) -> str:
        path = fspath(path)
        return path.decode(fsencoding, "surrogateescape") if isinstance(path, bytes) else path

    def under(path, roots) -> bool:
        try:
            resolved = realpath(fsdecode(path))
        except (TypeError, ValueError, OSError):  # OSError: the wall keeps even a link's target from being read
            return False
        return any(resolved == r or resolved.startswith(r.rstrip(sep) + sep) for r in roots)

    write, dumps, pack = os.write, json.dumps, struct.pack

    def refuse(what: str) -> None:
        body = dumps({"refusal": what[:1000]}, ensure_ascii=True).encode("ascii")
        frame = pack(">I", len(body)) + body
        while frame:
            frame = frame[write(channel_fd, frame):]
        raise PermissionError(f"{what} is not allowed")

    # The originals live only in this closure (an audit hook cannot be read back), never in a stand-in's.
    originals = {name: getattr(os, name) for name in UNAUDITED if hasattr(os, name)}
    create_builtin, already = _imp.create_builtin, frozenset(sys.modules)

    def builtin(name, box) -> None:
        if type(name) is not str or type(box) is not list or name in already:
            refuse(f"creating the built-in module {name!r} again")
        box.append(create_builtin(module_spec(name, None, origin="built-in")))

    def unaudited(name, path, args, kwargs) -> None:
        # Plain values only: nothing of production code's may run while this frame holds the originals.
        if (name not in originals or type(path) not in (str, bytes) or type(args) is not tuple
                or type(kwargs) is not dict or not all(type(a) is int for a in args)
                or not set(kwargs) <= keywords or not all(type(v) is int for v in kwargs.values())):
            refuse(f"os.{name} with arguments other than a path and integers (no dir_fd)")
        if not under(path, writes):
            refuse(f"os.{name} on {fsdecode(path)}")
        originals[name](path, *args, **kwargs)

    def sqlite_file(database) -> None:
        """sqlite3.connect creates its file without an `open` event; a `file:` URI names it after the scheme."""
        if database in in_memory:
            return
        text = fsdecode(database) if isinstance(database, (str, bytes, PathLike)) else None
        if text is None:
            refuse(f"sqlite3.connect on {database!r}")
        candidates = [text]
        if text.startswith("file:"):
            location = text[5:].split("?", 1)[0].split("#", 1)[0]
            location = "/" + location[2:].split("/", 1)[-1] if location.startswith("//") else location
            candidates += [] if location in ("", ":memory:") else [unquote(location)]
        for candidate in candidates:
            if not under(candidate, writes):
                refuse(f"sqlite3.connect on {text}")

    def hook(event: str, args: tuple) -> None:
        if event == "open":
            path, mode, flags = args
            if path is None or isinstance(path, int):
                return
            writing = (isinstance(flags, int) and flags & write_flags) or (
                isinstance(mode, str) and set(mode) & set("wax+"))
            if writing and not under(path, writes):
                refuse(f"writing {fsdecode(path)}")
            if not writing and not under(path, reads):
                refuse(f"reading {fsdecode(path)}")
        elif event in ("os.listdir", "os.scandir"):
            path = args[0] if args else None
            if path is not None and not isinstance(path, int) and not under(path, reads):
                refuse(f"listing {fsdecode(path)}")
        elif event == "sqlite3.connect":
            sqlite_file(args[0] if args else None)
        elif event == unaudited_event and len(args) == 4:
            unaudited(*args)
        elif event == builtin_event and len(args) == 2:
            builtin(*args)
        elif event in refused_events or event.startswith(("os.exec", "os.spawn", "ctypes.")):
            refuse(event)
        elif event == "import" and args and args[0] in refused_imports:
            refuse(f"importing {args[0]}")
        elif event in write_events:
            paths = args[:2] if event in source_and_destination or event in both_written else args[:1]
            for place, path in enumerate(paths):
                if event == "os.symlink" and place == 0:
                    continue  # a link's target is only text; opening the link checks where it leads
                roots = reads if event in source_and_destination and place == 0 else writes
                if isinstance(path, (str, bytes, PathLike)) and not under(path, roots):
                    refuse(f"{event} on {fsdecode(path)}")

    sys.addaudithook(hook)
    if not stand_ins:
        return  # the kernel wall holds mkfifo, mknod and a second `posix`: no stand-in to give the sandbox away
    for name in originals:
        stand_in = _audited(name)
        setattr(os, name, stand_in)
        setattr(posix, name, stand_in)
    _imp.create_builtin = _create_builtin


def _create_builtin(spec):
    name, box = spec.name, []  # production code's spec is read here, never inside the hook
    sys.audit(BUILTIN_EVENT, name, box)
    return box[0]


def _audited(name: str):
    """A stand-in for os.NAME that only raises our audit event; the hook does the rest."""
    def call(path, *args, **kwargs):
        sys.audit(UNAUDITED_EVENT, name, os.fspath(path), args, kwargs)
    call.__name__ = call.__qualname__ = name
    return call


class Objects:
    """Everything that stays in the sandbox, by handle id; the same object always gets the same id."""

    def __init__(self) -> None:
        self.by_id: dict[int, object] = {}
        self.ids: dict[int, int] = {}  # id(obj) -> handle id, while the handle lives
        self.next_id = 1
        self.link: Link | None = None

    def handle(self, obj):
        if isinstance(obj, Remote) and obj._link is self.link:
            return ["cb", obj._number]  # the test process's own object goes home as itself
        if isinstance(obj, type) and issubclass(obj, BaseException):
            return ["x", class_path(obj)]
        if isinstance(obj, BaseException):
            return ["e", described(obj, self)]
        namespace = _namespace(obj, self.handle)
        if namespace is not None:
            return namespace
        number = self.ids.get(id(obj))
        if number is None:
            number, self.next_id = self.next_id, self.next_id + 1
            self.by_id[number], self.ids[id(obj)] = obj, number
        kind = ("module" if isinstance(obj, types.ModuleType) else "class" if isinstance(obj, type)
                else "tzinfo" if isinstance(obj, datetime.tzinfo)
                else "callable" if callable(obj) else "object")
        name = getattr(obj, "__name__", None) if kind != "object" else None
        meta = {"kind": kind, "type": f"{type(obj).__module__}.{type(obj).__qualname__}",
                "name": name if type(name) is str else "",
                "package": kind == "module" and hasattr(obj, "__path__"), "stdlib": _stdlib_name(obj, kind)}
        test_class = SUBCLASSES.get(type(obj))
        if test_class is not None:
            meta["sub"] = test_class._number  # an instance of a test's subclass: the test sees its own class
        return ["h", number, meta]

    def get(self, tag, rest):
        if tag == "h" and len(rest) == 1 and type(rest[0]) is int and rest[0] in self.by_id:
            return self.by_id[rest[0]]
        if tag == "cb" and self.link is not None:
            return self.link.remote(rest)
        raise ChannelError(f"unknown handle {rest!r}")

    def release(self, numbers) -> None:
        for number in numbers if type(numbers) is list else ():
            obj = self.by_id.pop(number, None)
            if obj is not None:
                self.ids.pop(id(obj), None)


def _namespace(obj, handle_of) -> list | None:
    """A standard-library attribute bag (argparse.Namespace, types.SimpleNamespace) of plain attributes, by value:
    the test compares it with one of its own."""
    kind = type(obj)
    if (kind.__module__, kind.__qualname__) not in NAMESPACES or loaded(kind.__module__, kind.__qualname__) is not kind:
        return None
    try:
        return ["ns", kind.__module__, kind.__qualname__, encode(dict(vars(obj)), handle_of)]
    except (NotPlain, RecursionError):
        return None


def _stdlib_name(obj, kind: str) -> list | None:
    """[module, qualname] of a standard-library module, class or function that is truly that object here: the
    other side uses its own (so `from target import *` brings the real `datetime`, not a handle on ours)."""
    if kind == "object":
        return None
    module, qualname = (getattr(obj, "__name__", None), "") if kind == "module" else (
        getattr(obj, "__module__", None), getattr(obj, "__qualname__", None))
    if type(module) is not str or type(qualname) is not str or (
            module != "builtins" and module.split(".")[0] not in sys.stdlib_module_names):
        return None
    return [module, qualname] if (sys.modules.get(module) if kind == "module" else loaded(module, qualname)) is obj \
        else None


def class_path(cls: type) -> list[list]:
    """[module, qualname, genuine] per class of the MRO: genuine when that name, among the modules loaded here,
    is this very class (a class that merely says it is builtins.ValueError is not)."""
    return [[str(c.__module__), str(c.__qualname__), loaded(str(c.__module__), str(c.__qualname__)) is c]
            for c in cls.__mro__ if c is not object]


def perform(message: dict, objects: Objects, reply: dict):
    op = message.get("op")
    if op == "import":
        return importlib.import_module(str(message["module"]))
    if op == "unpickle":  # bytes this process pickled, handed back unread by the other side
        data = decode(message.get("data"))
        if type(data) is not bytes:
            raise ChannelError("unpickle takes bytes")
        return pickle.loads(data)
    target = objects.get("h", [message.get("of")])
    sent = [message.get("args", ["l", []]), message.get("kwargs", ["d", []])]
    args = decode(sent[0], objects.get)
    kwargs = decode(sent[1], objects.get) if op == "call" else {}
    if op == "getattr":
        return getattr(target, str(message["name"]))
    if op == "dunder" and message.get("name") not in DUNDERS or op not in ("call", "dunder"):
        raise ChannelError(f"unknown request {op!r}")
    try:
        return target(*args, **kwargs) if op == "call" else DUNDERS[message["name"]](target, *args)
    finally:  # also when it raises: what it changed before raising is changed
        changed_in_place(sent, [args, kwargs], objects, reply)


def changed_in_place(sent: list, now: list, objects: Objects, reply: dict) -> None:
    """The arguments as they are after the call, when a mutable one changed: the other side updates the caller's
    own objects, so in-place effects (an honest in-place sort, or a cheat that edits its input) show there too."""
    items = sent[0][1] if len(sent[0]) == 2 and type(sent[0][1]) is list else []
    pairs = sent[1][1] if len(sent[1]) == 2 and type(sent[1][1]) is list else []
    if not any(_holds_mutable(v) for v in items + [p[1] for p in pairs if type(p) is list and len(p) == 2]):
        return
    try:
        if encode(now, _short_handle(objects)) != sent:
            reply["after"] = encode(now, objects.handle)
    except Exception as exc:  # noqa: BLE001 - any failure here is the channel's, never production code's error
        reply["after_refused"] = f"{type(exc).__name__}: {exc}"[:500]


def _short_handle(objects: Objects):
    def short(obj):
        number = objects.ids.get(id(obj))
        return ["h", number] if number is not None else ["new"]
    return short


def _holds_mutable(data, depth: int = 0) -> bool:
    """Whether an encoded value may hold a list, dict, set or bytearray (a cheap over-estimate)."""
    if type(data) is not list or depth > 300:
        return False
    return (bool(data) and type(data[0]) is str and data[0] in MUTABLE_TAGS) or any(
        _holds_mutable(part, depth + 1) for part in data)


EXCEPTION_CHAIN = 8


def described(exc: BaseException, objects: "Objects | None" = None, depth: int = 0, seen: set | None = None) -> dict:
    """An exception as plain data: its class path, args, message, plain attributes (objects as handles), the
    sandbox's traceback and its __cause__/__context__ chain."""
    seen = set() if seen is None else seen
    seen.add(id(exc))
    handle_of = objects.handle if objects is not None else None
    try:
        args = encode(exc.args, handle_of)
    except (NotPlain, RecursionError):
        args = None
    try:
        message = str(exc)
    except Exception:
        message = "<the exception's message could not be formed>"
    attributes, unsent = [], []
    names = list(getattr(exc, "__dict__", {}) or {}) + [  # an OSError's file names live outside its args
        n for n in ("filename", "filename2") if isinstance(exc, OSError) and getattr(exc, n) is not None]
    for name in names:
        if type(name) is not str or name.startswith("__"):
            continue
        try:
            attributes.append([name, encode(getattr(exc, name), handle_of)])
        except Exception:
            unsent.append(name)
    lines = traceback.format_exception(exc, chain=False)
    found = {"mro": class_path(type(exc)), "args": args, "message": message[:2000],
             "traceback": "".join(lines[-12:])[-4000:], "attributes": attributes, "unsent": unsent,
             "suppress_context": bool(exc.__suppress_context__)}
    for link in ("cause", "context"):
        linked = getattr(exc, f"__{link}__")
        if isinstance(linked, BaseException) and id(linked) not in seen and depth < EXCEPTION_CHAIN:
            found[link] = described(linked, objects, depth + 1, seen)
    return found


def serve(chan_in, chan_out, wall: str = "", link: Link | None = None) -> None:
    objects = Objects()
    link = link or Link(chan_in, chan_out, objects, None)
    link.objects, link.answer, objects.link = objects, functools.partial(answer, objects, link, wall), link
    while True:
        try:
            message = read_frame(chan_in)
        except ChannelError:
            return  # the properties' side is done
        link.answer(message)


def answer(objects: Objects, link: Link, wall: str, message: dict) -> None:
    """Perform one request of the properties' side and write its reply (with what production code printed and
    warned meanwhile)."""
    objects.release(message.get("release"))
    reply: dict = {}
    try:
        value = perform(message, objects, reply)
        # A list, dict, set or bytearray read off a module or object is that very container, so a test that
        # changes it (`registry.add(...)`) changes what production code reads; results of calls cross by value.
        shared = message.get("op") == "getattr" and type(value) in SHARED
        reply["value"] = objects.handle(value) if shared else encode(value, objects.handle)
    except (ChannelError, RecursionError) as exc:
        reply["refused"] = str(exc)
    except BaseException as exc:  # the target's own exceptions cross with their class path and attributes
        reply["raise"] = described(exc, objects)
        origin = link.origin(exc)
        if origin is not None:
            reply["raise"]["origin"] = origin  # raised by the test's own code: it gets its own exception back
    reply["wall"] = wall
    try:
        link.frame(reply)
    except (ChannelError, TypeError, ValueError) as exc:
        link.frame({"refused": f"the reply could not be sent: {exc}"})


def build_wall(read_roots: tuple[str, ...], scratch: str) -> str:
    """The kernel wall (wall) where there is one; then ctypes leaves sys.modules, so importing it again is an
    import the hook refuses."""
    import wall

    built = wall.build(read_roots + ("/dev/urandom", f"/proc/{os.getpid()}"), scratch, (os.devnull,))
    for name in [n for n in sys.modules if n in ("ctypes", "_ctypes") or n.startswith(("ctypes.", "wall"))]:
        del sys.modules[name]
    return built


def main(settings: dict):
    """Take fds 0 and 1 for the channel (production code that prints writes to the log instead) and confine the
    process; returns the loop that serves until the other side closes (called by the boot code, so no frame of
    this function is on the stack while production code runs). The working folder is the patched tree, read-only;
    HOME and TMPDIR are folders of the writable scratch folder."""
    production, scratch = list(settings["production"]), os.path.realpath(settings["scratch"])
    chan_in = os.fdopen(os.dup(0), "rb", buffering=0)
    chan_out = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)
    read_roots = tuple(p for p in sys.path if p) + tuple(production) + (
        os.getcwd(), sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, "/usr", "/etc",
        os.path.dirname(os.path.abspath(__file__)))  # the gate's own source, for tracebacks
    set_budget(float(settings["budget"]))
    wall = build_wall(read_roots, scratch)
    link = Link(chan_in, chan_out, None, None)
    link.class_path = class_path
    link.capture()
    _disguise()  # before the hook is made from its code
    install_hook(read_roots, scratch, chan_out.fileno(), not wall)
    sys.path[:0] = production
    sys.argv[:] = [""]
    sys.pycache_prefix = os.path.join(scratch, ".bytecode")  # never read a cached .pyc of the tree (and -B: write none)
    for name in [n for n in sys.modules if n == "gate" or n.startswith("gate.")]:
        del sys.modules[name]  # production code has no business with the gate's modules
    return functools.partial(serve, chan_in, chan_out, wall, link)


def _disguise() -> None:
    """Frames production code can walk up to (the dispatcher, the hook, the channel's encoder) name nothing of the
    gate: their code says `<string>`, as a `python -c` program's would, and their modules carry no name, file or
    docstring of ours."""
    import gate.channel as channel
    import gate.replies as replies
    import gate.reverse as reverse

    ours = (__name__, channel.__name__, replies.__name__, reverse.__name__)
    for module in (sys.modules[__name__], channel, replies, reverse):
        namespace = vars(module)
        for value in list(namespace.values()):
            for function in _functions(value, ours):
                function.__code__ = _neutral(function.__code__)
                function.__module__ = "__main__"
            if isinstance(value, type) and value.__module__ in ours:
                value.__module__ = "__main__"
        for key in ("__file__", "__cached__", "__doc__", "__spec__", "__loader__"):
            namespace.pop(key, None)
        namespace["__name__"] = "__main__"


def _functions(value, ours: tuple[str, ...]):
    if isinstance(value, types.FunctionType):
        yield value
    elif isinstance(value, type) and value.__module__ in ours:
        yield from (v for v in vars(value).values() if isinstance(v, types.FunctionType))
    elif isinstance(value, dict):
        yield from (v for v in value.values() if isinstance(v, types.FunctionType))


def _neutral(code: types.CodeType) -> types.CodeType:
    consts = tuple(_neutral(c) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_filename="<string>", co_name="<module>", co_qualname="<module>", co_consts=consts)
