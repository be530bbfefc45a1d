"""Oracle-owned pytest wiring: sealed fixtures for the properties."""

from pathlib import Path

import pytest
from hypothesis import settings

from gate.seal import Manifest, load_manifest

settings.register_profile("oracle", max_examples=40, deadline=None, database=None)
settings.load_profile("oracle")

MANIFEST = Path(__file__).resolve().parents[1] / "fixtures" / "manifest.json"


@pytest.fixture(scope="session")
def manifest() -> Manifest:
    return load_manifest(MANIFEST)
