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


INFLECTION = REPO / "bench" / "vendor" / "inflection"


@pytest.fixture(scope="session")
def inflection_run(tmp_path_factory):
    """A small replay run on a vendored real package (inflection 0.5.1, MIT): four targets, kept and surviving."""
    settings = Settings(model=f"replay:{REPO / 'bench' / 'inflection_replies.json'}",
                        workspace=tmp_path_factory.mktemp("workspace"), jobs=min(2, os.cpu_count() or 1),
                        select=("inflection:ordinal", "inflection:ordinalize", "inflection:dasherize",
                                "inflection:underscore"), max_examples=30, seeds=2)
    return run(INFLECTION, settings)
