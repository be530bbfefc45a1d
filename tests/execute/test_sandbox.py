"""Model-written code runs boxed: writes outside the run's scratch, processes, sockets and foreign code are
refused, the candidate ends as `sandbox`, and a good candidate beside it stays sound."""

from __future__ import annotations

import os
import sys

import pytest

from drafter.soundness import check_soundness

ESCAPES = {
    "open_write": "open(OUTSIDE, 'w').write('pwned')\nassert double(x) == 2 * x",
    "io_open": "import io\nio.open(OUTSIDE, 'a').write('pwned')\nassert double(x) == 2 * x",
    "system_call": "import os\nos.system('touch ' + OUTSIDE)\nassert double(x) == 2 * x",
    "subprocess": "import subprocess\nsubprocess.run(['touch', OUTSIDE])\nassert double(x) == 2 * x",
    "mro_import": ("sub = [c for c in ().__class__.__mro__[1].__subclasses__() if c.__name__ == 'Popen'][0]\n"
                   "sub(['touch', OUTSIDE])\nassert double(x) == 2 * x"),
    "builtins_getattr": "getattr(__builtins__, 'open', None) or __builtins__['open']\n"
                        "(getattr(__builtins__, 'open', None) or __builtins__['open'])(OUTSIDE, 'w')\n"
                        "assert double(x) == 2 * x",
    "caught_and_hidden": "try:\n    open(OUTSIDE, 'w')\nexcept Exception:\n    pass\nassert double(x) == 2 * x",
    "socket": "import socket\nsocket.create_connection(('127.0.0.1', 9))\nassert double(x) == 2 * x",
    "ctypes": "import ctypes\nctypes.CDLL('libc.so.6').system(b'true')\nassert double(x) == 2 * x",
    "remove": "import os\nos.remove(OUTSIDE)\nassert double(x) == 2 * x",
    "cffi": "import cffi\nassert double(x) == 2 * x",
    "cffi_importlib": "import importlib\nimportlib.import_module('_cffi_backend')\nassert double(x) == 2 * x",
    "fchmod_read_only_fd": "import os\nos.chmod(os.open(OUTSIDE, os.O_RDONLY), 0o777)\nassert double(x) == 2 * x",
    "lift_limits": "import resource\nresource.setrlimit(resource.RLIMIT_NOFILE, resource.getrlimit(resource.RLIMIT_NOFILE)[1:] * 2)\n"
                   "assert double(x) == 2 * x",
    # Calls that create files without the `open` event: sqlite3 raises only its own, mkfifo and mknod none.
    "sqlite_connect": "import sqlite3\nsqlite3.connect(OUTSIDE + '.db').execute('create table t(a)')\n"
                      "assert double(x) == 2 * x",
    "sqlite_attach": "import sqlite3\nsqlite3.connect(':memory:').execute(f\"ATTACH '{OUTSIDE}.a' AS a\")\n"
                     "assert double(x) == 2 * x",
    "sqlite_attach_uri": "import sqlite3\nsqlite3.connect('').execute(f\"ATTACH 'file:{OUTSIDE}.u?mode=rwc' AS u\")\n"
                         "assert double(x) == 2 * x",
    "sqlite_vacuum_into": "import sqlite3\nsqlite3.connect(':memory:').execute(f\"VACUUM INTO '{OUTSIDE}.v'\")\n"
                          "assert double(x) == 2 * x",
    "mkfifo": "import os\nos.mkfifo(OUTSIDE + '.fifo')\nassert double(x) == 2 * x",
    "posix_mknod": "import posix, stat\nposix.mknod(OUTSIDE + '.node', 0o600 | stat.S_IFREG)\nassert double(x) == 2 * x",
    "mkfifo_dir_fd": "import os\nos.mkfifo('dir.fifo', dir_fd=os.open(os.path.dirname(OUTSIDE), os.O_RDONLY))\n"
                     "assert double(x) == 2 * x",
}
# What the escapes above try, done inside the run's scratch folder (where tempfile points in the box): allowed.
IN_SCRATCH = """\
import os, sqlite3, stat, tempfile
here = tempfile.mkdtemp()
sqlite3.connect(os.path.join(here, 'own.db')).execute('create table t(a)')
memory = sqlite3.connect(':memory:')
memory.execute(f"ATTACH '{here}/attached.db' AS a")
memory.execute(f"VACUUM INTO '{here}/copy.db'")
os.mkfifo(os.path.join(here, 'pipe'))
os.mknod(os.path.join(here, 'node'), 0o600 | stat.S_IFREG)
os.chmod(os.open(os.path.join(here, 'node'), os.O_RDONLY), 0o644)
assert double(x) == 2 * x
"""


