"""The compatibility bar on real code: iso8601's own suite (bench/vendor/iso8601, MIT, 47 tests with Hypothesis
properties over datetimes and time zones) is the oracle. The unpatched base and an honest refactor pass through
the sandbox with exactly the tests that pass under plain pytest."""

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "gate_compat.py"


def _bench():
    spec = importlib.util.spec_from_file_location("gate_compat", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_real_packages_own_suite_passes_through_the_sandbox_as_under_plain_pytest():
    rows = _bench().compare("iso8601", seed=1, extra=[])
    assert rows["plain"] == {"pass": 47}
    for label in ("base", "refactor"):
        assert rows[label]["verdict"] == "PASS", rows[label]["reasons"]
        assert rows[label]["counts"] == rows["plain"] and rows[label]["differ"] == [], rows[label]
