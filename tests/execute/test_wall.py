"""Hostile candidates against the wall (issue 18): each tries an escape beside a sound candidate that stays sound;
afterwards nothing outside the run changed, drafter's own process is alive and no process of the run is left.

The candidates are run through the engine directly, past the lint that would refuse most of them: the wall must
hold on its own."""

from __future__ import annotations

import os
import signal
import socket
from pathlib import Path

import pytest

from drafter.killmatrix import build_kill_matrix
from drafter.soundness import check_soundness

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/ns/net"), reason="Linux only")

ESCAPES = {
    # The worker's pipe: a pickle that would write OUTSIDE if anyone unpickled it, sent down every descriptor.
    "pickle_down_the_pipe": (
        "import os, pickle\nclass P:\n    def __reduce__(self):\n        return (open, (OUTSIDE, 'w'))\n"
        "blob = pickle.dumps(P())\nfor fd in range(3, 64):\n    try:\n        os.write(fd, len(blob).to_bytes(4, 'big') + blob)\n"
        "    except OSError:\n        pass\nassert double(x) == 2 * x"),
    "sqlite_authorizer_off_attach": (
        "import sqlite3\nc = sqlite3.connect(':memory:')\nc.set_authorizer(None)\n"
        "c.execute(f\"ATTACH '{OUTSIDE}.db' AS a\")\nc.execute('create table a.t(x)')\nassert double(x) == 2 * x"),
    "open_with_dir_fd": (
        "import os\nd = os.open(os.path.dirname(OUTSIDE), os.O_PATH)\n"
        "os.write(os.open('made.txt', os.O_CREAT | os.O_WRONLY, dir_fd=d), b'x')\nassert double(x) == 2 * x"),
    "posixsubprocess_fork_exec": (
        "import _posixsubprocess, os\nr, w = os.pipe()\n"
        "_posixsubprocess.fork_exec(['/bin/sh', '-c', f'touch {OUTSIDE}.exec; sleep 600'], [b'/bin/sh'], True, (),"
        " None, None, -1, -1, -1, -1, -1, -1, r, w, True, True, False, None, None, None, -1, None, False)\n"
        "assert double(x) == 2 * x"),
    "rebind_sandbox_internals": (
        "import drafter.sandbox as box\nbox._allowed = ('/',)\nbox._inside = lambda path: True\n"
        "open(OUTSIDE, 'w').write('pwned')\nassert double(x) == 2 * x"),
    "trusted_engine_function": (
        "from pathlib import Path\nfrom drafter import child\nfrom drafter.execute import MutantSpec\n"
        "m = MutantSpec('m', 'nope', 'f', '../../../' + OUTSIDE.lstrip('/'), 'pwned = 1')\n"
        "child._fresh_copy(os.path.dirname(os.path.dirname(OUTSIDE)) + '/source', Path(os.path.dirname(OUTSIDE)), m)\n"
        "assert double(x) == 2 * x"),
    "pidfd_kill_the_parent": (
        "import os, signal\nsignal.pidfd_send_signal(os.pidfd_open(os.getppid()), signal.SIGKILL)\nassert double(x) == 2 * x"),
    "kill_the_process_group": "import os, signal\nos.kill(0, signal.SIGKILL)\nassert double(x) == 2 * x",
    "kill_drafter": f"import os, signal\nos.kill({os.getpid()}, signal.SIGTERM)\nassert double(x) == 2 * x",
    "fork_and_linger": "import os\nif os.fork() == 0:\n    os.setsid()\n    import time\n    time.sleep(600)\nassert double(x) == 2 * x",
    "ctypes_fork": ("import ctypes\nctypes.CDLL(None).fork()\nassert double(x) == 2 * x"),
    "raise_own_limit_then_spin": (
        "import resource\nresource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))\n"
        "assert double(x) == 2 * x"),
    "write_the_report": "open(REPORT, 'w').write('{\"kept\": \"all\"}')\nassert double(x) == 2 * x",
    "read_a_secret": "assert open(SECRET).read() == 'hunter2'\nassert double(x) == 2 * x",
    "network": "import socket\nsocket.create_connection(('127.0.0.1', PORT), timeout=1)\nassert double(x) == 2 * x",
    "forge_a_frame": ("import os\nfor fd in range(3, 64):\n    try:\n        os.write(fd, (2**31).to_bytes(4, 'big') + b'{')\n"
                      "    except OSError:\n        pass\nassert double(x) == 2 * x"),
    "proc_mem_of_parent": ("import os\nopen(f'/proc/{os.getppid()}/mem', 'wb')\nassert double(x) == 2 * x"),
}
# What neighbours do to the candidates after them, when they share a process.
NEIGHBOURS = {
    "rebinds_the_target": f"import {{pkg}}.core as core\ncore.double = lambda v: 1\nassert True",
    "leaves_a_thread": ("import threading, _thread, time\ndef nag():\n    while True:\n        time.sleep(0.001)\n"
                        "        _thread.interrupt_main()\nthreading.Thread(target=nag, daemon=True).start()\nassert True"),
}


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry))
    found, stack = [], list(children.get(pid, []))
    while stack:
        found.append(stack.pop())
        stack.extend(children.get(found[-1], []))
    return found


def _lingering(marker: str) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and marker in Path(f"/proc/{entry}/cmdline").read_bytes().decode(errors="replace"):
                pids.append(int(entry))
        except OSError:
            pass
    return pids


@pytest.fixture
def outside(tmp_path):
    target = tmp_path / "outside" / "victim.txt"
    target.parent.mkdir()
    target.write_text("intact")
    (tmp_path / "outside" / "secret.txt").write_text("hunter2")
    return target


