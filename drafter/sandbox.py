"""The box every worker that runs model-written code lives in: an audit hook, resource limits, a scrubbed
environment. A worker runs only candidates and the target, so anything the hook refuses is theirs."""

from __future__ import annotations

import math
import os
import re
import resource
import sys
import urllib.parse
from pathlib import Path

# Events a worker never needs: new processes, foreign code, the network (the exact names CPython 3.11 raises).
REFUSED_EVENTS = {
    "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
    "pty.spawn", "ctypes.dlopen", "ctypes.dlsym", "ctypes.cdata", "socket.__new__", "socket.connect", "socket.bind",
    "socket.sendto", "socket.sendmsg", "os.kill", "os.killpg", "signal.pthread_kill", "webbrowser.open",
    "resource.setrlimit", "resource.prlimit",  # the box's own limits are set before its hook is installed
}
# Events that change the file system at the path given first (both paths for a rename).
PATH_EVENTS = {
    "os.remove", "os.rmdir", "os.mkdir", "os.chmod", "os.chown", "os.truncate", "os.utime", "os.symlink",
    "os.link", "os.rename", "shutil.rmtree", "shutil.copyfile", "shutil.copytree", "shutil.move",
}
# Functions that create a file but raise no audit event: replaced in the box (in `os` and `posix`) by checked ones.
UNAUDITED_MAKERS = ("mkfifo", "mknod")
# Foreign-function libraries whose loading raises no audit event of its own.
REFUSED_IMPORTS = frozenset({"cffi", "_cffi_backend"})
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|^OPENAI_|^AWS_|^GITHUB_", re.I)
LIMITS = {  # generous for a property run, fatal for a runaway
    resource.RLIMIT_CORE: 0,
    resource.RLIMIT_FSIZE: 256 * 2**20,
    resource.RLIMIT_NOFILE: 512,
}
ADDRESS_SPACE_HEADROOM = 8 * 2**30  # on top of what the worker already maps (a forked parent may map a lot)

violations: list[str] = []  # what the hook refused during the current run; onerun resets it per run
_allowed: tuple[str, ...] = ()
_readable: tuple[str, ...] = ()  # with a wall: where it lets the process read (the hook names a read elsewhere)


class SandboxViolation(PermissionError):
    """Raised inside a boxed worker for a refused action; the run it happens in ends with status `sandbox`."""


def _refuse(what: str) -> None:
    violations.append(what)
    raise SandboxViolation(f"drafter sandbox: {what} is not allowed in candidate code")


def _inside(path, roots: tuple[str, ...] | None = None) -> bool:
    try:
        resolved = os.path.realpath(os.fsdecode(path))
    except (TypeError, ValueError):
        return False
    return resolved == os.devnull or any(resolved == root or resolved.startswith(root + os.sep)
                                         for root in (_allowed if roots is None else roots))


def _sqlite_file(name) -> str | None:
    """The file an SQLite database name opens: None for an in-memory or temporary database."""
    if not isinstance(name, (str, bytes, os.PathLike)):
        return None
    text = os.fsdecode(name)
    if text in ("", ":memory:"):
        return None
    if text.startswith("file:"):  # a URI filename, which ATTACH honours even on a connection opened without uri=True
        uri = urllib.parse.urlsplit(text)
        path = urllib.parse.unquote(uri.path)
        return None if path in ("", ":memory:") or "mode=memory" in uri.query else path
    return text


def _sqlite_authorizer(action: int, target, *_) -> int:
    """ATTACH and VACUUM INTO create a database file from SQL text, which raises no audit event."""
    import sqlite3

    path = _sqlite_file(target) if action == sqlite3.SQLITE_ATTACH else None
    if path is not None and not _inside(path):
        try:
            _refuse(f"sqlite3 ATTACH or VACUUM INTO {path}")
        except SandboxViolation:
            return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


def _open(_event: str, args: tuple) -> None:
    path, mode, flags = args
    if isinstance(path, int) or path is None:
        return
    writes = (isinstance(flags, int) and flags & WRITE_FLAGS) or (isinstance(mode, str) and set(mode) & set("wax+"))
    if writes and not _inside(path):
        _refuse(f"writing {os.fsdecode(path)}")
    elif not writes and _readable and not _inside(path, _readable) and not _inside(path):
        _refuse(f"reading {os.fsdecode(path)}")  # the wall refuses it too; this names it


def _import(_event: str, args: tuple) -> None:
    if args[0].partition(".")[0] in REFUSED_IMPORTS:
        _refuse(f"importing {args[0]}")


def _refused_event(event: str, _args: tuple) -> None:
    _refuse(event)


def _path_event(event: str, args: tuple) -> None:
    for path in args[:2] if event in ("os.rename", "os.link", "os.symlink", "shutil.move") else args[:1]:
        if isinstance(path, int) and path >= 0:  # fchmod, fchown, futimes: the file the descriptor is open on
            path = f"/proc/self/fd/{path}"
        if isinstance(path, (str, bytes, os.PathLike)) and not _inside(path):
            _refuse(f"{event} on {os.fsdecode(path)}")


def _sqlite_connect(_event: str, args: tuple) -> None:
    path = _sqlite_file(args[0])
    if path is not None and not _inside(path):
        _refuse(f"sqlite3.connect on {path}")


