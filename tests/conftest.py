"""Shared fixtures. Hypothesis never keeps an example database across our own test runs."""

from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("drafter-tests", database=None, derandomize=True)
settings.load_profile("drafter-tests")

REPO = Path(__file__).resolve().parent.parent
SHOP = REPO / "examples" / "shop"


@pytest.fixture
def shop_src() -> Path:
    """The bundled example SRC (read-only: copy it before changing anything)."""
    return SHOP
