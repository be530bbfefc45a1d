"""`oracle-gate run` on the worked example: the acceptance cases, each failing closed."""

import hashlib
import json

import pytest

from gate import ledger as L
from gate.check import Check
from gate.verdict import REQUIRED_STAGES, may_merge

ENVELOPE = "shop/envelope.py"
BILLING = "shop/billing.py"


def _patch(h, gated, tmp_path, edits, name="p.diff"):
    path = tmp_path / name
    path.write_text(h.make_patch(gated, edits, tmp_path))
    return path


def _edit(gated, rel, old, new):
    text = (gated / rel).read_text()
    assert old in text
    return text.replace(old, new)


def _run(h, gated, patch, *extra):
    code, verdict = h.gate_json(*h.run_args(gated, patch, *extra))
    assert json.loads((gated.parent / "verdict.json").read_text()) == verdict
    return code, verdict


def _reasons(verdict, stage):
    return [r for c in verdict["checks"] if c["check"] == stage for r in c["reasons"]]


def test_benign_patch_may_merge_and_its_results_are_recorded(gated, tmp_path, h):
    patch = _patch(h, gated, tmp_path, {BILLING: _edit(gated, BILLING, "Clamp a discount", "Clamp any discount")})
    code, verdict = _run(h, gated, patch, "--pytest-args", "-q --tb=short -rA")  # output options pass through
    assert code == 0 and verdict["may_merge"] is True, verdict
    assert [c["check"] for c in verdict["checks"]] == ["apply", "deny", "seal", "sidecars", "ledger-file",
                                                       "oracle-copy", "properties", "in-process", "oracle-after",
                                                       "record", "base-rerun", "ledger"]
    assert L.load_ledger(gated / "oracle" / "ledger.json").results == ()  # a gated patch is never evidence
    code, verdict = _run(h, gated, patch, "--trusted", "--commit", "main-2", "--seed", "42")
    results = L.load_ledger(gated / "oracle" / "ledger.json").results
    assert (code, verdict["seed"]) == (0, 42)
    assert len(results) == 10 and {(r.outcome, r.commit, r.seed) for r in results} == {("pass", "main-2", "42")}


def test_patch_touching_the_oracle_properties_is_denied(gated, tmp_path, h):
    props = "oracle/properties/test_invariants.py"
    for edits in ({props: _edit(gated, props, "assert out >= amount", "assert True")},
                  {"oracle/properties/test_extra.py": "def test_extra():\n    pass\n"}):
        code, verdict = _run(h, gated, _patch(h, gated, tmp_path, edits, f"p{len(edits)}{len(str(edits))}.diff"))
        assert (code, verdict["blocked_at"]) == (2, "deny")
        assert any(r.startswith("denied: oracle/properties/test_") for r in _reasons(verdict, "deny"))


def test_flipped_byte_in_a_sealed_fixture_blocks_at_seal(gated, tmp_path, h):
    patch = _patch(h, gated, tmp_path, {BILLING: _edit(gated, BILLING, "Clamp a discount", "Clamp any discount")})
    fixture = gated / "oracle" / "fixtures" / "invoice_basic.json"
    fixture.write_bytes(fixture.read_bytes().replace(b"19.99", b"19.98"))
    code, verdict = _run(h, gated, patch)
    assert (code, verdict["blocked_at"]) == (2, "seal")
    assert _reasons(verdict, "seal") == ["changed: invoice_basic.json (fixture 'invoice-basic'): sha256 mismatch"]


def test_parser_treating_an_empty_200_as_success_fails_a_property_and_a_fixture_invariant(gated, tmp_path, h):
    patch = gated / "known_bad" / "empty_200_is_success.diff"  # the worked case of docs/ci-gate.md, a plain unified diff
    code, verdict = _run(h, gated, patch)
    assert (code, verdict["blocked_at"]) == (2, "properties")
    failed = [r for r in _reasons(verdict, "properties") if r.startswith("property failed")]
    assert failed == [
        "property failed: oracle/properties/test_invariants.py::test_a_2xx_without_body_is_not_success_unless_204 (fail)",
        "property failed: oracle/properties/test_invariants.py::test_sealed_envelope_keeps_its_verdict"
        "[envelope-empty-200] (fail)"]


def test_marking_a_frozen_test_skip_fails_because_it_edits_a_test_file(gated, tmp_path, h):
    test = "tests/test_billing.py"
    L.admit(gated / "oracle" / "ledger.json", f"{test}::test_discount_is_clamped", "owner")
    edited = _edit(gated, test, "def test_discount_is_clamped", "import pytest\n\n\n@pytest.mark.skip\n"
                                                                 "def test_discount_is_clamped")
    code, verdict = _run(h, gated, _patch(h, gated, tmp_path, {test: edited}))
    assert (code, verdict["blocked_at"]) == (2, "deny")
    assert _reasons(verdict, "deny") == ["denied: tests/test_billing.py (modified)"]


