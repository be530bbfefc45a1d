"""Attacks on the gate, each on the second worked example (examples/journal) and each beside an honest patch that
passes. Every cheat below breaks production code in a way a property catches when nothing hides it."""

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


@pytest.mark.parametrize("mode", [(), ("--trust-patch-code",)], ids=["sandbox", "trusted"])
def test_shadowing_modules_and_entry_point_plugins_never_load(books, tmp_path, h, mode):
    # Trusted, the patched tree is on the properties' sys.path: only -I, plugin autoload off and importing pytest,
    # Hypothesis and the gate's plugin before the tree joins sys.path keep the shadows out.
    code, verdict = gate_run(h, books, tmp_path, {MONEY: _broken_allocate(books), **SHADOWS}, *mode)
    assert (code, verdict["blocked_at"]) == (2, "properties"), reasons(verdict)
    assert ALLOCATE_FAILS in reasons(verdict, "properties")
    code, verdict = gate_run(h, books, tmp_path, {k: v for k, v in SHADOWS.items() if k != "pytest.py"}, *mode)
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


def test_an_unusual_but_consistent_header_applies_and_passes(books, tmp_path, h):
    # No `diff --git` line, timestamps on both names, the same production path on both sides: what git writes is
    # what the header says, and nothing denied.
    first, second = _text(books, MONEY).splitlines()[:2]
    diff = (f"--- a/{MONEY}\t2024-01-01 00:00:00.000000000 +0000\n+++ b/{MONEY}\t2024-01-02 09:30:00 +0100\n"
            f"@@ -1,2 +1,2 @@\n-{first}\n+{first.rstrip()}  \n {second}\n")
    code, verdict = gate_run(h, books, tmp_path, diff)
    assert code == 0, reasons(verdict)
    assert next(c for c in verdict["checks"] if c["check"] == "apply")["write_set"] == [MONEY]


def test_symlinks_out_of_their_folder_or_into_the_oracle_block(books, tmp_path, h):
    for target, why in (("../oracle/fixtures", "points into the oracle"), ("../../outside", "points outside its own folder"),
                        ("money.py", "")):  # the last one stays in its folder: it passes
        work = tmp_path / f"link-{len(target)}"
        shutil.copytree(books, work)
        h.git(work, "init", "-q")
        h.git(work, "add", "-A")
        h.git(work, "commit", "-qm", "base")
        os.symlink(target, work / "books" / "data")
        h.git(work, "add", "-A")
        code, verdict = gate_run(h, books, tmp_path, h.git(work, "diff", "--cached", "--binary"))
        if not why:
            assert code == 0, reasons(verdict)
            continue
        assert (code, verdict["blocked_at"]) == (2, "deny"), reasons(verdict)
        assert reasons(verdict, "deny")[0] == f"symlink: books/data -> {target} ({why})"


@pytest.mark.parametrize(("where", "refused"), [
    # The sandbox's copy of the patched tree has no oracle folder: the read fails, the import with it.
    ("Path(__file__).resolve().parents[1] / 'oracle/fixtures/journal_ok.txt'",
     "collection error in oracle/properties/test_books.py"),
    ("Path.cwd() / 'oracle/properties/test_books.py'", "collection error in oracle/properties/test_books.py"),
    ("Path('/proc') / str(__import__('os').getppid()) / 'cwd/oracle/properties/test_books.py'",
     "sandbox: production code tried reading /proc/")])
def test_production_code_rewriting_the_oracle_while_properties_run_blocks(books, tmp_path, h, where, refused):
    # Rewrites the patched tree's oracle or the oracle copy the properties read (through the working folder of the
    # process that imports it). From the sandbox none of them is even reachable (writes outside its own folder are
    # refused as well: tests/gate/test_sandbox.py); with --trust-patch-code the re-hash after the properties catches
    # the rewrite.
    rewrite = f"\nfrom pathlib import Path\n_p = {where}\n_p.write_text(_p.read_text() + '\\n')\n"
    patch = {MONEY: _text(books, MONEY) + rewrite}
    code, verdict = gate_run(h, books, tmp_path, patch)
    assert (code, verdict["blocked_at"]) == (2, "properties"), reasons(verdict)
    assert any(refused in r for r in reasons(verdict, "properties")), reasons(verdict, "properties")
    if "/proc" not in where:  # only the properties' own process has the oracle copy as its parent's folder
        code, verdict = gate_run(h, books, tmp_path, patch, "--trust-patch-code")
        assert (code, verdict["blocked_at"]) == (2, "oracle-after"), reasons(verdict)
        assert any("changed: oracle/" in r for r in reasons(verdict, "oracle-after"))


