"""The wall on its own, without drafter's audit hook: what a process behind it can no longer do, and what it
still can (threads, its own folder, signals to itself). Each probe runs in a forked process that reports back."""

from __future__ import annotations

import json
import os
import signal
import sys

import pytest

import wall
from wall import frames, seccomp

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or wall.abi() < 1,
                                reason="needs Linux with Landlock")


def behind_the_wall(tmp_path, probes: dict) -> dict:
    """Fork, enclose (reads: the interpreter; writes: tmp_path/inside), run each probe, return what each did."""
    inside = tmp_path / "inside"
    inside.mkdir()
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(reader)
            roots = tuple(p for p in sys.path if os.path.isabs(p)) + (sys.prefix, sys.base_prefix, "/usr", "/lib")
            out = {"layers": list(wall.enclose(roots, (str(inside),), (os.devnull,)))}
            for name, probe in probes.items():
                try:
                    out[name] = repr(probe(inside))
                except BaseException as exc:  # noqa: BLE001
                    out[name] = f"refused {type(exc).__name__}: {exc}"
            frames.write(writer, out)
        finally:
            os._exit(0)
    os.close(writer)
    result = frames.read(reader)
    os.waitpid(pid, 0)
    return result


def test_what_the_wall_refuses_and_what_it_leaves(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("intact")
    parent = os.getpid()
    import threading

    def thread_runs(_):
        seen = []
        worker = threading.Thread(target=seen.append, args=(1,))
        worker.start()
        worker.join()
        return seen

    got = behind_the_wall(tmp_path, {
        "write_outside": lambda _: open(outside, "w"),
        "read_outside": lambda _: open(outside).read(),
        "write_inside": lambda inside: (inside / "ok.txt").write_text("fine"),
        "fork": lambda _: os.fork(),
        "exec": lambda _: os.execv("/bin/true", ["true"]),
        "kill_parent": lambda _: os.kill(parent, 0),
        "pidfd": lambda _: signal.pidfd_send_signal(os.pidfd_open(parent), 0),
        "kill_group": lambda _: os.kill(0, 0),
        "kill_self": lambda _: os.kill(os.getpid(), 0),
        "socket": lambda _: __import__("socket").socket(),
        "raise_limit": lambda _: __import__("resource").setrlimit(0, (-1, -1)),
        "read_limit": lambda _: __import__("resource").getrlimit(0)[0] is not None,
        "thread": thread_runs,
    })
    assert "seccomp" in got["layers"] and any(x.startswith("landlock") for x in got["layers"])
    for refused in ("write_outside", "read_outside", "fork", "exec", "kill_parent", "pidfd", "kill_group", "socket",
                    "raise_limit"):
        assert got[refused].startswith("refused"), (refused, got[refused])
    for allowed in ("write_inside", "kill_self", "read_limit", "thread"):
        assert not got[allowed].startswith("refused"), (allowed, got[allowed])
    assert got["thread"] == "[1]" and outside.read_text() == "intact"
    assert (tmp_path / "inside" / "ok.txt").read_text() == "fine"


def test_the_filter_is_built_for_this_pid_and_checks_the_architecture():
    program = seccomp.program(1234, "x86_64")
    assert len(program) % 8 == 0 and len(program) // 8 < 4096
    assert (1234).to_bytes(4, "little") in program  # the only pid signals may go to
    assert seccomp.program(1234, "aarch64") != program


def test_frames_refuse_what_is_not_plain_bounded_json(tmp_path):
    reader, writer = os.pipe()
    frames.write(writer, {"a": [1, "x"]})
    os.write(writer, frames.HEADER.pack(frames.MAX_FRAME + 1))
    os.close(writer)
    assert frames.read(reader) == {"a": [1, "x"]}
    with pytest.raises(frames.FrameError, match="announced"):
        frames.read(reader)
    with pytest.raises(frames.FrameError):
        frames.decode(b"\x80not json")
    with pytest.raises(frames.FrameError):
        frames.decode(b"NaN")
    with pytest.raises(ValueError):
        frames.encode({"x": float("nan")})
    assert json.loads(frames.encode([1])[4:]) == [1]