def test_active_test_failing_once_is_recorded_and_blocks_a_frozen_one_only_witnesses(gated, tmp_path, h):
    ledger = gated / "oracle" / "ledger.json"
    test = "tests/test_billing.py::test_discount_is_clamped"
    broken = _patch(h, gated, tmp_path, {BILLING: _edit(gated, BILLING, "return ceiling", "return ceiling + 1")})
    code, verdict = _run(h, gated, broken, "--commit", "c1", "--host", "ci-1", "--trusted")
    assert (code, verdict["blocked_at"]) == (2, "properties")
    row = [r for r in L.load_ledger(ledger).results if r.test == test]
    assert [(r.commit, r.host, r.outcome, r.lane) for r in row] == [("c1", "ci-1", "fail", "vote")]
    assert L.state_of(L.load_ledger(ledger), row[0].test).status == "active"  # one failure never freezes

    # Frozen, it no longer votes; but failing on the patch and passing on the base under the same seed is a
    # regression of the patch all the same.
    L.admit(ledger, test, "owner", "known flake")
    code, verdict = _run(h, gated, broken, "--commit", "c2", "--host", "ci-1")
    assert (code, verdict["blocked_at"]) == (2, "base-rerun"), verdict
    assert _reasons(verdict, "base-rerun") == [
        f"regression: {test} fails on the patch and passes on the base under seed {verdict['seed']}"]

    # A frozen test that fails on the base too is a witness only.
    flaky = _edit(gated, "tests/test_billing.py", "def test_discount_is_clamped():\n",
                  "def test_discount_is_clamped():\n    assert 0, 'flaky'\n")
    (gated / "tests/test_billing.py").write_text(flaky)
    good = _patch(h, gated, tmp_path, {BILLING: _edit(gated, BILLING, "Clamp a discount", "Clamp any discount")})
    code, verdict = _run(h, gated, good)
    assert code == 0, verdict
    assert _reasons(verdict, "base-rerun") == [f"fails on the base too (witness): {test}"]
    assert _reasons(verdict, "ledger") == [f"witness failure (not a vote): {test}"]


def test_a_skip_the_base_shows_too_is_not_incomplete_one_only_the_patch_causes_blocks(gated, tmp_path, h):
    skipping = _edit(gated, "tests/test_billing.py", "def test_discount_is_clamped():\n",
                     "def test_discount_is_clamped():\n    import pytest\n    pytest.skip('no locale')\n")
    (gated / "tests/test_billing.py").write_text(skipping)
    good = _patch(h, gated, tmp_path, {BILLING: _edit(gated, BILLING, "Clamp a discount", "Clamp any discount")})
    code, verdict = _run(h, gated, good)
    assert code == 0, verdict
    assert _reasons(verdict, "base-rerun") == ["skipped on the base too: tests/test_billing.py::test_discount_is_clamped"]
    # Production code that skips a test only the patch makes skip: the base runs it to a pass.
    normalize = _edit(gated, BILLING, "def normalize_currency(", "def _hide():\n    import pytest\n    pytest.skip('x')\n\n\n"
                      "def normalize_currency(")
    normalize = normalize.replace('upper case."""\n    return', 'upper case."""\n    _hide()\n    return')
    skip = _patch(h, gated, tmp_path, {BILLING: normalize}, "skip.diff")
    code, verdict = _run(h, gated, skip)  # in the sandbox, even importing pytest is refused (it needs processes)
    assert (code, verdict["blocked_at"]) == (2, "properties"), verdict
    assert "incomplete: sandbox: production code tried importing _posixsubprocess, which the sandbox refuses" in \
        _reasons(verdict, "properties")
    code, verdict = _run(h, gated, skip, "--trust-patch-code")  # in-process, the base rerun is what catches it
    assert (code, verdict["blocked_at"]) == (2, "base-rerun"), verdict
    assert "skipped on the patch only: tests/test_billing.py::test_currency_codes_are_trimmed_and_upper_case " \
           "(pass on the base)" in _reasons(verdict, "base-rerun")


def test_malformed_patch_manifest_or_ledger_blocks(gated, tmp_path, h):
    bad = tmp_path / "bad.diff"
    bad.write_text("diff --git a/src/x.py b/src/x.py\n@@ -1,4 +1,4 @@\n-a\n")
    code, verdict = _run(h, gated, bad)
    assert (code, verdict["blocked_at"]) == (2, "apply") and "does not apply" in _reasons(verdict, "apply")[0]

    good = _patch(h, gated, tmp_path, {BILLING: _edit(gated, BILLING, "Clamp a discount", "Clamp any discount")})
    ledger = gated / "oracle" / "ledger.json"
    ledger.write_text('{"version": 1, "policy": "hysteresis", "results": {}}')
    code, verdict = _run(h, gated, good)
    assert (code, verdict["blocked_at"]) == (2, "ledger-file") and "results" in _reasons(verdict, "ledger-file")[0]

    (gated / "oracle" / "fixtures" / "manifest.json").write_text('{"version": 1, "fixtures": {}}')
    code, verdict = _run(h, gated, good)
    assert (code, verdict["blocked_at"]) == (2, "seal") and '"fixtures"' in _reasons(verdict, "seal")[0]