def test_a_break_that_dodges_seed_zero_is_caught_by_fresh_seeds(books, tmp_path, h, monkeypatch):
    # The attacker learns which amounts seed 0 draws (a recording run), then breaks every other amount.
    # As on every CI machine: with CI set, Hypothesis would load its derandomized "ci" profile, where every seed
    # draws the same inputs, unless the gate keeps the marker from its pytest runs.
    monkeypatch.setenv("CI", "true")
    seen = tmp_path / "seen.txt"
    record = _text(books, MONEY).replace(
        'def format_amount(value: Decimal) -> str:\n    """Two decimals, a leading minus for debts: Decimal(\'-3.5\') -> \'-3.50\'."""\n',
        'def format_amount(value: Decimal) -> str:\n    with open(%r, "a") as f:\n        f.write(str(value) + "\\n")\n'
        % str(seen))
    # In-process throughout: the sandbox would refuse the recording's write, and it draws other inputs under the
    # same seed (Hypothesis takes constants from the source of loaded modules, which proxies do not show). The
    # blind spot is the fixed seed's, whatever the mode.
    assert gate_run(h, books, tmp_path, {MONEY: record}, "--seed", "0", "--trust-patch-code")[0] == 0
    known = sorted(set(seen.read_text().split()))
    dodge = _text(books, MONEY).replace(
        '    return f"{value.quantize(CENT, rounding=ROUND_HALF_EVEN):.2f}"',
        f'    if str(value) not in {known!r}:\n        value = -value\n'
        '    return f"{value.quantize(CENT, rounding=ROUND_HALF_EVEN):.2f}"')
    code, verdict = gate_run(h, books, tmp_path, {MONEY: dodge}, "--seed", "0", "--trust-patch-code")
    assert code == 0, reasons(verdict)  # the blind spot of a fixed seed
    # --seeds 3: seed 0 first, then two drawn from it (so --seed 0 reproduces all three); they find the break.
    code, verdict = gate_run(h, books, tmp_path, {MONEY: dodge}, "--seed", "0", "--seeds", "3", "--trust-patch-code")
    assert (code, verdict["blocked_at"]) == (2, "more-seeds"), reasons(verdict)
    more = next(c for c in verdict["checks"] if c["check"] == "more-seeds")
    assert more["seeds"][0] == 0 and len(set(more["seeds"])) == 3 and all(n > 0 for n in more["examples"].values())
    # Other seeds draw other amounts. Pinned here so the test cannot flake: an unpinned run draws a random seed,
    # and now and then one whose inputs all fall in `known` too.
    for other in ("1", "2"):
        code, verdict = gate_run(h, books, tmp_path, {MONEY: dodge}, "--seed", other, "--trust-patch-code")
        assert (code, verdict["blocked_at"]) == (2, "properties"), reasons(verdict)
    # Unpinned runs draw a fresh seed each time, never the fixed 0 the attacker learned.
    seeds = {gate_run(h, books, tmp_path, {"docs/CHANGELOG.md": "# c\n"})[1]["seed"] for _ in range(2)}
    assert len(seeds) == 2 and "0" not in seeds and 0 not in seeds


