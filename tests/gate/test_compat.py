"""The compatibility bar on real code: a package's own suite is the oracle. The unpatched base and an honest
refactor pass through the sandbox with exactly the tests that pass under plain pytest: iso8601
(bench/vendor/iso8601, MIT, 47 tests with Hypothesis properties over datetimes and time zones) and webcolors
(bench/vendor/webcolors, BSD-3-Clause, 471 tests, untuned: vendored as PyPI ships it)."""

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "gate_compat.py"


def _bench():
    spec = importlib.util.spec_from_file_location("gate_compat", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("package", "tests"), [("iso8601", 47), ("webcolors", 471)])
def test_a_real_packages_own_suite_passes_through_the_sandbox_as_under_plain_pytest(package, tests):
    rows = _bench().compare(package, seed=1, extra=[])
    assert rows["plain"] == {"pass": tests}
    for label in ("base", "refactor"):
        assert rows[label]["verdict"] == "PASS", rows[label]["reasons"]
        assert rows[label]["counts"] == rows["plain"] and rows[label]["differ"] == [], rows[label]
