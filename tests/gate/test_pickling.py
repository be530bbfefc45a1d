"""Pickling and copying the target's objects through the sandbox: the sandbox pickles and unpickles them; the test
process holds only the sandbox's bytes, unread, or a new handle. A class whose pickle would run code on loading
runs it in the sandbox, never in the test process. (A module's own `__version__` is read the same way.)"""

import json
import subprocess
import sys
from pathlib import Path

KEEP = '''"""Objects a property pickles and copies."""

import datetime

__version__ = "1.2"


class Box:
    def __init__(self, items):
        self.items = list(items)

    def __eq__(self, other):
        return type(other) is Box and other.items == self.items

    __hash__ = None


class _Utc(datetime.tzinfo):
    def utcoffset(self, dt):
        return datetime.timedelta(0)

    def tzname(self, dt):
        return "UTC"

    def dst(self, dt):
        return datetime.timedelta(0)

    def __reduce__(self):
        return "UTC"  # one zone: unpickling gives the same object


UTC = _Utc()


class Rigged:
    """Loading its pickle runs code: it writes the file named in MARKER."""

    MARKER = ""

    def __reduce__(self):
        return exec, (f"open({self.MARKER!r}, 'w').close()",)
'''

DRIVER = '''
import copy, datetime, io, json, pickle, sys
import pytest  # imported before the finder, as the gate's bootstrap does
import gate.proxy as proxy

proxy.install(sys.argv[1], [sys.argv[2]], {"exclude": [], "budget": 60, "call_timeout": 20})
from keep import Box, Rigged, UTC, __version__
import keep

out = {"metadata": [__version__, hasattr(keep, "__nothing__"), hasattr(keep, "__wrapped__")]}
box = Box([1, 2])
for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
    back = pickle.loads(pickle.dumps(box, protocol))
    out.setdefault("round trips", []).append([back == box, back is not box, isinstance(back, Box)])

found = []


class Recording(pickle.Unpickler):
    def find_class(self, module, name):
        found.append([module, name])
        return super().find_class(module, name)


Recording(io.BytesIO(pickle.dumps(box))).load()
out["names this side loads"] = found
shallow, deep = copy.copy(box), copy.deepcopy(box)
box.items.append(3)  # the very list production code holds, changed in the sandbox
out["copies"] = [shallow == box, shallow.items == [1, 2, 3], deep.items == [1, 2], deep is not box]
out["singleton zone"] = [pickle.loads(pickle.dumps(UTC)) is UTC, copy.deepcopy(UTC) is UTC]
moment = datetime.datetime(2024, 2, 29, 12, tzinfo=UTC)
again = pickle.loads(pickle.dumps(moment))
out["datetime in a zone of the target"] = [again == moment, again.tzinfo is UTC]
Rigged.MARKER = sys.argv[3]
rigged = pickle.dumps(Rigged())  # pickling is harmless: the sandbox only records `exec`
try:
    pickle.loads(rigged)
    out["rigged"] = "loaded"
except Exception as exc:
    out["rigged"] = type(exc).__name__
out["violations"] = proxy.violations()
print(json.dumps(out))
'''


def test_handles_pickle_and_copy_in_the_sandbox_and_a_rigged_pickle_runs_nothing_here(tmp_path, h):
    app = tmp_path / "app"
    app.mkdir()
    (app / "keep.py").write_text(KEEP)
    marker = tmp_path / "written-by-unpickling"
    done = subprocess.run([sys.executable, "-c", DRIVER, str(h.repo), str(app), str(marker)], capture_output=True,
                          text=True, env=h.cli_env(), timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["metadata"] == ["1.2", False, False]  # a module's own __version__ is read where it lives
    assert out["round trips"] == [[True, True, True]] * 6
    # All this side's unpickler ever resolves is the gate's own function; the sandbox's bytes are its argument.
    assert out["names this side loads"] == [["gate.proxy", "unpickled"]]
    assert out["copies"] == [True, True, True, True]  # the object's own copy semantics, run where it lives
    assert out["singleton zone"] == [True, True]
    assert out["datetime in a zone of the target"] == [True, True]
    # The code the rigged pickle carries ran where production code runs, was refused there, and blocks the run.
    assert out["rigged"] == "PermissionError" and not marker.exists()
    assert len(out["violations"]) == 1 and f"writing {marker}" in out["violations"][0], out["violations"]


def test_a_rigged_pickle_would_run_its_code_in_any_process_that_loads_it(tmp_path):
    # The cheat above is real: loaded in an ordinary process, its bytes write the marker.
    marker = tmp_path / "written-by-unpickling"
    script = ("import pickle, sys\nsys.path.insert(0, sys.argv[1])\nfrom keep import Rigged\n"
              "Rigged.MARKER = sys.argv[2]\npickle.loads(pickle.dumps(Rigged()))\n")
    (tmp_path / "keep.py").write_text(KEEP)
    subprocess.run([sys.executable, "-c", script, str(tmp_path), str(marker)], check=True, timeout=60)
    assert marker.exists()
