"""Attacks on the gate, each on the second worked example (examples/journal) and each beside an honest patch that
passes. Every cheat below breaks production code in a way a property catches when nothing hides it."""

import json
import os
import shutil
from pathlib import Path

import pytest

from gate import ledger as L

JOURNAL = Path(__file__).resolve().parents[2] / "examples" / "journal"
MONEY = "books/money.py"
ORACLE_TEST = "oracle/properties/test_books.py"
ALLOCATE_FAILS = "property failed: oracle/properties/test_books.py::" \
                 "test_allocation_sums_to_the_total_and_shares_differ_by_a_cent_at_most (fail)"


@pytest.fixture
def books(tmp_path: Path) -> Path:
    app = tmp_path / "books-app"
    shutil.copytree(JOURNAL, app, ignore=shutil.ignore_patterns("__pycache__", "*.lock", ".hypothesis"))
    return app


def _text(app, rel):
    return (app / rel).read_text()


def _broken_allocate(app) -> str:
    """allocate drops the odd cents: shares no longer sum to the total."""
    text = _text(app, MONEY)
    assert "(share + (1 if i < extra else 0))" in text
    return text.replace("(share + (1 if i < extra else 0))", "share")


def gate_run(h, app, tmp_path, edits, *extra, name=None):
    patch = tmp_path / (name or f"p{len(list(tmp_path.glob('*.diff')))}.diff")
    patch.write_text(h.make_patch(app, edits, tmp_path)) if isinstance(edits, dict) else patch.write_text(edits)
    oracle = app / "oracle"
    code, verdict = h.gate_json("run", "--app", app, "--patch", patch, "--deny", oracle / "path_deny.txt",
                                "--manifest", oracle / "fixtures" / "manifest.json", "--ledger",
                                oracle / "ledger.json", "--out", tmp_path / "verdict.json", *extra)
    return code, verdict


def reasons(verdict, stage=None):
    return [r for c in verdict["checks"] if stage in (None, c["check"]) for r in c["reasons"]]


def test_honest_patches_pass_and_say_which_evidence_voted(books, tmp_path, h):
    for edits in ({"books/__init__.py": _text(books, "books/__init__.py").replace("1.4.0", "1.4.1")},
                  {"docs/CHANGELOG.md": _text(books, "docs/CHANGELOG.md") + "- 1.4.1: nothing changed\n"}):
        code, verdict = gate_run(h, books, tmp_path, edits)
        assert code == 0, reasons(verdict)
        assert "evidence that voted: 6 oracle properties, 2 production tests" in reasons(verdict, "properties")[0]
        assert isinstance(verdict["seed"], int)


# Each shadow would, if loaded, make every test pass; the broken allocate must still fail its property.
SHADOWS = {
    "pytest.py": "import os\nos._exit(0)\n",
    "hypothesis.py": "def given(*a, **k):\n    return lambda f: (lambda *x, **y: None)\n",
    "gate/__init__.py": "", "gate/pytest_plugin.py": "def pytest_addoption(parser):\n    pass\n",
    "tests/__init__.py": "",
    "books_helpers-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: books-helpers\nVersion: 1.0\n",
    "books_helpers-1.0.dist-info/entry_points.txt": "[pytest11]\nhelpers = books_helpers\n",
    "books_helpers.py": "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
                        "    outcome = yield\n    outcome.get_result().outcome = 'passed'\n",
}


def test_shadowing_modules_and_entry_point_plugins_never_load(books, tmp_path, h):
    code, verdict = gate_run(h, books, tmp_path, {MONEY: _broken_allocate(books), **SHADOWS})
    assert (code, verdict["blocked_at"]) == (2, "properties"), reasons(verdict)
    assert ALLOCATE_FAILS in reasons(verdict, "properties")
    code, verdict = gate_run(h, books, tmp_path, {k: v for k, v in SHADOWS.items() if k != "pytest.py"})
    assert code == 0, reasons(verdict)  # the same files without a break merge: shadows are harmless, not denied


DESYNC = [
    # The `diff --git` line names production code; git writes the oracle file named by ---/+++.
    "diff --git a/books/money.py b/books/money.py\n--- a/{t}\n+++ b/{t}\n@@ -1,2 +1,2 @@\n-{first}\n+# pwned\n {second}\n",
    # A plain diff with timestamps and different names on both sides.
    "--- a/books/money.py\t2024-01-01 00:00:00\n+++ b/{t}\t2024-01-01\n@@ -1,2 +1,2 @@\n-{first}\n+# pwned\n {second}\n",
]


@pytest.mark.parametrize("template", DESYNC)
def test_a_diff_header_that_names_one_path_and_writes_another_is_denied(books, tmp_path, h, template):
    first, second = _text(books, ORACLE_TEST).splitlines()[:2]
    code, verdict = gate_run(h, books, tmp_path, template.format(t=ORACLE_TEST, first=first, second=second))
    assert (code, verdict["blocked_at"]) == (2, "deny"), reasons(verdict)
    assert f"denied: {ORACLE_TEST} (modified)" in reasons(verdict, "deny")


