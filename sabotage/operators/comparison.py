"""Comparison swap: < ↔ <=, > ↔ >=, == ↔ !=, in ↔ not in, is ↔ is not; one operator of a chain at a time."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from drafter.data import Target
from sabotage.operator import Operator, Site

SWAPS: dict[type, type] = {
    cst.LessThan: cst.LessThanEqual,
    cst.LessThanEqual: cst.LessThan,
    cst.GreaterThan: cst.GreaterThanEqual,
    cst.GreaterThanEqual: cst.GreaterThan,
    cst.Equal: cst.NotEqual,
    cst.NotEqual: cst.Equal,
    cst.In: cst.NotIn,
    cst.NotIn: cst.In,
    cst.Is: cst.IsNot,
    cst.IsNot: cst.Is,
}


class SwapComparison(Operator):
    name = "swap_comparison"
    summary = "swap one comparison operator (< ↔ <=, > ↔ >=, == ↔ !=, in ↔ not in, is ↔ is not)"
    examples = (
        ("def neg(x):\n    return x < 0\n", "def neg(x):\n    return x <= 0\n"),
        ("def ok(s):\n    return 200 <= s <= 599\n", "def ok(s):\n    return 200 <= s < 599\n"),
        ("def bad(k):\n    return k not in SAFE\n", "def bad(k):\n    return k in SAFE\n"),
        ("def none(v):\n    return v is None\n", "def none(v):\n    return v is not None\n"),
        ("def same(a, b):\n    return a == b\n", "def same(a, b):\n    return a != b\n"),
    )

    def replacements(self, site: Site, target: Target | None) -> Iterable[cst.CSTNode]:
        node = site.node
        if not isinstance(node, cst.Comparison):
            return
        for i, part in enumerate(node.comparisons):
            op = part.operator
            new = SWAPS.get(type(op))
            if new is None:
                continue
            parts = list(node.comparisons)
            parts[i] = part.with_changes(
                operator=new(whitespace_before=op.whitespace_before, whitespace_after=op.whitespace_after)
            )
            yield node.with_changes(comparisons=parts)
