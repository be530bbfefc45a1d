"""`oracle-gate init`: a working oracle folder for a repository, written once, never over anything.

It writes the deny list, the oracle-owned root pytest configuration, `oracle/properties/` with a conftest that
needs only pytest and Hypothesis at test time (it checks sealed fixtures itself), an empty sealed manifest and a
flake ledger with the chosen policy. Every path is checked before the first is written.
"""

from pathlib import Path
from typing import Any

from gate.check import Check, GateError, stable_json, write_atomic
from gate.isolate import ROOT_CONFIG, pytest_ini
from gate.ledger import init_ledger, new_ledger
from gate.seal import MANIFEST_VERSION

DENY_LIST = """\
# Paths a candidate patch may never touch (gitignore syntax). CI reads this file from the base revision.
{oracle}/
**/test_*.py
**/*_test.py
**/conftest.py
**/__snapshots__/
pytest.ini
tox.ini
setup.cfg
**/sitecustomize.py
**/usercustomize.py
"""

PYTEST_INI = """\
# Owned by the oracle (written by oracle-gate init): pytest configuration is part of the oracle surface.
[pytest]
testpaths = {testpaths}
pythonpath = {pythonpath}
addopts = -p no:cacheprovider --strict-markers
xfail_strict = true
markers =
    fixture_invariant: checks a sealed fixture's recorded verdict
"""

CONFTEST = '''\
"""Oracle-owned pytest wiring (written by oracle-gate init). Needs only pytest and Hypothesis at test time.

The "oracle" Hypothesis profile governs every property here: promoted drafts carry no @settings of their own.
`sealed(ID)` returns a sealed fixture's bytes only while they match the sha256 in fixtures/manifest.json.
"""

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("oracle", max_examples=100, deadline=None, database=None)
settings.load_profile("oracle")

MANIFEST = Path(__file__).resolve().parents[1] / "fixtures" / "manifest.json"


def _rows() -> dict:
    data = json.loads(MANIFEST.read_text(encoding="utf-8"))
    return {row["id"]: row for row in data["fixtures"]}


@pytest.fixture(scope="session")
def sealed():
    """sealed(ID) -> bytes of that fixture, or a failure when its bytes no longer match the seal."""
    rows = _rows()

    def read(fixture_id: str) -> bytes:
        row = rows[fixture_id]
        data = (MANIFEST.parent / row["path"]).read_bytes()
        if hashlib.sha256(data).hexdigest() != row["sha256"]:
            pytest.fail(f"sealed fixture {fixture_id!r} does not match its sha256 seal")
        return data

    return read
'''

REPRODUCERS_README = """\
Human-owned reproducers for flaky tests: `oracle-gate flake admit --reproducer oracle/reproducers/FILE` records
the sha256 of the file that reproduces the failure.
"""


def _has_pytest_config(repo: Path) -> str | None:
    """The root file that already configures pytest, if any (writing pytest.ini beside it would override it)."""
    for name in ROOT_CONFIG:
        if name != "conftest.py" and (repo / name).is_file() and (name.endswith("pytest.ini") or pytest_ini(repo)):
            return name
    return None


def init_oracle(repo: Path, oracle: str = "oracle", policy: str = "hysteresis",
                params: dict[str, Any] | None = None) -> Check:
    repo = Path(repo)
    if not repo.is_dir():
        raise GateError(f"--repo {repo} is not a folder")
    root = repo / oracle
    if root.exists():
        raise GateError(f"{root} already exists; oracle-gate init never overwrites an oracle (remove it first)")
    existing_config = _has_pytest_config(repo)
    if existing_config:
        raise GateError(f"{repo / existing_config} already configures pytest; add `testpaths = {oracle}/properties` "
                        "to it yourself, or remove it so init can write an oracle-owned pytest.ini")
    new_ledger(root / "ledger.json", policy, params or {})  # a bad policy or parameter fails before any write
    testpaths = [f"{oracle}/properties"] + (["tests"] if (repo / "tests").is_dir() else [])
    pythonpath = "src" if (repo / "src").is_dir() else "."
    files = {
        repo / "pytest.ini": PYTEST_INI.format(testpaths=" ".join(testpaths), pythonpath=pythonpath),
        root / "path_deny.txt": DENY_LIST.format(oracle=oracle),
        root / "properties" / "conftest.py": CONFTEST,
        root / "fixtures" / "manifest.json": stable_json({"version": MANIFEST_VERSION, "fixtures": []}),
        root / "reproducers" / "README.md": REPRODUCERS_README,
    }
    for path, text in files.items():
        write_atomic(path, text)
    ledger = init_ledger(root / "ledger.json", policy, params or {})
    written = [p.relative_to(repo).as_posix() for p in files] + [f"{oracle}/ledger.json"]
    return Check("init", True, (f"created {', '.join(written)} (ledger policy {ledger.policy})",),
                 {"written": written, "policy": ledger.policy, "params": ledger.params})
