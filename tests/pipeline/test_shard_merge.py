"""--shard K/N and `drafter merge` on a vendored real package (inflection, MIT, with recorded replies): three
shards merge into the report one unsharded run writes; shards that do not belong together are refused by name."""

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from drafter.config import Settings
from drafter.errors import ConfigError
from drafter.extract import extract
from drafter.merge import MergeError, merge
from drafter.pipeline import run
from drafter.promote import promote
from drafter.refresh import NOTHING_CHANGED, refresh
from drafter.shard import Shard, parse_shard, partition, target_cost

REPO = Path(__file__).resolve().parents[2]
INFLECTION = REPO / "bench" / "vendor" / "inflection"
REPLIES = REPO / "bench" / "inflection_replies.json"


@pytest.mark.parametrize("text, problem", [("0/4", "K counts from 1"), ("5/4", "K counts from 1"),
                                           ("abc", "expected K/N"), ("1/0", "N must be at least 1"), ("", "expected K/N")])
def test_a_bad_shard_is_refused_with_what_is_wrong(text, problem):
    with pytest.raises(ConfigError, match=problem):
        parse_shard(text)


def test_a_good_shard_parses():
    assert parse_shard("2/4") == Shard(2, 4) and parse_shard(" 4/4 ") == Shard(4, 4)


def test_the_partition_covers_every_target_once_balanced_by_size_and_is_the_same_every_time():
    targets = extract(INFLECTION, (), ()).targets
    shards = partition(targets, 3)
    # The same parts whatever order the targets come in (each part is listed in the order given).
    assert [set(s) for s in partition(tuple(reversed(targets)), 3)] == [set(s) for s in shards]
    assert sorted(t for s in shards for t in s) == sorted(t.id for t in targets)
    costs = [sum(target_cost(t) for t in targets if t.id in s) for s in shards]
    biggest = max(target_cost(t) for t in targets)
    assert max(costs) - min(costs) <= biggest  # greedy by size: no shard is more than one target heavier
    # Not contiguous slices: each shard's targets are spread over the module's order.
    order = [t.id for t in targets]
    assert any(order.index(s[-1]) - order.index(s[0]) + 1 > len(s) for s in shards)


def settings_for(workspace: Path, **extra) -> Settings:
    return Settings(model=f"replay:{REPLIES}", workspace=workspace, max_examples=10, seeds=2, jobs=2, **extra)


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    workspace = tmp_path_factory.mktemp("shards")
    return workspace, [run(INFLECTION, settings_for(workspace), shard=Shard(k, 3)).run_dir for k in (1, 2, 3)]


@pytest.mark.slow
def test_three_merged_shards_write_the_report_of_one_unsharded_run(shards, tmp_path, stable_report):
    workspace, runs = shards
    whole = run(INFLECTION, settings_for(tmp_path / "whole"))
    merged, report = merge(runs, workspace)
    assert (workspace / "latest").resolve() == merged
    assert stable_report(merged / "report.json") == stable_report(whole.report_paths[0])
    assert report.summary["kept"] > 0 and report.summary["mutants"]["killed"] > 0
    shard_cpu = [json.loads((r / "report.json").read_text())["summary"]["cpu_seconds"] for r in runs]
    assert report.summary["cpu_seconds"]["soundness"] == pytest.approx(sum(c["soundness"] for c in shard_cpu), abs=0.01)
    parts = [json.loads((r / "report.json").read_text())["targets"] for r in runs]
    assert all(parts) and sum(len(p) for p in parts) == len(report.targets) == 12
    assert json.loads((merged / "merged.json").read_text())["n"] == 3
    for name in ("report.md", "report.html", "targets.json", "fingerprints.json", "candidates.json"):
        assert (merged / name).is_file(), name
    # Each shard asked only for its own targets.
    for run_dir in runs:
        asked = {row["target"] for row in json.loads((run_dir / "model_calls.json").read_text())}
        assert asked == set(json.loads((run_dir / "shard.json").read_text())["targets"])

    # A merged run is a run like any other: refresh takes it as its baseline, promote copies from it.
    result = refresh(INFLECTION, settings_for(workspace))
    assert result.exit_code == NOTHING_CHANGED and result.plan.baseline == merged
    promoted = promote(merged, (), tmp_path / "oracle" / "properties", all_kept=True)
    assert len(promoted.promoted) == report.summary["kept"] and not promoted.refused


@pytest.mark.slow
def test_shards_that_do_not_make_one_run_are_refused_by_name(shards, tmp_path):
    workspace, runs = shards
    with pytest.raises(MergeError, match="missing shard 2/3"):
        merge([runs[0], runs[2]], tmp_path / "out")
    with pytest.raises(MergeError, match="shard 1/3 given twice"):
        merge([runs[0], runs[0], runs[1], runs[2]], tmp_path / "out")

    incomplete = shutil.copytree(runs[1], tmp_path / "20990101-000000.incomplete")
    with pytest.raises(MergeError, match="incomplete run"):
        merge([runs[0], incomplete, runs[2]], tmp_path / "out")

    other_settings = shutil.copytree(runs[1], tmp_path / "other" / "runs" / runs[1].name)
    report = json.loads((other_settings / "report.json").read_text())
    report["settings"]["max_examples"] = 99
    (other_settings / "report.json").write_text(json.dumps(report))
    with pytest.raises(MergeError, match="different settings"):
        merge([runs[0], other_settings, runs[2]], tmp_path / "out")

    # A shard of another SRC tree: one changed line, a real run.
    changed_src = shutil.copytree(INFLECTION, tmp_path / "src")
    module = changed_src / "inflection" / "__init__.py"
    module.write_text(module.read_text() + "\n# changed\n")
    other_tree = run(changed_src, settings_for(tmp_path / "ws2", select=("inflection:ordinal",)), shard=Shard(1, 3))
    with pytest.raises(MergeError, match="different SRC trees"):
        merge([runs[0], other_tree.run_dir, runs[2]], tmp_path / "out")

    whole = json.loads((runs[0] / "run.json").read_text())
    assert whole["complete"] and whole["shard"] == "1/3"
    not_a_shard = shutil.copytree(runs[0], tmp_path / "plain")
    (not_a_shard / "shard.json").unlink()
    with pytest.raises(MergeError, match="not a shard"):
        merge([not_a_shard, runs[1], runs[2]], tmp_path / "out")
    # Nothing was written for the refused merges, and the good shards still merge.
    assert not (tmp_path / "out" / "latest").exists()
    assert merge(runs, tmp_path / "out")[1].summary["targets"] == 12


def test_shard_with_known_bad_is_refused(tmp_path):
    (tmp_path / "patches").mkdir()
    with pytest.raises(ConfigError, match="--shard with --known-bad"):
        run(INFLECTION, replace(settings_for(tmp_path / "ws"), known_bad=tmp_path / "patches"), shard=Shard(1, 2))