def test_snapshot_catches_a_surface_change_outside_the_patch(gated, tmp_path, h):
    snap = tmp_path / "before.json"
    assert h.gate("snapshot", gated, "--out", snap).returncode == 0
    ini = gated / "pytest.ini"
    ini.write_text(ini.read_text().replace(" --strict-markers", ""))
    good = _patch(h, gated, tmp_path, {BILLING: _edit(gated, BILLING, "Clamp a discount", "Clamp any discount")})
    code, verdict = _run(h, gated, good, "--snapshot", snap)
    assert (code, verdict["blocked_at"]) == (2, "snapshot")
    assert _reasons(verdict, "snapshot") == ["changed: pytest.ini"]


def test_wall_clock_cap_blocks(gated, tmp_path, h):
    hang = _patch(h, gated, tmp_path, {BILLING: "import time\ntime.sleep(60)\n"})
    code, verdict = _run(h, gated, hang, "--timeout", "3")
    assert (code, verdict["blocked_at"]) == (2, "properties")
    assert _reasons(verdict, "properties") == ["pytest exceeded the wall-clock cap of 3s"]


def test_merge_predicate_needs_every_required_stage_and_every_pass():
    passed = tuple(Check(stage, True) for stage in REQUIRED_STAGES)
    assert may_merge(passed, REQUIRED_STAGES)
    assert not may_merge(passed[:-1], REQUIRED_STAGES)
    assert not may_merge(passed + (Check("record", False),), REQUIRED_STAGES)
    assert not may_merge((), REQUIRED_STAGES)


@pytest.mark.parametrize("args", ["-k currency", "--deselect tests/test_billing.py::test_discount_is_clamped",
                                  "-m fixture_invariant", "tests/test_billing.py", "-p no:gate.pytest_plugin",
                                  "-o python_files=test_billing.py", "--continue-on-collection-errors",
                                  "--hypothesis-seed=5", "--gate-ledger=other.json", "-q -c other.ini"])
def test_pytest_args_that_could_change_the_vote_are_refused(gated, tmp_path, h, args):
    patch = _patch(h, gated, tmp_path, {BILLING: _edit(gated, BILLING, "Clamp a discount", "Clamp any discount")})
    code, verdict = _run(h, gated, patch, "--pytest-args", args)
    assert (code, verdict["blocked_at"]) == (2, "pytest-args")
    offending = [w for w in args.split() if w != "-q"][0]
    assert f"{offending!r} could change which tests vote" in _reasons(verdict, "pytest-args")[0]


def test_report_files_may_be_written_outside_the_repository_but_not_inside(gated, tmp_path, h):
    patch = _patch(h, gated, tmp_path, {BILLING: _edit(gated, BILLING, "Clamp a discount", "Clamp any discount")})
    outside = tmp_path / "reports" / "pytest.xml"
    outside.parent.mkdir()
    code, verdict = _run(h, gated, patch, "--pytest-args", f"-q --junitxml={outside}")
    assert code == 0, verdict
    assert outside.read_text().count("<testcase ") == 10
    for word in (f"--junit-xml={gated / 'oracle' / 'pytest.xml'}", "--junitxml=pytest.xml"):  # relative: to the cwd
        code, verdict = h.gate_json(*h.run_args(gated, patch, "--pytest-args", word), cwd=gated)
        assert (code, verdict["blocked_at"]) == (2, "pytest-args")
        assert f"{word!r} writes {gated.resolve()}/" in _reasons(verdict, "pytest-args")[0]
    assert not list(gated.rglob("pytest.xml"))


@pytest.mark.parametrize(("appended", "reason", "in_process"), [
    ("import os\nos._exit(0)\n", "incomplete: sandbox: the sandbox is gone (the channel broke",
     "pytest (exit 0) ended without the gate's summary"),
    ("import pytest\nraise pytest.skip.Exception('hide', allow_module_level=True)\n",
     "incomplete: collection error in oracle/properties/test_invariants.py",
     "incomplete: oracle/properties/test_invariants.py was skipped whole at collection"),
    ("raise RuntimeError('broken import')\n", "incomplete: collection error in oracle/properties/test_invariants.py",
     "incomplete: collection error in oracle/properties/test_invariants.py"),
])
def test_production_code_that_exits_or_hides_a_test_module_blocks(gated, tmp_path, h, appended, reason, in_process):
    # tests/test_billing.py does not import shop.envelope, so its two tests still pass in every case.
    patch = _patch(h, gated, tmp_path, {ENVELOPE: (gated / ENVELOPE).read_text() + appended})
    for extra, expected in (((), reason), (("--trust-patch-code",), in_process)):
        code, verdict = _run(h, gated, patch, *extra)
        assert (code, verdict["blocked_at"]) == (2, "properties")
        assert any(r.startswith(expected) for r in _reasons(verdict, "properties")), _reasons(verdict, "properties")


