"""Bounds on what a model may send: a reply past one of them is rejected by name, never a crash or a hang."""

from __future__ import annotations

import json
from typing import Any

MAX_REPLY_CHARS = 1_000_000
MAX_NESTING = 64
MAX_CANDIDATES_PER_REPLY = 50
MAX_INT_DIGITS = 100
MAX_FIELD_CHARS = 20_000  # one candidate's body, strategy or assumption
MAX_AST_DEPTH = 100  # of one field's syntax tree
MAX_SOURCE_BYTES = 2_000_000  # one SRC module; past it the module is skipped with a warning


class LimitExceeded(ValueError):
    """The text is over one of the bounds above; the message names it."""


def nesting_depth(text: str) -> int:
    """The deepest nesting of [ and { outside JSON strings."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth = max(0, depth - 1)
    return deepest


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise LimitExceeded(f"an integer of {len(digits.lstrip('-'))} digits (the limit is {MAX_INT_DIGITS})")
    return int(digits)


def check_size(text: str, what: str = "the reply") -> None:
    if len(text) > MAX_REPLY_CHARS:
        raise LimitExceeded(f"{what} is {len(text):,} characters (the limit is {MAX_REPLY_CHARS:,})")


def check_nesting(text: str) -> None:
    depth = nesting_depth(text)
    if depth > MAX_NESTING:
        raise LimitExceeded(f"JSON nested {depth} deep (the limit is {MAX_NESTING})")


def load_json(text: str) -> Any:
    """json.loads within the nesting and integer bounds; JSONDecodeError for text that is not JSON."""
    check_nesting(text)
    return json.loads(text, parse_int=_bounded_int)


def decoder() -> json.JSONDecoder:
    """A raw_decode-capable decoder with the integer bound (nesting is checked on the whole text first)."""
    return json.JSONDecoder(parse_int=_bounded_int)