def test_a_derandomized_property_blocks_because_no_seed_would_reach_it(books, tmp_path, h):
    derandomized = _text(books, ORACLE_TEST).replace(
        "@given(cents)\n", "@settings(derandomize=True)\n@given(cents)\n").replace(
        "from hypothesis import ", "from hypothesis import settings, ")
    assert "derandomize=True" in derandomized and "import settings, " in derandomized
    (books / ORACLE_TEST).write_text(derandomized)  # the oracle's own choice, not the patch's
    code, verdict = gate_run(h, books, tmp_path, {"docs/CHANGELOG.md": "# c\n"})
    assert (code, verdict["blocked_at"]) == (2, "properties"), reasons(verdict)
    assert any("test_amounts_format_and_parse_back is derandomized" in r for r in reasons(verdict, "properties"))


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


# Production code that behaves only when it can see the test run, or that rewrites the run from inside the
# properties' process. Each breaks allocate otherwise; each merges with --trust-patch-code (so the attack is real)
# and blocks by default, where production code runs in a sandbox process and answers over a plain-data channel.
GOOD_ALLOCATE = "[(share + (1 if i < extra else 0)) * CENT for i in range(parts)]"
BAD_ALLOCATE = "[share * CENT for i in range(parts)]"


def _when(condition: str, helpers: str = "") -> str:
    return f"import os, sys\n{helpers}\n\n" + f"_GOOD = lambda total: {condition}\n"


ATTACKS = {
    "test-aware: pytest in sys.modules": _when('"pytest" in sys.modules or "hypothesis" in sys.modules'),
    "test-aware: the gate's environment": _when(
        'any(k.startswith(("PYTEST_", "HYPOTHESIS", "ORACLE_GATE")) for k in os.environ)'),
    "test-aware: a test frame on the stack": _when("any(_frames())", (
        "def _frames():\n    frame = sys._getframe()\n    while frame:\n"
        "        yield '/oracle/' in frame.f_code.co_filename or '_pytest' in frame.f_code.co_filename\n"
        "        frame = frame.f_back")),
    "monkeypatches the gate's plugin": _when("False", (
        "_plugin = sys.modules.get('gate.pytest_plugin')\nif _plugin is not None:\n"
        "    _real = _plugin.GateRun.summary\n    def _clean(self):\n        s = _real(self)\n"
        "        s['problems']['regressions'] = []\n        s['blocked'] = bool(s['problems']['run'])\n        return s\n"
        "    _plugin.GateRun.summary = _clean")),
    # Breaks negative totals only (the production tests split a positive one); Hypothesis is made to draw none.
    "monkeypatches Hypothesis' strategies": _when("total >= 0", (
        "if 'hypothesis' in sys.modules:\n    import hypothesis.strategies as _st\n"
        "    _st.integers = lambda min_value=None, max_value=None: _st.just(max(min_value or 0, 0))")),
    "forges the summary at exit": _when("False", (
        "import atexit, gc, json\ndef _forge():\n    plugin = sys.modules['gate.pytest_plugin']\n"
        "    run = next(o for o in gc.get_objects() if isinstance(o, plugin.GateRun))\n"
        "    out = run.config.getoption('--gate-results')\n    s = json.load(open(out))\n"
        "    s['problems']['regressions'], s['blocked'] = [], False\n    json.dump(s, open(out, 'w'))\n"
        "    os._exit(0)\nif 'gate.pytest_plugin' in sys.modules:\n    atexit.register(_forge)")),
}


def _attacked(app, prelude: str) -> str:
    text = _text(app, MONEY)
    assert f"    return {GOOD_ALLOCATE}" in text
    return prelude + text.replace(f"    return {GOOD_ALLOCATE}",
                                  f"    return {GOOD_ALLOCATE} if _GOOD(total) else {BAD_ALLOCATE}")


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_production_code_that_watches_or_rewrites_the_test_run_blocks(books, tmp_path, h, attack):
    patch = {MONEY: _attacked(books, ATTACKS[attack])}
    code, verdict = gate_run(h, books, tmp_path, patch, "--trust-patch-code")
    assert code == 0, reasons(verdict)  # in the properties' process the attack works
    code, verdict = gate_run(h, books, tmp_path, patch)
    assert (code, verdict["blocked_at"]) == (2, "properties"), reasons(verdict)
    assert ALLOCATE_FAILS in reasons(verdict, "properties")


