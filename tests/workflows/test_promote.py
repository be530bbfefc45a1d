"""`drafter promote`: only kept candidates, unique stable names, provenance header, no per-file settings, a lock."""

import ast
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from drafter.errors import ConfigError
from drafter.promote import LOCK_NAME, promote, promoted_name

KEPT = "shop.billing:apply_tax::zero_rate_is_identity"
REJECTED = "shop.billing:apply_tax::known_invoice_total"  # lint: literal_expected
REPO = Path(__file__).resolve().parents[2]


def _report(run_dir: Path) -> dict:
    return json.loads((run_dir / "report.json").read_text())


def test_a_rejected_candidate_is_refused_and_the_kept_one_beside_it_is_promoted(billing_run, tmp_path):
    result = promote(billing_run.run_dir, [REJECTED, KEPT, "shop.billing:nope::missing"], tmp_path / "props")
    assert [p.candidate_id for p in result.promoted] == [KEPT]
    assert len(result.refused) == 2
    assert result.refused[0].startswith(f"{REJECTED}: not kept (rejected at lint: literal_expected)")
    assert "not a candidate of run" in result.refused[1]
    assert sorted(p.name for p in (tmp_path / "props").iterdir()) == [
        LOCK_NAME, "test_shop_billing_apply_tax__zero_rate_is_identity.py"]


def test_an_incomplete_run_cannot_be_promoted_from(billing_run, tmp_path):
    partial = tmp_path / "20260101-000000.incomplete"
    shutil.copytree(billing_run.run_dir, partial)
    with pytest.raises(ConfigError, match="not a complete run folder"):
        promote(partial, [KEPT], tmp_path / "props")
    assert not (tmp_path / "props").exists()


def test_names_are_unique_per_target_and_stable():
    assert promoted_name("shop.billing:apply_tax", "same_inputs_same_result") == \
        "test_shop_billing_apply_tax__same_inputs_same_result.py"
    same_name = {promoted_name(t, "same_inputs_same_result")
                 for t in ("shop.billing:apply_tax", "shop.billing:split_evenly", "shop.envelope:Envelope.to_dict")}
    assert len(same_name) == 3 and "test_shop_envelope_Envelope_to_dict__same_inputs_same_result.py" in same_name


def test_all_kept_writes_every_kept_file_with_a_provenance_header_and_no_settings(billing_run, tmp_path):
    into = tmp_path / "props"
    result = promote(billing_run.run_dir, [], into, all_kept=True, today="2026-01-02")
    kept = [c for c in _report(billing_run.run_dir)["candidates"] if c["status"] == "kept"]
    assert len(kept) >= 3 and len(result.promoted) == len(kept) and not result.refused
    fingerprints = {t["id"]: t["fingerprint"] for t in _report(billing_run.run_dir)["targets"]}
    for item, candidate in zip(result.promoted, kept):
        text = (into / item.file).read_text()
        tree = ast.parse(text)
        header = ast.get_docstring(tree)
        assert "Draft property" not in text and "Not an oracle" not in text
        assert billing_run.run_dir.name in header and candidate["id"] in header and "2026-01-02" in header
        assert fingerprints[candidate["target"]] in header
        assert "@settings" not in text and "settings" not in text.replace(LOCK_NAME, "")
        original = (billing_run.run_dir / candidate["file"]).read_text()
        assert "@settings(max_examples=30" in original  # what was dropped
        assert ast.dump(tree.body[-1].body[-1]) == ast.dump(ast.parse(original).body[-1].body[-1])  # same body
    compiled = subprocess.run([sys.executable, "-m", "py_compile", *map(str, into.glob("test_*.py"))])
    assert compiled.returncode == 0


def test_keep_settings_keeps_the_decorator(billing_run, tmp_path):
    promote(billing_run.run_dir, [KEPT], tmp_path / "props", keep_settings=True)
    text = (tmp_path / "props" / promoted_name("shop.billing:apply_tax", "zero_rate_is_identity")).read_text()
    assert "@settings(max_examples=30, deadline=None, database=None)" in text
    assert "from hypothesis import given, settings, strategies as st" in text


def test_a_different_file_is_never_overwritten_and_the_same_promotion_is_a_no_op(billing_run, tmp_path):
    into = tmp_path / "props"
    name = promoted_name("shop.billing:apply_tax", "zero_rate_is_identity")
    first = promote(billing_run.run_dir, [KEPT], into, today="2026-01-02")
    assert [p.status for p in first.promoted] == ["written"]
    lock_before = (into / LOCK_NAME).read_bytes()
    again = promote(billing_run.run_dir, [KEPT], into, today="2026-01-03")  # another day, same candidate and run
    assert [p.status for p in again.promoted] == ["unchanged"] and not again.refused
    assert (into / LOCK_NAME).read_bytes() == lock_before

    (into / name).write_text("def test_hand_written():\n    assert True\n")
    refused = promote(billing_run.run_dir, [KEPT], into)
    assert not refused.promoted and "exists and is a different file; not overwritten" in refused.refused[0]
    assert (into / name).read_text() == "def test_hand_written():\n    assert True\n"


def test_the_lock_records_sha_run_target_and_fingerprint_sorted_and_stable(billing_run, tmp_path):
    kept = [c["id"] for c in _report(billing_run.run_dir)["candidates"] if c["status"] == "kept"]
    promote(billing_run.run_dir, kept, tmp_path / "a", today="2026-01-02")
    promote(billing_run.run_dir, kept[::-1], tmp_path / "b", today="2026-01-02")
    promote(billing_run.run_dir, kept[:1], tmp_path / "c", today="2026-01-02")
    promote(billing_run.run_dir, kept[1:], tmp_path / "c", today="2026-01-02")  # appended
    lock_bytes = (tmp_path / "a" / LOCK_NAME).read_bytes()
    assert lock_bytes == (tmp_path / "b" / LOCK_NAME).read_bytes() == (tmp_path / "c" / LOCK_NAME).read_bytes()
    lock = json.loads(lock_bytes)
    assert lock["version"] == 1 and list(lock["files"]) == sorted(lock["files"]) and len(lock["files"]) == len(kept)
    fingerprints = {t["id"]: t["fingerprint"] for t in _report(billing_run.run_dir)["targets"]}
    for name, entry in lock["files"].items():
        assert entry["sha256"] == hashlib.sha256((tmp_path / "a" / name).read_bytes()).hexdigest()
        assert entry["run"] == billing_run.run_dir.name and entry["fingerprint"] == fingerprints[entry["target"]]
        assert name == promoted_name(entry["target"], entry["candidate"].split("::")[1])


def test_the_cli_exits_2_on_a_refusal_and_names_it(billing_run, tmp_path):
    done = subprocess.run([sys.executable, "-m", "drafter.cli", "promote", REJECTED, KEPT, "--run",
                           str(billing_run.run_dir), "--into", str(tmp_path / "props")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert f"refused: {REJECTED}: not kept" in done.stderr and "written:" in done.stdout
    ok = subprocess.run([sys.executable, "-m", "drafter.cli", "promote", "--all-kept", str(billing_run.run_dir),
                         "--into", str(tmp_path / "all")], capture_output=True, text=True, cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
