"""What a real suite passes to production code and reads back besides plain data: key functions, callbacks,
lambdas, bound methods, iterators (infinite ones too) and the test's own objects are called back in the test
process; a test's subclass of a production class keeps its type and its overrides through production code; what
production code prints shows in capsys and its warnings reach pytest.warns. A patch that reaches for
anything in the test process it was not handed blocks, beside an honest patch that uses what it was handed."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

JOURNAL = Path(__file__).resolve().parents[2] / "examples" / "journal"

HOOKS = '''"""Production code that takes callables, iterators and objects from its callers, prints and warns."""

import itertools
import sys
import warnings


class Ledger:
    def __init__(self):
        self.entries = []

    def add(self, amount):
        self.entries.append(amount)
        return self


class LedgerWarning(UserWarning):
    pass


class Amount:
    def __init__(self, cents):
        self.cents = cents

    @classmethod
    def parse(cls, text):
        return cls(int(text))

    def __str__(self):
        return f"{self.cents / 100:.2f}"

    def doubled(self):
        return type(self)(self.cents * 2)

    def __eq__(self, other):
        if not isinstance(other, Amount):
            return NotImplemented
        return self.cents == other.cents

    __hash__ = None


def ranked(items, key):
    return sorted(items, key=key)


def first(iterable, n):
    return list(itertools.islice(iterable, n))


def described(obj):
    return [str(obj), repr(obj), hash(obj) == hash(obj), obj == obj, obj in {obj}]


def with_ledger(callback):
    ledger = Ledger()
    callback(ledger)
    return ledger.entries


def tolerant(callback):
    try:
        return callback()
    except KeyError:
        return "caught"


def settings(**values):
    import argparse
    import types

    return [argparse.Namespace(**values), types.SimpleNamespace(**values)]


def blamed_on_the_caller():
    warnings.warn("blamed on the caller's line", UserWarning, stacklevel=2)  # a line of no module of the tree


def shout(size):
    sys.stdout.write("x" * size)


def posing():
    class DeprecationWarning(UserWarning):  # claims to be the builtin: pytest.warns must not take it for one
        pass
    DeprecationWarning.__module__ = "builtins"
    warnings.warn("deprecated, or so it says", DeprecationWarning)


def noisy(x):
    print("adding", x)
    print("careful", file=sys.stderr)
    warnings.warn("noisy is deprecated", DeprecationWarning)
    warnings.warn("the target's own category", LedgerWarning)
    return x + 1
'''

PROPERTIES = '''"""Properties that hand production code key functions, iterators and subclasses, and hear it."""

import itertools

import pytest
from hypothesis import given, strategies as st

from books.hooks import Amount, first, noisy, ranked, with_ledger


@given(st.lists(st.text(max_size=5)))
def test_ranking_follows_the_key_it_is_given(words):
    assert ranked(words, key=lambda w: (len(w), w)) == sorted(words, key=lambda w: (len(w), w))


@given(st.integers(0, 20))
def test_taking_from_an_endless_iterator_takes_just_that_many(n):
    counter = itertools.count()
    assert first(counter, n) == list(range(n)) and next(counter) == n


def test_callbacks_get_the_ledger_itself():
    assert with_ledger(lambda ledger: ledger.add(5).add(6)) == [5, 6]


class Euros(Amount):
    @classmethod
    def parse(cls, text):
        return super().parse(text.removeprefix("EUR "))

    def __str__(self):
        return "EUR " + super().__str__()


@given(st.integers(0, 10**6))
def test_a_subclass_of_the_tests_own_keeps_its_type_and_overrides_through_production_code(cents):
    twice = Euros.parse(f"EUR {cents}").doubled()
    assert type(twice) is Euros and isinstance(twice, Amount) and twice == Amount(2 * cents)
    assert str(twice) == f"EUR {2 * cents / 100:.2f}"


def test_adding_says_so_and_warns(capsys):
    with pytest.warns(DeprecationWarning, match="deprecated"):
        assert noisy(1) == 2
    assert capsys.readouterr().out == "adding 1\\n"
'''

DRIVER = '''
import io, itertools, json, sys, warnings
import pytest
import gate.proxy as proxy

proxy.install(sys.argv[1], [sys.argv[2]], {"exclude": [], "budget": 60, "call_timeout": 20})
import books.hooks as hooks


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __repr__(self):
        return f"Point({self.x}, {self.y})"

    def __eq__(self, other):
        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)

    def __hash__(self):
        return hash((self.x, self.y))


class Mine(Exception):
    pass


def boom():
    raise Mine("from the test")


out = {}
words = ["ccc", "a", "bb"]
out["keys"] = [hooks.ranked(words, key=len), hooks.ranked(words, key=lambda w: -len(w)),
               hooks.ranked(["b", "a"], key={"a": 2, "b": 1}.get)]
counter = itertools.count()
out["lazy"] = [hooks.first(counter, 3), next(counter), hooks.first((i * i for i in itertools.count()), 4),
               hooks.first(range(10), 2)]
out["object"] = hooks.described(Point(1, 2))
out["handle in callback"] = hooks.with_ledger(lambda ledger: ledger.add(5).add(6))
try:
    hooks.tolerant(boom)
except Mine as exc:
    out["own exception"] = [type(exc) is Mine, str(exc)]
out["caught by production"] = hooks.tolerant(lambda: {}["x"])
real = sys.stdout, sys.stderr
sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    value = hooks.noisy(1)
out["printed"] = [value, sys.stdout.getvalue(), sys.stderr.getvalue()]
sys.stdout, sys.stderr = real
out["warned"] = [[w.category.__name__, w.category.__mro__[1].__name__, str(w.message)] for w in caught]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    warnings.filterwarnings("ignore", category=DeprecationWarning, module="books.hooks")
    hooks.noisy(3)
out["filtered by module"] = [w.category.__name__ for w in caught]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    hooks.blamed_on_the_caller()
out["caller's line"] = [w.category.__name__ for w in caught]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    hooks.posing()
out["posing"] = [caught[0].category is DeprecationWarning, issubclass(caught[0].category, UserWarning)]
sys.stdout = io.StringIO()
hooks.shout(2**20)
out["bounded"] = [len(sys.stdout.getvalue()) < 2**19, "more bytes of output were dropped" in sys.stdout.getvalue()]
sys.stdout = real[0]


class Euros(hooks.Amount):
    def __init__(self, cents, note=""):
        super().__init__(cents=cents)
        self.note = note

    @classmethod
    def parse(cls, text):
        return super().parse(text.removeprefix("EUR "))

    def __str__(self):
        return "EUR " + super().__str__()


twice = Euros.parse("EUR 150").doubled()
out["subclass"] = [str(twice), type(twice) is Euros, isinstance(twice, hooks.Amount), twice.cents, str(Euros(7)),
                   Euros(1, note="n").note,
                   Euros(5) == hooks.Amount(5), hooks.Amount(5).__eq__(Euros(5)), Euros(5).__eq__(3) is NotImplemented]
try:
    class Mixed(Point, hooks.Amount):
        pass
except Exception as exc:
    out["mixed"] = str(exc)
import argparse, types
made = hooks.settings(level=2, names=["a"])
out["namespaces"] = [made[0] == argparse.Namespace(level=2, names=["a"]), type(made[1]) is types.SimpleNamespace,
                     made[1].names]
out["imported nothing"] = [n for n in sys.modules if n.startswith("books")] == ["books", "books.hooks"]
out["violations"] = proxy.violations()
print(json.dumps(out))
'''

# Reaches the test process through the sandbox's own link (the bound method behind warnings.showwarning) and asks
# for what it was never handed: an object number it never received, and an attribute of a callback.
REACHING = '''

def reach(callback):
    import warnings
    link = warnings.showwarning.__self__
    found = []
    for number, op in ((10**6, "call"), (callback._number, "getattr")):
        try:
            found.append(link.back(number, op, ("__globals__",)))
        except Exception as exc:
            found.append(type(exc).__name__)
    return found
'''


def _app(tmp_path: Path) -> Path:
    app = tmp_path / "books-app"
    shutil.copytree(JOURNAL, app, ignore=shutil.ignore_patterns("__pycache__", "*.lock", ".hypothesis"))
    (app / "books" / "hooks.py").write_text(HOOKS)
    (app / "oracle" / "properties" / "test_hooks.py").write_text(PROPERTIES)
    return app


def _drive(h, app: Path, tmp_path: Path, script: str) -> dict:
    done = subprocess.run([sys.executable, "-c", script, str(h.repo), str(app)], capture_output=True, text=True,
                          env=h.cli_env(), timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_what_a_test_passes_is_called_back_and_what_production_code_says_is_heard(tmp_path, h):
    out = _drive(h, _app(tmp_path), tmp_path, DRIVER)
    assert out["keys"] == [["a", "bb", "ccc"], ["ccc", "bb", "a"], ["b", "a"]]
    assert out["lazy"] == [[0, 1, 2], 3, [0, 1, 4, 9], [0, 1]]  # one item at a time: the counter is at 3
    assert out["object"] == ["Point(1, 2)", "Point(1, 2)", True, True, True]
    assert out["handle in callback"] == [5, 6]
    assert out["own exception"] == [True, "from the test"]
    assert out["caught by production"] == "caught"
    assert out["printed"] == [2, "adding 1\n", "careful\n"]
    assert out["warned"] == [["DeprecationWarning", "Warning", "noisy is deprecated"],
                             ["LedgerWarning", "UserWarning", "the target's own category"]]
    assert out["subclass"] == ["EUR 3.00", True, True, 300, "EUR 0.07", "n", True, True, True]
    assert "a limit of the gate's channel" in out["mixed"] and "Mixed mixes a production class" in out["mixed"]
    assert out["namespaces"] == [True, True, ["a"]]  # by value: they compare with the test's own
    assert out["filtered by module"] == ["LedgerWarning"]  # a filter naming production code's module applies
    assert out["caller's line"] == ["UserWarning"]
    assert out["posing"] == [False, True]  # a stand-in under its real base, never the builtin it claims to be
    assert out["bounded"] == [True, True]
    assert out["imported nothing"] is True
    assert out["violations"] == [out["mixed"].removeprefix("oracle-gate sandbox: ")]


def test_production_code_cannot_ask_the_test_process_for_what_it_was_not_handed(tmp_path, h):
    app = _app(tmp_path)
    (app / "books" / "hooks.py").write_text(HOOKS + REACHING)
    out = _drive(h, app, tmp_path, DRIVER.replace('out["violations"] =', 'out["reach"] = hooks.reach(len)\n'
                                                  'out["violations"] ='))
    assert out["reach"] == ["ChannelError", "ChannelError"]
    assert len(out["violations"]) == 3, out["violations"]  # the two reaches and the mixed class's limit
    assert "never passed" in out["violations"][1] and "only public attributes" in out["violations"][2]


def _run(h, app, tmp_path, edits):
    patch = tmp_path / f"p{len(list(tmp_path.glob('*.diff')))}.diff"
    patch.write_text(h.make_patch(app, edits, tmp_path))
    oracle = app / "oracle"
    return h.gate_json("run", "--app", app, "--patch", patch, "--deny", oracle / "path_deny.txt",
                       "--manifest", oracle / "fixtures" / "manifest.json", "--ledger", oracle / "ledger.json",
                       "--out", tmp_path / "verdict.json")


def test_an_honest_patch_passes_with_callbacks_output_and_warnings_and_one_that_reaches_further_blocks(tmp_path, h):
    app = _app(tmp_path)
    honest = HOOKS.replace("    return sorted(items, key=key)\n", "    ordered = list(items)\n"
                           "    ordered.sort(key=key)\n    return ordered\n")
    code, verdict = _run(h, app, tmp_path, {"books/hooks.py": honest})
    assert code == 0, [r for c in verdict["checks"] for r in c["reasons"]]
    reaching = honest.replace("    ordered.sort(key=key)\n", "    reach(key)\n    ordered.sort(key=key)\n") + REACHING
    code, verdict = _run(h, app, tmp_path, {"books/hooks.py": reaching})
    reasons = [r for c in verdict["checks"] for r in c["reasons"]]
    assert (code, verdict["blocked_at"]) == (2, "properties"), reasons
    assert any("the sandbox named an object the test never passed" in r for r in reasons), reasons
