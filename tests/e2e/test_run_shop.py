"""The whole pipeline on examples/shop with the replay file: every candidate ends where replies.expected.json says."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from drafter.data import MUTANT_STATUSES
from drafter.stageclock import recorded_stages

SHOP = Path(__file__).resolve().parents[2] / "examples" / "shop"


def test_every_candidate_ends_at_its_expected_stage_and_reason(replay_run):
    expected = json.loads((SHOP / "replies.expected.json").read_text())
    actual = {c.id: [c.stage, c.reason] for c in replay_run.report.candidates}
    assert actual == {k: list(v) for k, v in expected.items() if not k.startswith("#")}  # "#notes" say why


def test_kept_candidates_kill_by_their_own_assertion_and_are_copied(replay_run):
    kept = [c for c in replay_run.report.candidates if c.status == "kept"]
    assert kept, "the replay file has strong candidates; none was kept"
    for c in kept:
        assert c.assertion_kills, c.id
        assert c.file.startswith("kept/")
        staged_file = replay_run.run_dir / c.file.replace("kept/", "staged/", 1)
        assert (replay_run.run_dir / c.file).read_text() == staged_file.read_text()


def test_rejected_unsound_candidate_records_the_counterexample(replay_run):
    unsound = [c for c in replay_run.report.candidates if c.reason == "unsound"]
    assert unsound
    assert all(c.counterexample for c in unsound)


def test_report_files_follow_the_contract(replay_run):
    data = json.loads((replay_run.run_dir / "report.json").read_text())
    assert {"run_id", "source", "model", "targets", "candidates", "mutants", "summary"} <= set(data)
    assert data["source"]["tree_hash"] and data["model"].startswith("replay:")
    statuses = {m["status"] for m in data["mutants"]}
    assert statuses <= set(MUTANT_STATUSES) and "killed" in statuses
    assert any(m["operator"] == "known_bad" for m in data["mutants"])
    markdown = (replay_run.run_dir / "report.md").read_text()
    assert "## Rejections by reason" in markdown and "literal_expected" in markdown
    survivors = [m for m in data["mutants"] if m["status"] == "survived"]
    if survivors:
        assert survivors[0]["diff"].splitlines()[0] in markdown


def test_source_is_unchanged_by_the_run(replay_run, shop_digest_before, tree_digest):
    assert tree_digest(SHOP) == shop_digest_before
    assert not list(SHOP.rglob("__pycache__"))


def test_workspace_latest_points_at_the_run(replay_run):
    latest = replay_run.run_dir.parent.parent / "latest"
    assert latest.resolve() == replay_run.run_dir.resolve()


def _run_kept(kept_dir: Path, source: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(source), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(kept_dir)],
        capture_output=True, text=True, env=env, cwd=kept_dir, timeout=300,
    )


def test_kept_candidates_catch_a_deliberately_broken_implementation(replay_run, tmp_path):
    kept_dir = replay_run.run_dir / "kept"
    clean = _run_kept(kept_dir, SHOP)
    assert clean.returncode == 0, clean.stdout[-2000:]

    broken = tmp_path / "broken"
    shutil.copytree(SHOP, broken, ignore=shutil.ignore_patterns("__pycache__"))
    billing = broken / "shop" / "billing.py"
    billing.write_text(billing.read_text().replace(".quantize(CENT, rounding=ROUND_HALF_EVEN)", ""))
    envelope = broken / "shop" / "envelope.py"
    envelope.write_text(envelope.read_text().replace("return bool(self.fields)", "return True"))
    result = _run_kept(kept_dir, broken)
    assert result.returncode == 1, result.stdout[-2000:]
    assert "test_" in result.stdout and "failed" in result.stdout


def test_an_operator_mutant_equal_to_a_known_bad_patch_is_dropped_as_duplicate(replay_run):
    ids = {m.id for m in replay_run.report.mutants}
    assert "known_bad:apply_tax_unrounded.diff@shop.billing:apply_tax" in ids
    # drop_call on `.quantize(...)` yields the same tree as the owner's patch, so only the patch is run
    dropped = [m for m in replay_run.outcome.mutants if m.operator == "drop_call" and m.target == "shop.billing:apply_tax"
               and ".quantize(" not in m.source.split("def apply_tax", 1)[1].split("def ", 1)[0]]
    assert dropped == []
    assert replay_run.report.summary["mutants"]["dropped_duplicate"] >= 1


def test_every_stage_has_its_wall_and_cpu_in_the_run_folder(replay_run):
    stages = recorded_stages(replay_run.run_dir)  # run.json, read back as untrusted
    assert list(stages) == ["extract", "model", "parse+lint", "prepare", "render", "soundness", "mutants", "sabotage",
                            "keep", "triage", "report"]
    assert all(t["seconds"] >= 0 and t["cpu_seconds"] >= 0 for t in stages.values())
    summary = replay_run.report.summary  # report.json has every stage but its own writing
    assert summary["cpu_seconds"] == {name: t["cpu_seconds"] for name, t in stages.items() if name != "report"}
    assert summary["seconds"] == {name: t["seconds"] for name, t in stages.items() if name != "report"}
    # The kill matrix's runs happen in the workers' children: the stage counts their CPU, not only drafter's own.
    assert stages["sabotage"]["cpu_seconds"] >= replay_run.outcome.matrix.test_seconds > 0
    assert "| stage | wall seconds | CPU seconds |" in (replay_run.run_dir / "report.md").read_text()
