"""The whole pipeline on examples/awkward: free-named inputs, round trips, in-place and loop properties are kept."""

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from drafter.cli import app

AWKWARD = Path(__file__).resolve().parents[2] / "examples" / "awkward"
VACUOUS = "awkward.tools:count_runs::long_lists_have_at_most_one_run_per_item"


def expected() -> dict:
    return {k: v for k, v in json.loads((AWKWARD / "replies.expected.json").read_text()).items() if not k.startswith("#")}


def run_cli(replies: Path, workspace: Path):
    args = ["run", str(AWKWARD), "--model", f"replay:{replies}", "--workspace", str(workspace),
            "--max-examples", "50", "--jobs", str(min(2, os.cpu_count() or 1))]
    return CliRunner().invoke(app, args)


@pytest.fixture(scope="module")
def without_vacuous(tmp_path_factory):
    """The replay file minus the vacuous candidate, whose verdict needs the engine of issue 7 item 4."""
    tmp = tmp_path_factory.mktemp("awkward")
    replies = json.loads((AWKWARD / "replies.json").read_text())
    target, name = VACUOUS.split("::")
    replies[target]["candidates"] = [c for c in replies[target]["candidates"] if c["name"] != name]
    (tmp / "replies.json").write_text(json.dumps(replies))
    result = run_cli(tmp / "replies.json", tmp / "ws")
    return result, tmp / "ws" / "latest"


def test_every_candidate_lands_where_expected_and_the_run_exits_0(without_vacuous):
    result, run_dir = without_vacuous
    assert result.exit_code == 0, result.output
    report = json.loads((run_dir / "report.json").read_text())
    actual = {c["id"]: [c["stage"], c["reason"]] for c in report["candidates"]}
    assert actual == {k: v for k, v in expected().items() if k != VACUOUS}
    kept = [k for k, (stage, _) in actual.items() if stage == "kept"]
    assert len(kept) >= 12 and any(k.startswith("awkward.tools:format::") for k in kept)


def test_candidates_json_is_rewritten_with_final_statuses(without_vacuous):
    _, run_dir = without_vacuous
    data = json.loads((run_dir / "candidates.json").read_text())
    assert data["final"] is True and data["prompts"].startswith("2+")
    rows = {row["id"]: (row["status"], row["stage"], row["reason"]) for row in data["candidates"]}
    for candidate_id, (stage, reason) in expected().items():
        if candidate_id == VACUOUS:
            continue
        status = "kept" if stage == "kept" else "rejected"
        assert rows[candidate_id] == (status, stage, reason), candidate_id
    report = json.loads((run_dir / "report.json").read_text())
    assert report["settings"]["prompts"] == data["prompts"]


def test_a_builtin_named_target_is_imported_and_called(without_vacuous):
    _, run_dir = without_vacuous
    staged = (run_dir / "staged" / "awkward.tools.format" / "test_commas_every_three_digits.py").read_text()
    assert "from awkward.tools import format" in staged


def test_the_vacuous_candidate_is_rejected_and_the_run_goes_on(tmp_path):
    result = run_cli(AWKWARD / "replies.json", tmp_path / "ws")
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "ws" / "latest" / "report.json").read_text())
    actual = {c["id"]: [c["stage"], c["reason"]] for c in report["candidates"]}
    assert actual == expected()
