"""Fixtures for the candidate tests: the real extraction of examples/shop and parse+lint of one reply."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from drafter.candidates import parse_reply
from drafter.data import Drafted, Extraction, Reply
from drafter.extract import extract
from drafter.lint import lint

SHOP = Path(__file__).resolve().parents[2] / "examples" / "shop"


@pytest.fixture(scope="session")
def shop_extraction() -> Extraction:
    return extract(SHOP, [SHOP / "corpus"])


@pytest.fixture(scope="session")
def shop_dir() -> Path:
    return SHOP


@pytest.fixture
def checked(shop_extraction) -> Callable[..., dict[str, Drafted]]:
    """parse + lint the given items (or raw text) as one reply; results keyed by name, '#index' or '#reply'."""

    def run(target_id: str, *items: dict | str) -> dict[str, Drafted]:
        text = items[0] if len(items) == 1 and isinstance(items[0], str) else json.dumps({"candidates": list(items)})
        target = shop_extraction.target(target_id)
        drafted = lint(parse_reply(Reply(target_id, text), target), target, shop_extraction)
        return {d.id.split("::", 1)[1]: d for d in drafted}

    return run