def test_missing_inputs_exit_3_naming_the_file(gated, tmp_path, h):
    good = _patch(h, gated, tmp_path, {BILLING: _edit(gated, BILLING, "Clamp a discount", "Clamp any discount")})
    args = h.run_args(gated, good)
    for flag in ("--patch", "--deny", "--manifest", "--ledger", "--app"):
        missing = tmp_path / f"no-such{flag}"
        changed = [missing if args[i - 1] == flag else a for i, a in enumerate(args)]
        done = h.gate(*changed)
        assert done.returncode == 3 and str(missing) in done.stderr, flag
    done = h.gate(*args, "--snapshot", tmp_path / "no-such-snapshot.json")
    assert done.returncode == 3 and "no-such-snapshot" in done.stderr
    done = h.gate(*args, "--junit", gated / "junit.xml")
    assert done.returncode == 3 and "outside the repository" in done.stderr


def test_junit_xml_names_every_check_and_property(gated, tmp_path, h):
    from junitparser import JUnitXml

    good = _patch(h, gated, tmp_path, {BILLING: _edit(gated, BILLING, "Clamp a discount", "Clamp any discount")})
    code, verdict = _run(h, gated, good, "--junit", tmp_path / "gate.xml")
    suites = {suite.name: suite for suite in JUnitXml.fromfile(str(tmp_path / "gate.xml"))}
    assert code == 0 and set(suites) == {"oracle-gate", "oracle-properties"}
    assert [case.name for case in suites["oracle-gate"]] == [c["check"] for c in verdict["checks"]]
    assert (suites["oracle-gate"].failures, suites["oracle-properties"].tests) == (0, 10)
    assert h.gate("--version").stdout.startswith("oracle-gate ")


def test_a_patch_that_reseals_its_own_fixture_blocks_even_if_the_deny_list_allows_it(gated, tmp_path, h):
    (gated / "oracle" / "path_deny.txt").write_text("oracle/properties/\n")  # forgets the fixtures and the lock
    fixture, manifest = "oracle/fixtures/invoice_basic.json", "oracle/fixtures/manifest.json"
    forged = (gated / fixture).read_text().replace("19.99", "19.98")
    rows = json.loads((gated / manifest).read_text())
    for row in rows["fixtures"]:
        if row["id"] == "invoice-basic":
            row["sha256"] = hashlib.sha256(forged.encode()).hexdigest()
    patch = _patch(h, gated, tmp_path, {fixture: forged, manifest: json.dumps(rows)})
    code, verdict = _run(h, gated, patch)
    assert (code, verdict["blocked_at"]) == (2, "seal")
    assert _reasons(verdict, "seal") == [f"changed: {gated / manifest} (the patch rewrote the seal file itself)"]

    lock = gated / "oracle" / "fixtures.lock.json"
    assert h.gate("lock", "write", "--root", gated / "oracle" / "fixtures", "--lock", lock).returncode == 0
    rewrite = _patch(h, gated, tmp_path, {"oracle/fixtures.lock.json": "{}\n"}, "lock.diff")
    code, verdict = _run(h, gated, rewrite, "--lock", lock)
    assert (code, verdict["blocked_at"]) == (2, "lock")
    assert _reasons(verdict, "lock") == [f"changed: {lock} (the patch rewrote the seal file itself)"]
    good = _patch(h, gated, tmp_path, {BILLING: _edit(gated, BILLING, "Clamp a discount", "Clamp any discount")})
    code, verdict = _run(h, gated, good, "--lock", lock)
    assert code == 0 and "lock" in [c["check"] for c in verdict["checks"]]


def test_one_snapshot_gates_the_same_honest_patch_twice_though_the_ledger_grew(gated, tmp_path, h):
    snap = tmp_path / "before.json"
    assert h.gate("snapshot", gated, "--out", snap).returncode == 0
    good = _patch(h, gated, tmp_path, {BILLING: _edit(gated, BILLING, "Clamp a discount", "Clamp any discount")})
    for commit in ("main-1", "main-2"):
        code, verdict = _run(h, gated, good, "--snapshot", snap, "--trusted", "--commit", commit)
        assert code == 0, verdict
    assert len(L.load_ledger(gated / "oracle" / "ledger.json").results) == 20