def test_symlinks_out_of_their_folder_or_into_the_oracle_block(books, tmp_path, h):
    for target, why in (("../oracle/fixtures", "points into the oracle"), ("../../outside", "points outside its own folder")):
        work = tmp_path / f"link-{len(target)}"
        shutil.copytree(books, work)
        h.git(work, "init", "-q")
        h.git(work, "add", "-A")
        h.git(work, "commit", "-qm", "base")
        os.symlink(target, work / "books" / "data")
        h.git(work, "add", "-A")
        code, verdict = gate_run(h, books, tmp_path, h.git(work, "diff", "--cached", "--binary"))
        assert (code, verdict["blocked_at"]) == (2, "deny"), reasons(verdict)
        assert reasons(verdict, "deny")[0] == f"symlink: books/data -> {target} ({why})"


@pytest.mark.parametrize("where", ["Path(__file__).resolve().parents[1] / 'oracle/fixtures/journal_ok.txt'",
                                   "Path.cwd() / 'oracle/properties/test_books.py'"])
def test_production_code_rewriting_the_oracle_while_properties_run_blocks(books, tmp_path, h, where):
    # Rewrites the patched tree's oracle or the oracle copy the properties read (found through the working folder)
    rewrite = f"\nfrom pathlib import Path\n_p = {where}\n_p.write_text(_p.read_text() + '\\n')\n"
    code, verdict = gate_run(h, books, tmp_path, {MONEY: _text(books, MONEY) + rewrite})
    assert (code, verdict["blocked_at"]) == (2, "oracle-after"), reasons(verdict)
    assert any("changed: oracle/" in r for r in reasons(verdict, "oracle-after"))


def test_a_break_that_dodges_seed_zero_is_caught_by_fresh_seeds(books, tmp_path, h):
    # The attacker learns which amounts seed 0 draws (a recording run), then breaks every other amount.
    seen = tmp_path / "seen.txt"
    record = _text(books, MONEY).replace(
        'def format_amount(value: Decimal) -> str:\n    """Two decimals, a leading minus for debts: Decimal(\'-3.5\') -> \'-3.50\'."""\n',
        'def format_amount(value: Decimal) -> str:\n    with open(%r, "a") as f:\n        f.write(str(value) + "\\n")\n'
        % str(seen))
    assert gate_run(h, books, tmp_path, {MONEY: record}, "--seed", "0")[0] == 0
    known = sorted(set(seen.read_text().split()))
    dodge = _text(books, MONEY).replace(
        '    return f"{value.quantize(CENT, rounding=ROUND_HALF_EVEN):.2f}"',
        f'    if str(value) not in {known!r}:\n        value = -value\n'
        '    return f"{value.quantize(CENT, rounding=ROUND_HALF_EVEN):.2f}"')
    code, verdict = gate_run(h, books, tmp_path, {MONEY: dodge}, "--seed", "0")
    assert code == 0, reasons(verdict)  # the blind spot of a fixed seed
    # Other seeds draw other amounts. Pinned here so the test cannot flake: an unpinned run draws a random seed,
    # and now and then one whose inputs all fall in `known` too.
    for other in ("1", "2"):
        code, verdict = gate_run(h, books, tmp_path, {MONEY: dodge}, "--seed", other)
        assert (code, verdict["blocked_at"]) == (2, "properties"), reasons(verdict)
    # Unpinned runs draw a fresh seed each time, never the fixed 0 the attacker learned.
    seeds = {gate_run(h, books, tmp_path, {"docs/CHANGELOG.md": "# c\n"})[1]["seed"] for _ in range(2)}
    assert len(seeds) == 2 and "0" not in seeds and 0 not in seeds


def test_a_stream_of_broken_patches_cannot_freeze_the_property_it_breaks(books, tmp_path, h):
    ledger = books / "oracle" / "ledger.json"
    ledger.unlink()
    L.init_ledger(ledger, "hysteresis", {"window_n": 2, "enter_rate": 0.5})
    broken = {MONEY: _broken_allocate(books)}
    for i in range(3):  # window_n patch failures would have frozen it had patch runs counted
        code, verdict = gate_run(h, books, tmp_path, broken, "--commit", f"poison-{i}")
        assert (code, verdict["blocked_at"]) == (2, "properties")
        assert ALLOCATE_FAILS in reasons(verdict, "properties")
    assert L.load_ledger(ledger).results == ()
    refused = h.gate("flake", "record", "--ledger", ledger, "--commit", "x", "--test", "t", "--outcome", "fail")
    assert refused.returncode == 3 and "--trusted" in refused.stderr
    code, verdict = gate_run(h, books, tmp_path, {"docs/CHANGELOG.md": "# c\n"}, "--trusted", "--commit", "main-1",
                             "--seed", "7")
    assert code == 0
    rows = L.load_ledger(ledger).results
    assert len(rows) == 8 and {(r.commit, r.seed) for r in rows} == {("main-1", "7")}
