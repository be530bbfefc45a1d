"""The same inputs give the same report: fixed seeds everywhere Hypothesis runs, stable ordering everywhere else."""

import json
from pathlib import Path

from drafter.config import Settings
from drafter.pipeline import run

SHOP = Path(__file__).resolve().parents[2] / "examples" / "shop"


def stable_view(report_path: Path) -> dict:
    """report.json without what legitimately differs between two runs: the run id and wall times."""
    data = json.loads(report_path.read_text())
    data.pop("run_id")
    data["summary"].pop("seconds")
    data["summary"].pop("cpu_seconds")
    data["summary"]["matrix"].pop("seconds")
    data["summary"]["matrix"].pop("test_seconds")
    data["summary"]["matrix"].pop("timeout_seconds")
    return data


def test_two_runs_on_the_same_inputs_write_the_same_report(tmp_path):
    reports = []
    for n in range(2):
        settings = Settings(
            model=f"replay:{SHOP / 'replies.json'}",
            workspace=tmp_path / f"ws{n}",
            select=("shop.envelope:*",),
            known_bad=SHOP / "known_bad",
            jobs=2 if n else 1,  # worker count must not change results either
            max_examples=30,
        )
        reports.append(stable_view(run(SHOP, settings).report_paths[0]))
    first, second = reports
    first["settings"].pop("jobs"), second["settings"].pop("jobs")
    assert first["candidates"] and first["mutants"]
    assert first == second
