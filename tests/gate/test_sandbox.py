"""The sandbox process and the module proxies, driven directly (no pytest run in between): what crosses, what is
refused, what blocks."""

import json
import subprocess
import sys
from pathlib import Path

import wall

GEOMETRY = '''
import os, sys, time
from decimal import Decimal


class ShapeError(ValueError):
    """A shape that cannot be."""


class Box:
    def __init__(self, w, h):
        self.w, self.h = w, h

    def area(self):
        return self.w * self.h

    def __eq__(self, other):
        return isinstance(other, Box) and (self.w, self.h) == (other.w, other.h)


def half(text):
    print("production code printing to stdout")
    return Decimal(text) / 2


def fail():
    raise ShapeError("bad shape")


def missing():
    return {}["k"]


def leave():
    raise SystemExit(3)


def write(path):
    open(path, "w").write("x")


def read(path):
    return open(path).read()


def spawn():
    import subprocess
    return subprocess.run(["true"]).returncode


def env():
    return sorted(os.environ)


def home(name):
    return os.path.join(os.environ["HOME"], name)


def where():
    return os.getcwd()


def slow():
    time.sleep(60)


def sqlite(path, uri=False):
    import sqlite3
    sqlite3.connect(path, uri=uri).close()
    return os.path.exists(path.removeprefix("file:").split("?")[0] if uri else path)


def probe_and_clear():
    """Try a refused action, swallow the refusal, then clear every list reachable up the stack."""
    import socket
    try:
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", 9))
    except OSError:
        pass
    frame = sys._getframe()
    while frame is not None:
        for value in [*frame.f_locals.values(), *frame.f_globals.values()]:
            if type(value) is list:
                value.clear()
        frame = frame.f_back
    return "cleared"


def callers():
    """What a module `__getattr__` keyed on its caller would see."""
    frame, seen = sys._getframe(1), []
    while frame is not None:
        seen += [frame.f_code.co_name, frame.f_code.co_filename, str(frame.f_globals.get("__name__")),
                 str(frame.f_globals.get("__file__")), str(frame.f_globals.get("__doc__"))]
        frame = frame.f_back
    return seen + sys.argv + [str(type(os.mkfifo).__name__)]


def fifo(path):
    os.mkfifo(path)
    return os.path.exists(path)


def node(path):
    import stat
    os.mknod(path, 0o600 | stat.S_IFREG)
    return os.path.exists(path)


def loosen_builtins(path):
    import builtins
    builtins.any = lambda items: True  # the hook's `any(... for root in roots)` would now say yes to every path
    open(path, "w").write("x")


def loosen_realpath(path):
    os.path.realpath = lambda p, **kw: os.path.join(os.environ["HOME"], "x")  # HOME is in the writable folder
    open(path, "w").write("x")


def loosen_globals():
    caller = sys._getframe(1).f_globals  # the sandbox module's own globals, through the frame that called us
    caller["REFUSED_EVENTS"], caller["REFUSED_IMPORTS"] = frozenset(), frozenset()
    return spawn()


def past_the_hook(path):
    import posixpath
    posixpath._joinrealpath = lambda *a: (os.environ["HOME"], True)  # inside realpath: the hook sees its own folder
    open(path, "w").write("x")


def attach(path):
    import sqlite3
    sqlite3.connect(":memory:").execute(f"ATTACH DATABASE '{path}' AS other").execute("CREATE TABLE other.t (a)")


def fresh_posix(path):
    import importlib.util
    fresh = importlib.util.module_from_spec(importlib.util.find_spec("posix"))
    fresh.mkfifo(path)
'''

