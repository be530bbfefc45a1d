"""Issue 20: drafter's own commands on hostile run folders, locks, caches and configs. Each test shows the bad
input, the one-line message naming the file and key, the exit code, and the good input beside it that works."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from drafter.cache import CacheKey, ReplyCache
from drafter.cli import app
from drafter.data import Prompt, Reply, TokenUsage
from drafter.promote import LOCK_NAME

KEPT = "shop.billing:apply_tax::zero_rate_is_identity"
DEEP = "[" * 10_000 + "]" * 10_000
runner = CliRunner()


def drafter(*args: str):
    result = runner.invoke(app, [str(a) for a in args])
    assert "Traceback" not in result.output, result.output
    return result


def copy_run(billing_run, tmp_path: Path, name: str = "20260101-000000") -> Path:
    run_dir = tmp_path / "ws" / "runs" / name
    shutil.copytree(billing_run.run_dir, run_dir)
    return run_dir


def edit_report(run_dir: Path, edit) -> None:
    report = json.loads((run_dir / "report.json").read_text())
    edit(report)
    (run_dir / "report.json").write_text(json.dumps(report))


def one_line(output: str) -> str:
    return " ".join(output.split())  # rich wraps long lines


def test_promote_bad_destinations_locks_and_reports_exit_2_naming_them(billing_run, tmp_path):
    good = drafter("promote", KEPT, "--run", billing_run.run_dir, "--into", tmp_path / "props")
    assert good.exit_code == 0 and (tmp_path / "props" / LOCK_NAME).is_file()

    (tmp_path / "notes.txt").write_text("mine\n")
    under_file = drafter("promote", KEPT, "--run", billing_run.run_dir, "--into", tmp_path / "notes.txt" / "props")
    assert under_file.exit_code == 2 and "notes.txt is a file, not a folder" in one_line(under_file.output)

    in_the_way = tmp_path / "props2" / "test_shop_billing_apply_tax__zero_rate_is_identity.py"
    in_the_way.mkdir(parents=True)
    folder = drafter("promote", KEPT, "--run", billing_run.run_dir, "--into", tmp_path / "props2")
    assert folder.exit_code == 2 and "exists and is not a file" in one_line(folder.output) and in_the_way.is_dir()

    deep = tmp_path / "props3"
    deep.mkdir()
    (deep / LOCK_NAME).write_text(DEEP)
    nested = drafter("promote", KEPT, "--run", billing_run.run_dir, "--into", deep)
    assert nested.exit_code == 2 and LOCK_NAME in nested.output and "nested deeper than 64" in one_line(nested.output)

    run_dir = copy_run(billing_run, tmp_path)
    edit_report(run_dir, lambda r: r.update(candidates=[5]))
    shaped = drafter("promote", KEPT, "--run", run_dir, "--into", tmp_path / "props4")
    assert shaped.exit_code == 2 and "key 'candidates[0]' should be an object, not a whole number (5)" in one_line(shaped.output)
    assert not (tmp_path / "props4").exists()


def test_a_candidate_name_or_file_leaving_its_folder_is_refused_and_the_good_one_beside_it_promoted(billing_run, tmp_path):
    run_dir = copy_run(billing_run, tmp_path)
    kept = [c for c in json.loads((run_dir / "report.json").read_text())["candidates"] if c["status"] == "kept"]
    escaping, reading, good = kept[0]["id"], kept[1]["id"], kept[2]["id"]

    def poison(report):
        for c in report["candidates"]:
            if c["id"] == escaping:
                c["name"] = "x/../../../escape"
            if c["id"] == reading:
                c["file"] = "../../../../etc/passwd"
    edit_report(run_dir, poison)
    into = tmp_path / "deep" / "props"
    result = drafter("promote", escaping, reading, good, "--run", run_dir, "--into", into)
    text = one_line(result.output)
    assert result.exit_code == 2
    assert f"refused: {escaping}: its file name" in text and "is not a name inside" in text
    assert f"refused: {reading}: its kept file '../../../../etc/passwd' is not a name inside" in text
    assert not list(tmp_path.rglob("escape*")) and not (tmp_path / "escape.py").exists()
    assert sorted(p.name for p in into.iterdir()) == sorted([LOCK_NAME, json.loads(
        (into / LOCK_NAME).read_text())["files"].popitem()[0]])  # the good one only
    # The HTML view would show the file a report names: a report naming a file outside its run is refused.
    html = drafter("report", run_dir, "--format", "html")
    assert html.exit_code == 2 and "etc/passwd" in html.output and "root:" not in html.output


@pytest.mark.parametrize("fmt", ["md", "json", "html"])
def test_report_of_a_wrong_shaped_or_too_deep_report_json_exits_2_naming_file_and_key(billing_run, tmp_path, fmt):
    run_dir = copy_run(billing_run, tmp_path)
    assert drafter("report", run_dir, "--format", fmt).exit_code == 0
    edit_report(run_dir, lambda r: r["summary"]["mutants"].pop("killed"))
    missing = drafter("report", run_dir, "--format", fmt)
    assert missing.exit_code == 2 and "report.json: key 'summary.mutants.killed' is missing" in one_line(missing.output)
    edit_report(run_dir, lambda r: r["candidates"][0].update(kills=5))
    typed = drafter("report", run_dir, "--format", fmt)
    assert typed.exit_code == 2 and "key 'candidates[0].kills' should be a list of strings" in one_line(typed.output)
    (run_dir / "report.json").write_text(DEEP)
    deep = drafter("report", run_dir, "--format", fmt)
    assert deep.exit_code == 2 and "nested deeper than 64" in one_line(deep.output)


def test_refresh_with_a_baseline_run_json_that_is_a_list_exits_2_naming_it(billing_run, tmp_path):
    run_dir = copy_run(billing_run, tmp_path)
    (run_dir / "run.json").write_text("[]")
    args = ("refresh", billing_run.report.source["path"], "--workspace", tmp_path / "ws", "--select", "shop.billing:*",
            "--model", "heuristic")
    bad = drafter(*args)
    assert bad.exit_code == 2 and "run.json: should be an object, not a list" in one_line(bad.output)
    shutil.rmtree(run_dir)  # the good workspace beside it: a first refresh drafts everything
    good = drafter(*args, "--max-examples", "5", "--seeds", "1", "--rounds", "1", "--max-calls", "50",
                   "--max-tokens", "100000", "--jobs", "1")
    assert good.exit_code == 1, good.output  # REFRESHED: a new run


def test_a_bad_reply_cache_entry_is_ignored_with_a_warning_naming_file_and_key(tmp_path):
    key = CacheKey("openai:m", "http://x", "m", "t1", 0.2)
    prompt = Prompt("pkg.mod:f", "system", "user")
    cache = ReplyCache(tmp_path / "replies", key)
    cache.put(prompt, Reply("pkg.mod:f", "text", usage=TokenUsage(1, 2, 3), model="m"))
    assert cache.get(prompt).usage == TokenUsage(1, 2, 3) and not cache.warnings  # the good entry
    entry = next((tmp_path / "replies").rglob("*.json"))
    entry.write_text(json.dumps({"text": "t", "usage": {"prompt_tokens": "many"}}))
    assert cache.get(prompt) is None
    assert "key 'usage.prompt_tokens' should be a whole number" in cache.warnings[-1] and str(entry) in cache.warnings[-1]
    entry.write_text(DEEP)
    assert cache.get(prompt) is None and "nested deeper than 64" in cache.warnings[-1]



def test_a_bad_workspace_in_the_config_file_is_found_even_when_the_option_overrides_it(tmp_path, monkeypatch):
    from drafter.config import load_settings
    from drafter.errors import ConfigError

    (tmp_path / "drafter.toml").write_text("workspace = 5\n")
    with pytest.raises(ConfigError, match="drafter.toml: key 'workspace' has a bad value 5"):
        load_settings(tmp_path, workspace=tmp_path / "ws")
    (tmp_path / "drafter.toml").write_text('workspace = "elsewhere"\n')
    assert load_settings(tmp_path, workspace=tmp_path / "ws").workspace == tmp_path / "ws"
    assert load_settings(tmp_path).workspace == tmp_path / "elsewhere"
