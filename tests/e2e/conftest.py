"""One replay run of the bundled example, shared by the end-to-end tests (it is the slow part)."""

import hashlib
import os
from pathlib import Path

import pytest

from drafter.config import Settings
from drafter.pipeline import run

REPO = Path(__file__).resolve().parents[2]
SHOP = REPO / "examples" / "shop"


def tree_digest(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(name="tree_digest", scope="session")
def tree_digest_fixture():
    return tree_digest


@pytest.fixture(scope="session")
def shop_digest_before() -> dict[str, str]:
    return tree_digest(SHOP)


@pytest.fixture(scope="session")
def replay_run(tmp_path_factory, shop_digest_before):
    workspace = tmp_path_factory.mktemp("workspace")
    settings = Settings(
        model=f"replay:{SHOP / 'replies.json'}",
        workspace=workspace,
        corpus=(SHOP / "corpus",),
        known_bad=SHOP / "known_bad",
        jobs=min(2, os.cpu_count() or 1),
        max_examples=50,
    )
    return run(SHOP, settings)
