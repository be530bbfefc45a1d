"""Constant perturbation: n → n+1, x.y → x.y+1, "text" → "", "" → "X", Decimal("0.01") → Decimal("1.01")."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal, InvalidOperation

import libcst as cst

from drafter.data import Target
from sabotage.operator import Operator, Site, code

NUMBER_CONSTRUCTORS = frozenset({"Decimal", "Fraction", "int", "float"})


def _number_text(node: cst.SimpleString, site: Site) -> str | None:
    """The string's number when it is the argument of Decimal(...)/int(...)/…; else None."""
    arg, call = site.parent, site.ancestors[-2] if len(site.ancestors) > 1 else None
    if not (isinstance(arg, cst.Arg) and isinstance(call, cst.Call)):
        return None
    if code(call.func).rsplit(".", 1)[-1] not in NUMBER_CONSTRUCTORS or "b" in node.prefix.lower():
        return None
    try:
        return str(Decimal(str(node.evaluated_value)) + 1)
    except (InvalidOperation, ValueError):
        return None


class PerturbConstant(Operator):
    name = "perturb_constant"
    summary = (
        'perturb a literal: int n → n+1 (so 0 → 1), float x → x+1, "text" → "", "" → "X", a number string given to '
        "Decimal/Fraction/int/float → that number + 1; exception and assert messages and f-strings are left alone"
    )
    examples = (
        ("def limit(n):\n    return n > 0\n", "def limit(n):\n    return n > 1\n"),
        ("def scale(x):\n    return x * 0.5\n", "def scale(x):\n    return x * 1.5\n"),
        ("def sep():\n    return ': '\n", "def sep():\n    return ''\n"),
        ("def fill(s):\n    return s or \"\"\n", "def fill(s):\n    return s or \"X\"\n"),
        ("def cent():\n    return Decimal('0.01')\n", "def cent():\n    return Decimal('1.01')\n"),
        ("def check(x):\n    if x:\n        raise ValueError('negative')\n    return f'{x}'\n",) * 2,
    )

    def replacements(self, site: Site, target: Target | None) -> Iterable[cst.CSTNode]:
        node = site.node
        if isinstance(node, cst.Integer):
            yield node.with_changes(value=str(int(node.value.replace("_", ""), 0) + 1))
        elif isinstance(node, cst.Float):
            yield node.with_changes(value=repr(float(node.value.replace("_", "")) + 1))
        elif isinstance(node, cst.SimpleString) and not self._message(site):
            quote, prefix = node.quote, node.prefix
            number = _number_text(node, site)
            if number is not None:
                body = number
            else:
                body = "" if node.evaluated_value else "X"
            yield node.with_changes(value=f"{prefix}{quote}{body}{quote}")

    @staticmethod
    def _message(site: Site) -> bool:
        if site.inside(cst.Raise, cst.FormattedString):
            return True
        chain = (*site.ancestors, site.node)
        return any(isinstance(a, cst.Assert) and any(x is a.msg for x in chain) for a in site.ancestors)