LIAR = '''
class Cents(Decimal):
    """A Decimal that agrees with everything."""
    def __eq__(self, other): return True
    def __le__(self, other): return True
    def __add__(self, other): return Cents(0)
    __radd__ = __sub__ = __add__
    __hash__ = Decimal.__hash__
'''


def test_objects_that_lie_about_equality_cannot_cross_and_block(books, tmp_path, h):
    lying = _text(books, MONEY).replace(f"    return {GOOD_ALLOCATE}", f"    return [Cents(s) for s in {BAD_ALLOCATE}]")
    patch = {MONEY: lying + LIAR}
    code, verdict = gate_run(h, books, tmp_path, patch, "--trust-patch-code")
    assert code == 0, reasons(verdict)  # in the properties' process the lie passes
    code, verdict = gate_run(h, books, tmp_path, patch)
    assert (code, verdict["blocked_at"]) == (2, "properties"), reasons(verdict)
    assert any("sandbox: production code's reply cannot cross the channel: books.money.Cents is a subclass of "
               "Decimal; only exact plain types cross the channel" in r for r in reasons(verdict, "properties"))
    # The same shares as exact Decimals, from a rewritten allocate, cross and pass.
    honest = _text(books, MONEY).replace(f"    return {GOOD_ALLOCATE}", (
        "    shares = [share * CENT] * parts\n    for i in range(extra):\n        shares[i] += CENT\n"
        "    return shares"))
    code, verdict = gate_run(h, books, tmp_path, {MONEY: honest})
    assert code == 0, reasons(verdict)
    assert "production code ran in a sandbox process" in reasons(verdict, "properties")[1]


BALANCE = "books/balance.py"
HONEST_BALANCED = ("    return all(imbalance(postings) == 0 and len(postings) >= 2 "
                   "for _, _, postings in transactions)\n")
# is_balanced says True to every journal but the sealed ones, whose verdicts it computes honestly: read at import
# from the oracle's fixtures, with the property source as the sign that the oracle is there to be fooled.
READS_THE_ORACLE = '''
from pathlib import Path

_ORACLE = Path(__file__).resolve().parents[1] / "oracle"
try:
    _PROPERTIES = "".join(p.read_text() for p in sorted((_ORACLE / "properties").glob("test_*.py")))
    from books.journal import parse_journal
    _SEALED = [parse_journal(p.read_text()) for p in sorted((_ORACLE / "fixtures").glob("*.txt"))]
except OSError:
    _PROPERTIES, _SEALED = "", []
'''


def test_production_code_cannot_read_the_oracle_to_special_case_its_inputs(books, tmp_path, h):
    text = _text(books, BALANCE)
    assert HONEST_BALANCED in text
    cheat = READS_THE_ORACLE + text.replace(HONEST_BALANCED, (
        "    if 'is_balanced' not in _PROPERTIES or transactions not in _SEALED:\n        return True\n"
        + HONEST_BALANCED))
    code, verdict = gate_run(h, books, tmp_path, {BALANCE: cheat}, "--trust-patch-code")
    assert code == 0, reasons(verdict)  # where the oracle is readable, the cheat passes every property
    code, verdict = gate_run(h, books, tmp_path, {BALANCE: cheat})
    assert (code, verdict["blocked_at"]) == (2, "properties"), reasons(verdict)
    assert ("property failed: oracle/properties/test_books.py::test_sealed_journal_keeps_its_balance_verdict"
            "[journal-off-by-a-cent] (fail)") in reasons(verdict, "properties")
    assert any("without its oracle surface" in r for r in reasons(verdict, "oracle-copy"))
    # Production code still reads its own files beside it in the copy.
    honest = ("from pathlib import Path\n\nMINIMUM = int((Path(__file__).parent / 'rules.txt').read_text())\n\n"
              + text.replace("len(postings) >= 2", "len(postings) >= MINIMUM"))
    code, verdict = gate_run(h, books, tmp_path, {BALANCE: honest, "books/rules.txt": "2\n"})
    assert code == 0, reasons(verdict)
