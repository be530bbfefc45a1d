"""The CLI is a thin layer: help explains itself, user mistakes exit 2 with a message naming the culprit."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from drafter import __version__
from drafter.cli import app

SHOP = Path(__file__).resolve().parents[2] / "examples" / "shop"
runner = CliRunner()


@pytest.mark.parametrize("command", [[], ["extract"], ["draft"], ["run"]])
def test_help_explains_each_command(command):
    result = runner.invoke(app, [*command, "--help"])
    assert result.exit_code == 0
    assert "Usage" in result.output
    if command:
        assert "SRC" in result.output


def test_console_entry_runs_as_a_module():
    result = subprocess.run([sys.executable, "-m", "drafter.cli", "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "draft" in result.stdout and "run" in result.stdout


def test_missing_src_is_named(tmp_path):
    result = runner.invoke(app, ["draft", str(tmp_path / "nope"), "--workspace", str(tmp_path / "ws")])
    assert result.exit_code == 2
    assert "does not exist" in result.output and "nope" in result.output


def test_bad_model_spec_is_named_and_leaves_no_run_folder(tmp_path):
    result = runner.invoke(app, ["draft", str(SHOP), "--model", "gpt-9", "--workspace", str(tmp_path / "ws")])
    assert result.exit_code == 2
    assert "gpt-9" in result.output
    assert not (tmp_path / "ws" / "runs").exists()


def test_workspace_inside_src_is_refused(tmp_path):
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "__init__.py").write_text("def f(x: int) -> int:\n    return x\n")
    result = runner.invoke(app, ["draft", str(src), "--workspace", str(src / "workspace")])
    assert result.exit_code == 2
    assert "inside SRC" in result.output
    assert not (src / "workspace").exists()


def test_extract_prints_targets_as_json(tmp_path):
    result = runner.invoke(app, ["extract", str(SHOP), "--select", "shop.billing:*"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    ids = [t["id"] for t in data["targets"]]
    assert "shop.billing:apply_tax" in ids and all(i.startswith("shop.billing:") for i in ids)


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"drafter {__version__}"


def test_user_data_in_messages_prints_as_written(tmp_path):
    """Brackets and :emoji: codes in a path are data, not rich markup."""
    odd = tmp_path / "[bold]replies[/bold]:smile:.json"
    result = subprocess.run([sys.executable, "-c", "from drafter.cli import app; app()", "run", str(SHOP),
                             "--model", f"replay:{odd}", "--workspace", str(tmp_path / "ws")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert f"replay file {odd}: cannot be read (no such file)" in result.stderr
