"""What passes under plain pytest passes in the sandbox: dates, enums, named tuples, the target's own objects,
exceptions with their attributes and chains, and in-place changes of arguments cross the channel. Each cheat the
channel used to hide (an input edited in place, an exception class that claims to be a builtin) blocks beside an
honest patch that passes."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

JOURNAL = Path(__file__).resolve().parents[2] / "examples" / "journal"

CALENDAR = '''"""Due dates and periods of the journal."""

import datetime
import enum
from decimal import Decimal
from typing import NamedTuple


class Kind(enum.Enum):
    DEBIT = "debit"
    CREDIT = "credit"


class PeriodError(ValueError):
    def __init__(self, start, end):
        super().__init__(f"a period cannot end ({end}) before it starts ({start})")
        self.start, self.end = start, end


class Span(NamedTuple):
    start: datetime.date
    end: datetime.date


class Period:
    def __init__(self, start, end):
        if end < start:
            raise PeriodError(start, end)
        self.start, self.end = start, end

    @property
    def days(self):
        return (self.end - self.start).days + 1

    def span(self):
        return Span(self.start, self.end)


def due_date(start, days):
    return start + datetime.timedelta(days=days)


GRACE_DAYS = 0


def due_with_grace(start):
    return start + datetime.timedelta(days=GRACE_DAYS)


def kind_of(amount):
    return Kind.DEBIT if amount < 0 else Kind.CREDIT


def sort_amounts(amounts):
    """Sorts amounts in place (smallest first); returns nothing."""
    amounts.sort()


def total(amounts):
    return sum(amounts, Decimal("0.00"))


def raise_named(module):
    error = type("Planted", (Exception,), {"__module__": module})
    raise error("named after a module the tests never imported")


def strict_parse(text):
    try:
        return Decimal(text)
    except ArithmeticError as exc:
        raise PeriodError(None, text) from exc
'''

PROPERTIES = '''"""Properties that pass a date, read an exception's attributes and check in-place contracts."""

import datetime
from decimal import Decimal

import pytest
from hypothesis import given, strategies as st

from books.calendar import Kind, Period, PeriodError, Span, due_date, kind_of, sort_amounts, strict_parse, total

cents = st.integers(-10**6, 10**6).map(lambda c: Decimal(c) / 100)
dates = st.dates(datetime.date(1990, 1, 1), datetime.date(2100, 1, 1))


@given(dates, st.integers(0, 400))
def test_due_dates_fall_that_many_days_later(start, days):
    due = due_date(start, days)
    assert type(due) is datetime.date and due == start + datetime.timedelta(days=days)


@given(dates, dates)
def test_periods_count_their_days_and_refuse_to_run_backwards(a, b):
    if a <= b:
        period = Period(a, b)
        assert period.days == (b - a).days + 1 and period.span() == Span(a, b) and period.span().end == b
        assert isinstance(period, Period)
    else:
        with pytest.raises(PeriodError) as info:
            Period(a, b)
        assert (info.value.start, info.value.end) == (a, b) and isinstance(info.value, ValueError)


@given(cents)
def test_kinds_are_members_of_the_enum(amount):
    assert kind_of(amount) is (Kind.DEBIT if amount < 0 else Kind.CREDIT)


@given(st.lists(cents))
def test_sorting_is_in_place(amounts):
    expected = sorted(amounts)
    assert sort_amounts(amounts) is None
    assert amounts == expected


@given(st.lists(cents))
def test_a_total_leaves_its_input_alone(amounts):
    before = list(amounts)
    assert total(amounts) == sum(before, Decimal("0.00"))
    assert amounts == before


def test_a_bad_number_says_why_and_what_caused_it():
    with pytest.raises(ValueError) as info:
        strict_parse("twelve")
    assert info.value.end == "twelve" and info.value.__cause__ is not None
