"""One small replay run of the bundled example (the billing targets), shared by the workflow tests."""

import os
from pathlib import Path

import pytest

from drafter.config import Settings
from drafter.pipeline import run

REPO = Path(__file__).resolve().parents[2]
SHOP = REPO / "examples" / "shop"


@pytest.fixture(scope="session")
def billing_run(tmp_path_factory):
    """A complete run with kept and rejected candidates and surviving mutants (about 10 s)."""
    settings = Settings(model=f"replay:{SHOP / 'replies.json'}", workspace=tmp_path_factory.mktemp("workspace"),
                        select=("shop.billing:*",), known_bad=SHOP / "known_bad", jobs=min(2, os.cpu_count() or 1),
                        max_examples=30, seeds=2)
    return run(SHOP, settings)
