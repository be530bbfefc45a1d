"""`oracle-gate init` makes a working oracle: promoted drafts land in it, a fresh gate run uses it and verifies the
drafted lock."""

import ast
import difflib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from drafter.promote import LOCK_NAME, promote
from gate.check import GateError
from gate.init import init_oracle
from gate.verdict import run_gate

REPO = Path(__file__).resolve().parents[2]
SHOP = REPO / "examples" / "shop"


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(SHOP / "shop", repo / "shop")
    return repo


def _patch(repo: Path, tmp_path: Path, rel: str, old: str, new: str) -> Path:
    before = (repo / rel).read_text()
    assert old in before
    diff = difflib.unified_diff(before.splitlines(True), before.replace(old, new).splitlines(True),
                                f"a/{rel}", f"b/{rel}")
    path = tmp_path / "candidate.diff"
    path.write_text("".join(diff))
    return path


def _gate(repo: Path, patch: Path):
    oracle = repo / "oracle"
    return run_gate(repo, patch, oracle / "path_deny.txt", oracle / "fixtures" / "manifest.json",
                    oracle / "ledger.json", timeout=300, seed=1)


def _check(verdict, name):
    return next(c for c in verdict.checks if c.name == name)


def test_init_writes_a_complete_oracle_and_never_overwrites(tmp_path):
    repo = _repo(tmp_path)
    (repo / "tests").mkdir()
    check = init_oracle(repo, policy="fail_closed_until_reproducer")
    assert check.ok
    for rel in ("pytest.ini", "oracle/path_deny.txt", "oracle/properties/conftest.py", "oracle/fixtures/manifest.json",
                "oracle/ledger.json"):
        assert (repo / rel).is_file(), rel
    assert json.loads((repo / "oracle/fixtures/manifest.json").read_text()) == {"fixtures": [], "version": 1}
    assert json.loads((repo / "oracle/ledger.json").read_text())["policy"] == "fail_closed_until_reproducer"
    assert "testpaths = oracle/properties tests" in (repo / "pytest.ini").read_text()
    # The conftest needs only the standard library, pytest and Hypothesis: no drafter, no gate at test time.
    tree = ast.parse((repo / "oracle/properties/conftest.py").read_text())
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert imported == {"hashlib", "json", "pathlib", "pytest", "hypothesis"}

    before = (repo / "oracle/path_deny.txt").read_text()
    with pytest.raises(GateError, match="already exists"):
        init_oracle(repo)
    assert (repo / "oracle/path_deny.txt").read_text() == before


def test_init_refuses_a_repository_whose_pytest_config_it_would_override(tmp_path):
    repo = _repo(tmp_path)
    (repo / "pyproject.toml").write_text("[tool.pytest.ini_options]\ntestpaths = ['tests']\n")
    with pytest.raises(GateError, match="pyproject.toml already configures pytest"):
        init_oracle(repo)
    assert not (repo / "oracle").exists() and not (repo / "pytest.ini").exists()
    with pytest.raises(GateError, match="unknown policy"):
        init_oracle(_repo(tmp_path / "other"), policy="never")
    assert not (tmp_path / "other" / "repo" / "oracle").exists()


def test_the_cli_initialises_once_then_exits_3(tmp_path):
    repo = _repo(tmp_path)
    first = subprocess.run([sys.executable, "-m", "gate.cli", "init", "--repo", str(repo)], capture_output=True, text=True)
    second = subprocess.run([sys.executable, "-m", "gate.cli", "init", "--repo", str(repo)], capture_output=True, text=True)
    assert first.returncode == 0 and "init: PASS" in first.stdout
    assert second.returncode == 3 and "never overwrites" in second.stderr


def test_a_fresh_gate_run_uses_the_initialised_oracle_with_promoted_drafts(billing_run, tmp_path):
    repo = _repo(tmp_path)
    assert init_oracle(repo).ok
    promoted = promote(billing_run.run_dir, [], repo / "oracle" / "properties", all_kept=True)
    assert len(promoted.promoted) >= 3

    honest = _gate(repo, _patch(repo, tmp_path, "shop/billing.py", "Clamp a discount", "Clamp any discount"))
    assert honest.may_merge, honest.line()
    assert f"{len(promoted.promoted)} oracle properties" in _check(honest, "properties").reasons[0]
    assert _check(honest, "drafted-lock").ok

    broken = _gate(repo, _patch(repo, tmp_path, "shop/billing.py", ").quantize(CENT, rounding=ROUND_HALF_EVEN)", ")"))
    assert not broken.may_merge and broken.blocked_at == "properties"
    assert any("apply_tax" in r for r in _check(broken, "properties").reasons)


def test_the_gate_blocks_a_promoted_file_that_no_longer_matches_its_lock(billing_run, tmp_path):
    repo = _repo(tmp_path)
    init_oracle(repo)
    promote(billing_run.run_dir, [], repo / "oracle" / "properties", all_kept=True)
    edited = sorted((repo / "oracle" / "properties").glob("test_*.py"))[0]
    edited.write_text(edited.read_text().replace("assert ", "assert True or ", 1))  # a weakened property
    verdict = _gate(repo, _patch(repo, tmp_path, "shop/billing.py", "Clamp a discount", "Clamp any discount"))
    assert not verdict.may_merge and verdict.blocked_at == "drafted-lock"
    assert any(r.startswith("changed: ") and edited.name in r for r in _check(verdict, "drafted-lock").reasons)
    (repo / "oracle" / "properties" / LOCK_NAME).unlink()
    edited.unlink()
    lockless = _gate(repo, _patch(repo, tmp_path, "shop/billing.py", "Clamp a discount", "Clamp any discount"))
    assert lockless.may_merge, lockless.line()  # hand-managed properties without a lock are not checked


def test_seal_drafted_cli_passes_on_promoted_files_and_blocks_an_edited_one(billing_run, tmp_path):
    repo = _repo(tmp_path)
    init_oracle(repo)
    promote(billing_run.run_dir, [], repo / "oracle" / "properties", all_kept=True)
    command = [sys.executable, "-m", "gate.cli", "seal", "drafted", str(repo / "oracle")]
    assert subprocess.run(command, capture_output=True, text=True).returncode == 0
    edited = sorted((repo / "oracle" / "properties").glob("test_*.py"))[-1]
    edited.write_text(edited.read_text() + "\n# edited\n")
    blocked = subprocess.run(command, capture_output=True, text=True)
    assert blocked.returncode == 2 and f"changed: {edited}" in blocked.stdout