def test_escapes_from_the_issue_end_boxed_and_the_sound_candidate_beside_them_is_sound(kit, pkg, tmp_path, outside):
    source, name = pkg
    run = tmp_path / "run"
    (run / "report.json").parent.mkdir(parents=True, exist_ok=True)
    (run / "report.json").write_text("{}")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    listener.setblocking(False)
    imports = (f"import os\nOUTSIDE = {str(outside)!r}\nREPORT = {str(run / 'report.json')!r}\n"
               f"SECRET = {str(outside.parent / 'secret.txt')!r}\nPORT = {listener.getsockname()[1]}\n")
    before_source = kit.tree_hash(source)
    items = [kit.rendered(run, name, "double", "good", "assert double(x) == 2 * x")]
    items += [kit.rendered(run, name, "double", escape, body, imports=imports) for escape, body in ESCAPES.items()]
    items.append(kit.rendered(run, name, "double", "good_after", "assert double(x) == 2 * x"))
    walls = []
    results = {r.candidate_id.split("::")[1]: r for r in
               check_soundness(items, run, source, seeds=2, max_examples=5, jobs=2, budget_seconds=5.0,
                               on_wall=walls.append)}

    assert results["good"].status == results["good_after"].status == "sound"
    for escape in ESCAPES:
        assert results[escape].status != "sound", (escape, results[escape])
    assert outside.read_text() == "intact"
    assert sorted(p.name for p in outside.parent.iterdir()) == ["secret.txt", "victim.txt"]
    assert (run / "report.json").read_text() == "{}"
    assert kit.tree_hash(source) == before_source
    with pytest.raises(BlockingIOError):
        listener.accept()
    listener.close()
    assert _descendants(os.getpid()) == [] and _lingering("sleep 600") == []
    assert walls and "seccomp" in walls[0] and any(layer.startswith("landlock") for layer in walls[0])


def test_a_neighbour_s_rebinding_or_thread_changes_no_other_verdict(kit, pkg, tmp_path):
    source, name = pkg
    run = tmp_path / "run"
    items = []
    for index in range(3):  # the sound candidate before, between and after the neighbours, on one worker
        items.append(kit.rendered(run, name, "double", f"even{index}", "assert double(x) % 2 == 0"))
        items += [kit.rendered(run, name, "double", f"{what}{index}", body.replace("{pkg}", name))
                  for what, body in NEIGHBOURS.items()]
    results = {r.candidate_id.split("::")[1]: r.status for r in
               check_soundness(items, run, source, seeds=3, max_examples=20, jobs=1, budget_seconds=5.0)}
    assert [results[f"even{i}"] for i in range(3)] == ["sound"] * 3, results
    # In the kill matrix too: the rebinding neighbour shares no process with the candidate that kills.
    evens = [kit.sound(item, 0.05) for item in items if "even" in item.candidate_id]
    others = [kit.sound(item, 0.05) for item in items if "rebinds" in item.candidate_id]
    odd = kit.mutant(source, name, "double", "odd", "return x * SCALE", "return x * SCALE + 1")
    matrix = build_kill_matrix(others + evens, [odd], run, source, jobs=1, max_examples=20)
    kills = {r.candidate_id.split("::")[1]: r.outcome for r in matrix.results}
    assert all(kills[f"even{i}"] == "assertion" for i in range(3)), kills


def test_a_poisoned_mutant_cannot_choose_where_it_is_written(kit, pkg, tmp_path, outside):
    source, name = pkg
    run = tmp_path / "run"
    even = kit.rendered(run, name, "double", "even", "assert double(x) % 2 == 0")
    good = kit.mutant(source, name, "double", "odd", "return x * SCALE", "return x * SCALE + 1")
    poisoned = []
    for index, where in enumerate((str(outside), "../outside/victim.txt", f"{name}/../../outside/victim.txt")):
        # A module-level change: the live switch refuses it, so it would go to a copy of the source.
        bad = kit.mutant(source, name, "double", f"poison{index}", "SCALE = 2", "SCALE = 3")
        poisoned.append(bad.__class__(**{**bad.__dict__, "file": where}))
    matrix = build_kill_matrix([kit.sound(even, 0.05)], [good, *poisoned], run, source, jobs=1, max_examples=10)
    assert {r.mutant_id.rsplit("#", 1)[1]: r.outcome for r in matrix.results}["odd"] == "assertion"
    assert all(p.id in matrix.invalid or all(r.outcome != "survived" for r in matrix.results if r.mutant_id == p.id)
               for p in poisoned)
    assert outside.read_text() == "intact"
    assert sorted(p.name for p in outside.parent.iterdir()) == ["secret.txt", "victim.txt"]


def test_the_child_cannot_signal_the_process_that_runs_the_tests(kit, pkg, tmp_path):
    # The parent of a child is its worker; drafter is the worker's parent. Neither dies, and SIGTERM reaches
    # neither: a handler here would record it.
    got = []
    previous = signal.signal(signal.SIGTERM, lambda *a: got.append(a))
    try:
        source, name = pkg
        run = tmp_path / "run"
        items = [kit.rendered(run, name, "double", "term", f"import os, signal\nos.kill({os.getpid()}, signal.SIGTERM)"),
                 kit.rendered(run, name, "double", "good", "assert double(x) == 2 * x")]
        results = {r.candidate_id.split("::")[1]: r.status for r in
                   check_soundness(items, run, source, seeds=1, max_examples=5, jobs=1, budget_seconds=5.0)}
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert got == [] and results["good"] == "sound" and results["term"] != "sound"