DRIVER = '''
import datetime, json, os, sys
import pytest  # imported before the finder, as the gate's bootstrap does
import gate.proxy as proxy

names = proxy.install(sys.argv[1], [sys.argv[2]], {"exclude": [], "budget": 60, "call_timeout": 3})
import shapes.geometry as geometry
from shapes.geometry import ShapeError, Box, half

out = {"names": sorted(names)}


def attempt(name, fn):
    try:
        value = fn()
        out[name] = ["value", value if isinstance(value, (str, int, list, bool)) else repr(value)]
    except BaseException as exc:
        out[name] = ["raised", f"{type(exc).__module__}.{type(exc).__qualname__}", str(exc),
                     isinstance(exc, ShapeError), type(exc) is geometry.ShapeError,
                     any("raised in the sandbox process" in n for n in getattr(exc, "__notes__", []))]


attempt("half", lambda: [repr(half("3")), type(half("3")).__name__])
attempt("box", lambda: [Box(2, 3).area(), Box(2, 3) == Box(2, 3), Box(2, 3) == Box(1, 1), repr(Box(1, 1))[:20]])
attempt("same class", lambda: [geometry.ShapeError is ShapeError, issubclass(ShapeError, ValueError),
                               ShapeError.__module__, ShapeError.__qualname__])
attempt("fail", geometry.fail)
attempt("missing", geometry.missing)
attempt("date argument", lambda: half(datetime.date(2024, 1, 1)))
before = len(proxy.violations())
attempt("leave", geometry.leave)
attempt("write", lambda: geometry.write(os.path.join(sys.argv[3], "planted.txt")))
attempt("read parent", lambda: geometry.read(f"/proc/{os.getpid()}/cmdline"))
attempt("spawn", geometry.spawn)
attempt("env", geometry.env)
attempt("where", geometry.where)
out["violations before"] = before
planted = lambda name: os.path.join(sys.argv[3], name)
attempt("sqlite outside", lambda: geometry.sqlite(planted("planted.db")))
attempt("sqlite uri outside", lambda: geometry.sqlite("file:" + planted("uri.db") + "?mode=rwc", True))
attempt("fifo outside", lambda: geometry.fifo(planted("fifo")))
attempt("node outside", lambda: geometry.node(planted("node")))
attempt("fresh posix", lambda: geometry.fresh_posix(planted("fresh")))
attempt("loosen builtins", lambda: geometry.loosen_builtins(planted("builtins")))
attempt("loosen realpath", lambda: geometry.loosen_realpath(planted("realpath")))
attempt("loosen globals", geometry.loosen_globals)
attempt("past the hook", lambda: geometry.past_the_hook(planted("past")))
attempt("attach", lambda: geometry.attach(planted("attached.db")))
attempt("clear refusals", geometry.probe_and_clear)
attempt("callers", geometry.callers)
before_inside = len(proxy.violations())
home = geometry.home
attempt("inside", lambda: [geometry.sqlite(home("cache.db")), geometry.sqlite(":memory:"),
                           geometry.sqlite("file:" + home("u.db"), True), geometry.fifo(home("pipe")),
                           geometry.node(home("node"))])
out["violations inside"] = len(proxy.violations()) - before_inside
attempt("slow", geometry.slow)
attempt("after", lambda: half("1"))
out["violations"] = proxy.violations()
out["stats"] = proxy.stats()
print(json.dumps(out))
'''


