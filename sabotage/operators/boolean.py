"""Boolean swap: and ↔ or, `not x` → `x`, True ↔ False."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from drafter.data import Target
from sabotage.operator import Operator, Site


class SwapBoolean(Operator):
    name = "swap_boolean"
    summary = "swap `and` ↔ `or`, drop a `not`, swap `True` ↔ `False`"
    examples = (
        ("def bad(a, r):\n    return a < 0 or r < 0\n", "def bad(a, r):\n    return a < 0 and r < 0\n"),
        ("def out(s):\n    return not 200 <= s\n", "def out(s):\n    return 200 <= s\n"),
        ("def yes():\n    return True\n", "def yes():\n    return False\n"),
        ("def keep(x):\n    return x\n",) * 2,
    )

    def replacements(self, site: Site, target: Target | None) -> Iterable[cst.CSTNode]:
        node = site.node
        if isinstance(node, cst.BooleanOperation):
            op = node.operator
            new = cst.Or if isinstance(op, cst.And) else cst.And
            spacing = {"whitespace_before": op.whitespace_before, "whitespace_after": op.whitespace_after}
            yield node.with_changes(operator=new(**spacing))
        elif isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            inner = node.expression
            yield inner.with_changes(lpar=node.lpar, rpar=node.rpar) if node.lpar else inner
        elif isinstance(node, cst.Name) and node.value in ("True", "False"):
            yield node.with_changes(value="False" if node.value == "True" else "True")