@pytest.fixture
def outside(tmp_path):
    target = tmp_path / "outside" / "victim.txt"
    target.parent.mkdir()
    target.write_text("intact")
    return target


def test_escapes_are_refused_and_a_good_candidate_beside_them_is_sound(kit, pkg, tmp_path, outside):
    source, name = pkg
    run = tmp_path / "run"
    imports = f"OUTSIDE = {str(outside)!r}\n"
    items = [kit.rendered(run, name, "double", "good", "assert double(x) == 2 * x"),
             kit.rendered(run, name, "double", "good_in_scratch", IN_SCRATCH, given="x=st.integers(0, 3)")]
    items += [kit.rendered(run, name, "double", escape, body, imports=imports) for escape, body in ESCAPES.items()]
    # A strategy's map is candidate code too: pathlib through it.
    items.append(kit.rendered(run, name, "double", "strategy_map", "assert double(x) == 2 * x",
                              imports=f"import pathlib\nOUTSIDE = {str(outside)!r}\n",
                              given="x=st.integers(0, 3).map(lambda v: pathlib.Path(OUTSIDE).write_text('p') and v)"))
    # sqlite3 and mkfifo through a strategy expression, evaluated when the test module is imported.
    items.append(kit.rendered(run, name, "double", "strategy_sqlite", "assert double(x) == 2 * x",
                              imports=f"import sqlite3\nOUTSIDE = {str(outside)!r}\n",
                              given="x=st.just(sqlite3.connect(OUTSIDE + '.s') and 1)"))
    items.append(kit.rendered(run, name, "double", "strategy_mkfifo", "assert double(x) == 2 * x",
                              imports=f"import os\nOUTSIDE = {str(outside)!r}\n",
                              given="x=st.integers(0, 3).map(lambda v: os.mkfifo(OUTSIDE + '.m') or v)"))
    results = {r.candidate_id.split("::")[1]: r for r in
               check_soundness(items, run, source, seeds=2, max_examples=10, jobs=2, budget_seconds=10.0)}

    assert results["good"].status == "sound"
    assert results["good_in_scratch"].status == "sound", results["good_in_scratch"]
    for escape in [*ESCAPES, "strategy_map", "strategy_sqlite", "strategy_mkfifo"]:
        assert results[escape].status == "sandbox", (escape, results[escape])
        assert "refused" in results[escape].detail
    assert outside.read_text() == "intact" and outside.stat().st_mode & 0o777 != 0o777
    assert sorted(p.name for p in outside.parent.iterdir()) == ["victim.txt"]


@pytest.mark.skipif(os.geteuid() != 0 or sys.platform != "linux", reason="a network namespace needs root on Linux")
def test_candidates_run_without_the_machine_s_network(kit, pkg, tmp_path):
    source, name = pkg
    run = tmp_path / "run"
    here = os.readlink("/proc/self/ns/net")
    imports = f"import os\nHERE = {here!r}\n"
    items = [kit.rendered(run, name, "double", "own_namespace", "assert os.readlink('/proc/self/ns/net') != HERE\n"
                          "assert double(x) == 2 * x", imports=imports),
             kit.rendered(run, name, "double", "shared_namespace", "assert os.readlink('/proc/self/ns/net') == HERE\n"
                          "assert double(x) == 2 * x", imports=imports)]
    results = {r.candidate_id.split("::")[1]: r.status for r in
               check_soundness(items, run, source, seeds=1, max_examples=5, jobs=1, budget_seconds=10.0)}
    assert results == {"own_namespace": "sound", "shared_namespace": "unsound"}