def test_calls_cross_as_plain_data_and_what_the_sandbox_refuses_blocks(tmp_path, h):
    prod = tmp_path / "prod"
    (prod / "shapes").mkdir(parents=True)
    (prod / "shapes" / "__init__.py").write_text("")
    (prod / "shapes" / "geometry.py").write_text(GEOMETRY)
    (prod / "pytest.py").write_text("")  # a shadow of something the gate already imported is never proxied
    outside = tmp_path / "outside"
    outside.mkdir()
    env = {**h.cli_env(), "GATE_TEST_API_TOKEN": "s3cret", "GATE_TEST_PLAIN": "1"}
    done = subprocess.run([sys.executable, "-c", DRIVER, str(h.repo), str(prod), str(outside)], capture_output=True,
                          text=True, env=env, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["names"] == ["shapes"]
    assert out["half"] == ["value", ["Decimal('1.5')", "Decimal"]]  # the print did not reach the channel
    assert out["box"] == ["value", [6, True, False, "<shapes.geometry.Box"]]
    assert out["same class"] == ["value", [True, True, "shapes.geometry", "ShapeError"]]
    assert out["fail"] == ["raised", "shapes.geometry.ShapeError", "bad shape", True, True, True]
    assert out["missing"][:3] == ["raised", "builtins.KeyError", "'k'"]
    assert out["date argument"][:2] == ["raised", "builtins.TypeError"]  # the oracle's own mistake, not a violation
    assert out["violations before"] == 0
    assert out["leave"][:3] == ["raised", "builtins.SystemExit", "3"]  # fails the test, as under plain pytest
    assert out["write"][:2] == ["raised", "builtins.PermissionError"]
    assert not (outside / "planted.txt").exists()
    assert out["read parent"][:2] == ["raised", "builtins.PermissionError"]
    assert out["spawn"][:2] == ["raised", "builtins.PermissionError"]
    # The job's environment less its secrets, HOME and TMPDIR of their own; the working folder is the tree's copy.
    assert "PATH" in out["env"][1] and "HOME" in out["env"][1] and "TMPDIR" in out["env"][1]
    assert "GATE_TEST_API_TOKEN" not in out["env"][1] and "GATE_TEST_PLAIN" in out["env"][1]
    assert out["where"] == ["value", str(prod)]
    for name in ("sqlite outside", "sqlite uri outside", "fifo outside", "node outside", "fresh posix",
                 "loosen builtins", "loosen realpath", "loosen globals"):
        assert out[name][:2] == ["raised", "builtins.PermissionError"], (name, out[name])
    # Past the hook (a function inside os.path.realpath rebound, SQLite's ATTACH, which opens files in C) only the
    # kernel's wall holds, where this kernel has one.
    if wall.abi():
        assert out["stats"]["wall"] == f"landlock ABI {wall.abi()}"
        assert out["past the hook"][:2] == ["raised", "builtins.PermissionError"]
        assert out["past the hook"][2] == f"[Errno 13] Permission denied: '{outside}/past'"  # its filename crossed
        assert out["attach"][:2] == ["raised", "sqlite3.OperationalError"]
    else:
        assert out["stats"]["wall"] == ""
    assert sorted(p.name for p in outside.iterdir()) == []  # sqlite3, mkfifo and mknod raise no `open` event
    assert out["inside"] == ["value", [True, False, True, True, True]], out["inside"]
    assert out["violations inside"] == 0, out["violations"][-3:]
    assert out["slow"][:2] == ["raised", "gate.channel.ChannelError"] and "3 s budget" in out["slow"][2]
    assert out["after"][:2] == ["raised", "gate.channel.ChannelError"] and "sandbox is gone" in out["after"][2]
    violations = "\n".join(out["violations"])
    # Whatever clearing the lists up the stack broke, the refusal was already recorded on the other side:
    assert "tried socket.sendto, which the sandbox refuses" in "\n".join(out["violations"])
    seen = " ".join(out["callers"][1])
    for word in ("gate", "sandbox", "perform", "serve", "oracle", "channel", "refus"):
        assert word not in seen.lower(), (word, seen)
    assert ("builtin_function_or_method" in seen) == bool(wall.abi())  # no stand-in where the kernel holds
    assert "raised builtins.SystemExit" not in violations
    for expected in ("tried writing " + str(outside), "tried reading /proc/",
                     "tried importing _posixsubprocess", "ran over its 3 s budget",
                     f"tried sqlite3.connect on {outside}/planted.db", f"tried sqlite3.connect on file:{outside}/uri.db",
                     f"tried writing {outside}/builtins", f"tried writing {outside}/realpath"):
        assert expected in violations, violations
    # Without the wall, stand-ins for the calls that raise no audit event report them; with it, the kernel refuses.
    for expected in (f"tried os.mkfifo on {outside}/fifo", f"tried os.mknod on {outside}/node",
                     "tried creating the built-in module 'posix' again"):
        assert (expected in violations) is not bool(wall.abi()), violations
    assert out["stats"]["started"] and out["stats"]["calls"] >= 15
    assert sorted(p.name for p in prod.iterdir()) == ["pytest.py", "shapes"]  # the tree's copy stayed as it was
