"""A blocked gate shows why: every failed property's falsifying example and the seed to reproduce it, in the
console, the JSON verdict and the gate's JUnit file, without pytest's or Hypothesis's pointers into the gate's
deleted temporary copies; the sandbox line on every verdict."""

import json
import re

from junitparser import JUnitXml

NOISE = (".hypothesis/patches", "PytestAssertRewriteWarning", "git apply", "_pytest/", "Traceback")


def test_a_failed_property_shows_its_falsifying_example_in_console_json_and_junit(gated, tmp_path, h):
    patch = gated / "known_bad" / "empty_200_is_success.diff"  # the worked case
    args = h.run_args(gated, patch, "--seed", "7", "--junit", tmp_path / "gate.xml")
    code, verdict = h.gate_json(*args)
    assert code == 2 and verdict["blocked_at"] == "properties"
    by_test = {f["test"]: f for f in verdict["failures"]}
    hypothesis_test = "oracle/properties/test_invariants.py::test_a_2xx_without_body_is_not_success_unless_204"
    fixture_test = "oracle/properties/test_invariants.py::test_sealed_envelope_keeps_its_verdict[envelope-empty-200]"
    assert set(by_test) == {hypothesis_test, fixture_test}
    [example] = by_test[hypothesis_test]["falsifying_examples"]
    # Hypothesis 6.170 calls it "Failing test case", older versions "Falsifying example"
    assert re.match(r"(Failing test case|Falsifying example): test_a_2xx_without_body_is_not_success_unless_204\(", example)
    assert "status=2" in example and by_test[hypothesis_test]["seed"] == 7
    assert by_test[fixture_test]["falsifying_examples"] == [] and by_test[fixture_test]["error"].startswith("AssertionError")
    reasons = [r for c in verdict["checks"] if c["check"] == "properties" for r in c["reasons"]]
    assert any(r.startswith(example.split("(")[0] + "(") and r.endswith("reproduce: --seed 7)") for r in reasons)
    assert verdict["sandbox"] and verdict["sandbox"] in reasons
    assert not any(noise in r for r in reasons for noise in NOISE + ("oracle-gate-",)), reasons  # no temp paths

    suites = {suite.name: suite for suite in JUnitXml.fromfile(str(tmp_path / "gate.xml"))}
    cases = {case.name: case for case in suites["oracle-properties"]}
    [failure] = cases[hypothesis_test].result
    assert example.split("(")[0] in failure.message and "status=2" in failure.message
    assert "--seed 7" in failure.text and example in failure.text
    assert dict((p.name, p.value) for p in suites["oracle-gate"].properties())["sandbox"] == verdict["sandbox"]

    console = h.gate(*args).stdout
    assert console.startswith("BLOCKED at properties\n  sandbox: " + verdict["sandbox"].split(":")[0])  # s differ
    assert example.splitlines()[0] in console and "reproduce: the same command with --seed 7" in console
    assert not any(noise in console for noise in NOISE), console


def test_a_pass_prints_the_sandbox_line_too(gated, tmp_path, h):
    billing = "shop/billing.py"
    text = (gated / billing).read_text()
    patch = tmp_path / "p.diff"
    patch.write_text(h.make_patch(gated, {billing: text.replace("Clamp a discount", "Clamp any discount")}, tmp_path))
    done = h.gate(*h.run_args(gated, patch))
    verdict = json.loads((gated.parent / "verdict.json").read_text())
    assert done.returncode == 0 and verdict["failures"] == []
    assert done.stdout.splitlines()[1] == f"  sandbox: {verdict['sandbox']}" and "sandbox process" in verdict["sandbox"]
