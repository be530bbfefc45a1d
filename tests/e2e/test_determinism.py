"""The same inputs give the same report: fixed seeds everywhere Hypothesis runs, stable ordering everywhere else."""

from pathlib import Path

from drafter.config import Settings
from drafter.pipeline import run

SHOP = Path(__file__).resolve().parents[2] / "examples" / "shop"


def test_two_runs_on_the_same_inputs_write_the_same_report(tmp_path, stable_report):
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
        reports.append(stable_report(run(SHOP, settings).report_paths[0]))
    first, second = reports
    first["settings"].pop("jobs"), second["settings"].pop("jobs")
    assert first["candidates"] and first["mutants"]
    assert first == second