'''


def _books(tmp_path: Path) -> Path:
    app = tmp_path / "books-app"
    shutil.copytree(JOURNAL, app, ignore=shutil.ignore_patterns("__pycache__", "*.lock", ".hypothesis"))
    (app / "books" / "calendar.py").write_text(CALENDAR)
    (app / "oracle" / "properties" / "test_calendar.py").write_text(PROPERTIES)
    return app


def _run(h, app, tmp_path, edits, *extra):
    patch = tmp_path / f"p{len(list(tmp_path.glob('*.diff')))}.diff"
    patch.write_text(h.make_patch(app, edits, tmp_path))
    oracle = app / "oracle"
    return h.gate_json("run", "--app", app, "--patch", patch, "--deny", oracle / "path_deny.txt",
                       "--manifest", oracle / "fixtures" / "manifest.json", "--ledger", oracle / "ledger.json",
                       "--out", tmp_path / "verdict.json", *extra)


def _reasons(verdict):
    return [r for c in verdict["checks"] for r in c["reasons"]]


def _failed(verdict) -> set[str]:
    return {r.split("::")[-1].split(" ")[0] for r in _reasons(verdict) if r.startswith("property failed")}


def test_an_honest_refactor_passes_where_dates_exceptions_and_in_place_contracts_cross(tmp_path, h):
    app = _books(tmp_path)
    refactor = CALENDAR.replace("    amounts.sort()\n", "    amounts[:] = sorted(amounts)\n").replace(
        "    return start + datetime.timedelta(days=days)\n",
        "    later = start + datetime.timedelta(days=days)\n    return later\n")
    code, verdict = _run(h, app, tmp_path, {"books/calendar.py": refactor})
    assert code == 0, _reasons(verdict)


@pytest.mark.parametrize(("cheat", "caught_by"), [
    # Edits the caller's list: invisible while arguments crossed as copies.
    (("    return sum(amounts, Decimal(\"0.00\"))\n",
      "    amounts.sort()\n    return sum(amounts, Decimal(\"0.00\"))\n"), "test_a_total_leaves_its_input_alone"),
    # An exception class that only says it is the builtin crossed as builtins.ValueError.
    (("        raise PeriodError(None, text) from exc\n",
      "        class ValueError(Exception):\n            end = text\n"
      "        ValueError.__module__ = 'builtins'\n        raise ValueError(text) from exc\n"),
     "test_a_bad_number_says_why_and_what_caused_it"),
], ids=["input edited in place", "exception posing as a builtin"])
def test_cheats_the_channel_hid_now_block(tmp_path, h, cheat, caught_by):
    app = _books(tmp_path)
    old, new = cheat
    assert old in CALENDAR
    code, verdict = _run(h, app, tmp_path, {"books/calendar.py": CALENDAR.replace(old, new)})
    assert (code, verdict["blocked_at"]) == (2, "properties"), _reasons(verdict)
    assert _failed(verdict) == {caught_by}, _reasons(verdict)


DRIVER = '''
import datetime, json, sys, uuid
from decimal import Decimal
import pytest  # imported before the finder, as the gate's bootstrap does
import gate.proxy as proxy

proxy.install(sys.argv[1], [sys.argv[2]], {"exclude": [], "budget": 60, "call_timeout": 20})
from books.calendar import *  # the module's public names, as plain pytest would bind them
import books.calendar as calendar

out = {}
d = datetime.date(2024, 2, 28)
out["stdlib names are ours"] = datetime is sys.modules["datetime"] and Decimal is sys.modules["decimal"].Decimal
out["bytearray in place"] = [bytearray(b"b"), bytearray(b"a")]
calendar.sort_amounts(out["bytearray in place"])
out["bytearray in place"] = [b.decode() for b in out["bytearray in place"]]
rows = {"k": [3, 1, 2]}
inner = rows["k"]
calendar.sort_amounts(inner)
out["nested list keeps its identity"] = [rows["k"] is inner, inner]
period = Period(d, d)
period.end = datetime.date(2024, 3, 1)  # a handle's object changed in place, from this side
out["handle changed"] = [period.days, period.span() == (d, datetime.date(2024, 3, 1))]
calendar.GRACE_DAYS = 3  # as monkeypatch.setattr does: production code reads the new value
out["module attribute set"] = calendar.due_with_grace(d) == datetime.date(2024, 3, 2)
out["operators"] = [len(list(Kind)), Kind("debit") is Kind.DEBIT, str(Kind.CREDIT)]
out["uuid"] = calendar.total([]) == 0 and type(calendar.due_date(d, 0)) is datetime.date
try:
    calendar.strict_parse("x")
except PeriodError as exc:
    out["chain"] = [type(exc.__cause__).__name__, exc.end, exc.start, exc.__suppress_context__]
try:
    calendar.due_date(type("Text", (str,), {})("x"), 1)  # a subclass of a plain type: never converted
except Exception as exc:
    out["cannot cross"] = [type(exc).__name__, str(exc)]
try:
    calendar.raise_named("zipapp")
except Exception as exc:
    out["named module"] = [type(exc).__module__, "zipapp" in sys.modules]