def _sqlite_handle(_event: str, _args: tuple) -> None:
    if not _connecting:
        _refuse("an sqlite3 connection made around sqlite3.connect")


# The hook's work, by event: every other event (most of them on a run's hot path: array.__new__, sys._getframe,
# builtins.id, object.__getattr__) costs one dictionary miss.
_CHECKS = {
    "open": _open, "import": _import, "sqlite3.connect": _sqlite_connect, "sqlite3.connect/handle": _sqlite_handle,
    **dict.fromkeys(REFUSED_EVENTS, _refused_event), **dict.fromkeys(PATH_EVENTS, _path_event),
}


def _hook(event: str, args: tuple) -> None:
    check = _CHECKS.get(event)
    if check is not None:
        check(event, args)


_connecting: list[bool] = []  # non-empty while the box's own sqlite3.connect opens a database


def _replace_sqlite_connect() -> None:
    """sqlite3.connect that puts the ATTACH check on each connection (it cannot be set from the audit event,
    which comes before the connection is ready)."""
    import sqlite3

    original = sqlite3.connect
    if getattr(original, "__module__", "") == __name__:
        return
    base = sqlite3.Connection

    def connect(*args, **kwargs):
        _connecting.append(True)
        try:
            connection = original(*args, **kwargs)
        finally:
            _connecting.pop()
        base.set_authorizer(connection, _sqlite_authorizer)
        return connection

    connect.__doc__ = original.__doc__
    sqlite3.connect = sqlite3.dbapi2.connect = connect


def _checked_maker(name: str, make):
    """`make` (os.mkfifo or os.mknod) refused outside the allowed folders, as the hook refuses an open."""

    def checked(path, *args, dir_fd=None, **kwargs):
        where = os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else path
        if dir_fd is not None and isinstance(where, str) and not os.path.isabs(where):
            where = os.path.join(f"/proc/self/fd/{dir_fd}", where)
        if not isinstance(where, str) or not _inside(where):
            _refuse(f"os.{name} on {where}")
        return make(path, *args, dir_fd=dir_fd, **kwargs)

    checked.__name__ = checked.__qualname__ = name
    return checked


def _replace_unaudited_makers() -> None:
    import posix

    for name in UNAUDITED_MAKERS:
        original = getattr(posix, name, None)
        if original is None or getattr(original, "__module__", "") == __name__:
            continue
        checked = _checked_maker(name, original)
        for module in (os, posix):
            setattr(module, name, checked)


class _RefusedImports:
    """A meta-path finder for what the `import` audit event misses (importlib.import_module raises none)."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.partition(".")[0] in REFUSED_IMPORTS:
            _refuse(f"importing {name}")
        return None


def _mapped_bytes() -> int:
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return 0


PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """Have the kernel kill this process when the drafter process that started it dies, even by SIGKILL: a worker
    stuck in candidate code (a loop in C, a module sleeping at import) must not outlive its run."""
    if sys.platform != "linux":
        return
    import ctypes
    import signal

    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the parent was gone before the request took effect
        os._exit(1)


def enter_box(scratch: Path, *, cpu_seconds: float | None = None, wall_roots: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Limits (CPU seconds among them), a scrubbed environment, the kernel wall (reads under `wall_roots`, writes
    only in `scratch`) and the audit hook, for the rest of this process's life; returns the wall's layers (empty:
    this platform offers none, only the hook stands)."""
    global _allowed, _readable
    scratch.mkdir(parents=True, exist_ok=True)
    for name in [n for n in os.environ if SECRET_NAME.search(n)]:
        del os.environ[name]
    os.environ["TMPDIR"] = str(scratch)
    import tempfile

    tempfile.tempdir = str(scratch)
    wanted_limits = {**LIMITS, resource.RLIMIT_AS: _mapped_bytes() + ADDRESS_SPACE_HEADROOM}
    if cpu_seconds is not None:  # the kernel's SIGXCPU at the soft limit, SIGKILL at the hard one
        wanted_limits[resource.RLIMIT_CPU] = math.ceil(cpu_seconds)
    for limit, wanted in wanted_limits.items():
        soft, hard = resource.getrlimit(limit)
        value = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        if limit == resource.RLIMIT_CPU:
            hard = value + 2
        try:
            resource.setrlimit(limit, (value, hard))
        except (ValueError, OSError):
            pass  # a platform that refuses a limit still gets the hook
    die_with_parent()
    _allowed = (os.path.realpath(scratch),)
    layers = ()
    if wall_roots:
        import wall

        layers = wall.enclose(wall_roots, (str(scratch),), (os.devnull,))
        _readable = tuple(os.path.realpath(root) for root in wall_roots) if layers else ()
        for name in [n for n in sys.modules if n in ("ctypes", "_ctypes") or n.startswith(("ctypes.", "wall"))]:
            del sys.modules[name]  # importing them again is an import the hook refuses
    _replace_unaudited_makers()
    _replace_sqlite_connect()
    if _RefusedImports not in sys.meta_path:
        sys.meta_path.insert(0, _RefusedImports)
    if _hook not in getattr(sys, "_drafter_hooks", ()):
        sys.addaudithook(_hook)
        sys._drafter_hooks = (_hook,)  # type: ignore[attr-defined]
    return layers
