"""The example GitHub Actions workflows parse, and every drafter / oracle-gate command in them exists with the
options it is given (a renamed option breaks this test, not a user's nightly job)."""

import shlex
from pathlib import Path

import pytest
import typer
import yaml

from drafter.cli import app as drafter_app
from gate.cli import app as gate_app

CI = Path(__file__).resolve().parents[2] / "examples" / "ci"
APPS = {"drafter": drafter_app, "oracle-gate": gate_app}


def _workflow(name: str) -> dict:
    return yaml.safe_load((CI / name).read_text())


def _commands(workflow: dict) -> list[list[str]]:
    """Every drafter / oracle-gate invocation in the workflow's run scripts, continuation lines joined."""
    found = []
    for job in workflow["jobs"].values():
        for step in job["steps"]:
            script = step.get("run", "").replace("\\\n", " ")
            for line in script.splitlines():
                words = shlex.split(line, comments=True) if line.strip() else []
                if words and words[0] in APPS:
                    found.append(words)
    return found


def _check(words: list[str]) -> None:
    command = typer.main.get_command(APPS[words[0]])
    rest = words[1:]
    while hasattr(command, "commands"):  # groups: `oracle-gate seal verify`
        assert rest and rest[0] in command.commands, f"{' '.join(words)}: no subcommand {rest[:1]}"
        command, rest = command.commands[rest[0]], rest[1:]
    known = {opt for param in command.params for opt in param.opts}
    unknown = [w.split("=")[0] for w in rest if w.startswith("--") and w.split("=")[0] not in known]
    assert unknown == [], f"{' '.join(words)}: unknown options {unknown}"


def test_the_scheduled_refresh_uses_secrets_and_uploads_the_run_and_the_html():
    workflow = _workflow("drafter-refresh.yml")
    triggers = workflow[True] if True in workflow else workflow["on"]  # YAML 1.1 reads `on` as true
    assert "schedule" in triggers
    job = workflow["jobs"]["refresh"]
    assert job["env"]["OPENAI_API_KEY"] == "${{ secrets.OPENAI_API_KEY }}"
    assert job["env"]["OPENAI_BASE_URL"] == "${{ secrets.OPENAI_BASE_URL }}"
    commands = _commands(workflow)
    assert [c[:2] for c in commands] == [["drafter", "refresh"], ["drafter", "report"]]
    uploads = [s["with"]["path"] for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact")]
    assert any("report.html" in p for p in uploads) and any("outputs.run }}\n" in p for p in uploads)
    for words in commands:
        _check(words)


def test_the_merge_workflow_runs_the_gate_with_existing_options():
    workflow = _workflow("oracle-gate.yml")
    commands = _commands(workflow)
    assert ["oracle-gate", "run"] in [c[:2] for c in commands]
    for words in commands:
        _check(words)


def test_the_sharded_workflow_runs_every_shard_once_and_merges_them_under_a_score():
    workflow = _workflow("drafter-sharded.yml")
    shard_job, merge_job = workflow["jobs"]["shard"], workflow["jobs"]["merge"]
    shards = shard_job["strategy"]["matrix"]["shard"]
    assert shards == list(range(1, workflow["env"]["SHARDS"] + 1))
    assert merge_job["needs"] == "shard"
    commands = _commands(workflow)
    assert [c[:2] for c in commands] == [["drafter", "run"], ["drafter", "merge"], ["drafter", "report"],
                                         ["drafter", "report"]]
    run, merge = commands[0], commands[1]
    assert run[run.index("--shard") + 1] == "${{ matrix.shard }}/${SHARDS}"
    assert "--fail-under-score" in merge and merge[2] == "shards/drafter-shard-*"
    uploads = [s["with"]["name"] for s in shard_job["steps"] if s.get("uses", "").startswith("actions/upload-artifact")]
    downloads = [s["with"]["pattern"] for s in merge_job["steps"] if s.get("uses", "").startswith("actions/download-artifact")]
    assert uploads == ["drafter-shard-${{ matrix.shard }}"] and downloads == ["drafter-shard-*"]
    for words in commands:
        _check(words)


def test_the_check_catches_an_option_that_does_not_exist():
    with pytest.raises(AssertionError, match="unknown options"):
        _check(["drafter", "refresh", "src", "--fail-under-kep", "1"])
    _check(["drafter", "refresh", "src", "--fail-under-kept", "1"])