out["violations"] = proxy.violations()
print(json.dumps(out, default=str))
'''


def test_values_cross_both_ways_and_what_cannot_is_the_channels_fault(tmp_path, h):
    app = _books(tmp_path)
    done = subprocess.run([sys.executable, "-c", DRIVER, str(h.repo), str(app)], capture_output=True, text=True,
                          env=h.cli_env(), timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["stdlib names are ours"] is True
    assert out["bytearray in place"] == ["a", "b"]
    assert out["nested list keeps its identity"] == [True, [1, 2, 3]]
    assert out["handle changed"] == [3, True]
    assert out["operators"] == [2, True, "Kind.CREDIT"]
    assert out["module attribute set"] is True
    assert out["chain"] == ["InvalidOperation", "x", None, True]
    assert out["cannot cross"][0] == "ChannelError" and "Text is a subclass of str" in out["cannot cross"][1]
    assert out["named module"] == ["zipapp", False]  # naming a module imports nothing in the test process
    assert out["violations"] == [out["cannot cross"][1].removeprefix("oracle-gate sandbox: ")]
    assert "a limit of the gate's channel, not a fault of the patch" in out["violations"][0]


def test_a_package_the_patch_adds_never_stands_in_for_one_the_tests_import(tmp_path, h):
    app = _books(tmp_path)
    (app / "oracle" / "properties" / "test_report.py").write_text(
        "def test_reports_are_yaml():\n    import yaml  # late, as tests often import what they need\n\n"
        "    assert yaml.safe_load('a: 1') == {'a': 1}\n")
    shadow = {"yaml/__init__.py": "def safe_load(text):\n    return 'whatever the patch wants'\n"}
    code, verdict = _run(h, app, tmp_path, shadow)
    assert code == 0, _reasons(verdict)  # the tests used the environment's yaml, not the patch's
    code, verdict = _run(h, app, tmp_path, {**shadow, "books/calendar.py": CALENDAR.replace(
        "    return start + datetime.timedelta(days=days)\n", "    return start\n")})
    assert _failed(verdict) == {"test_due_dates_fall_that_many_days_later"}, _reasons(verdict)


def test_code_that_behaves_only_inside_the_sandbox_is_caught_by_the_in_process_vote(tmp_path, h):
    import wall

    app = _books(tmp_path)
    # Honest only where the sandbox is recognisable (its argv), broken everywhere else, where it also tries to
    # write outside the in-process vote's own folder.
    planted = tmp_path / "planted-by-the-in-process-vote"
    hiding = CALENDAR.replace("    return start + datetime.timedelta(days=days)\n", f"""    import sys
    if sys.argv != ['']:
        try:
            open({str(planted)!r}, "w").close()
        except OSError:
            pass
    return start + datetime.timedelta(days=days if sys.argv == [''] else 0)
""")
    code, verdict = _run(h, app, tmp_path, {"books/calendar.py": hiding})
    vote = next(c for c in verdict["checks"] if c["check"] == "in-process")
    if not wall.abi():
        assert vote["ok"] and "no second vote" in vote["reasons"][0]
        return
    sandboxed = next(c for c in verdict["checks"] if c["check"] == "properties")
    assert sandboxed["ok"], sandboxed["reasons"]  # it hid from the sandbox
    assert (code, verdict["blocked_at"]) == (2, "in-process"), _reasons(verdict)
    assert any("test_due_dates_fall_that_many_days_later" in r for r in vote["reasons"])
    assert not planted.exists()  # the kernel wall around the in-process vote held
    code, verdict = _run(h, app, tmp_path, {"books/calendar.py": hiding}, "--no-second-vote")
    assert code == 0 and "in-process" not in [c["check"] for c in verdict["checks"]]  # one vote would have passed it


PATHS = '''"""Labels for journal files."""


def label_of(path):
    return path.name.upper()
'''
PATH_PROPERTY = '''from books.paths import label_of


def test_a_label_names_the_file(tmp_path):
    path = tmp_path / "ledger-2024.txt"
    assert label_of(path) == "LEDGER-2024.TXT"
'''


@pytest.mark.parametrize("cheat", [False, True], ids=["honest", "writes beside the path it was given"])
def test_a_path_crosses_by_value_so_its_methods_run_behind_the_wall(tmp_path, h, cheat):
    """A test's tmp_path handed to production code: were it an object production code calls back, `write_text`
    would run in the unwalled properties' process. It crosses by value; the write happens in the sandbox and is
    refused there."""
    app = _books(tmp_path)
    (app / "books" / "paths.py").write_text(PATHS)
    (app / "oracle" / "properties" / "test_paths.py").write_text(PATH_PROPERTY)
    new = PATHS.replace("    return path.name.upper()\n",
                        "    path.parent.joinpath('pwned').write_text('x')\n    return path.name.upper()\n"
                        if cheat else "    name = path.name\n    return name.upper()\n")
    code, verdict = _run(h, app, tmp_path, {"books/paths.py": new})
    if not cheat:
        assert code == 0, _reasons(verdict)
        return
    assert (code, verdict["blocked_at"]) == (2, "properties"), _reasons(verdict)
    refused = [r for r in _reasons(verdict) if r.startswith("incomplete: sandbox: production code tried writing")]
    assert refused and refused[0].split(" tried writing ")[1].split(",")[0].endswith("/pwned"), _reasons(verdict)
