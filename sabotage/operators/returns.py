"""Return an empty value matched to the return annotation: None, 0, 0.0, "", b"", False, [], {}, set(), ()."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from drafter.data import Target
from sabotage.operator import Operator, Site, base_type, code, is_optional

EMPTY_BY_TYPE = {
    "int": "0",
    "float": "0.0",
    "complex": "0j",
    "str": '""',
    "bytes": 'b""',
    "bool": "False",
    "list": "[]",
    "List": "[]",
    "Sequence": "[]",
    "MutableSequence": "[]",
    "dict": "{}",
    "Dict": "{}",
    "Mapping": "{}",
    "MutableMapping": "{}",
    "set": "set()",
    "Set": "set()",
    "frozenset": "frozenset()",
    "FrozenSet": "frozenset()",
    "tuple": "()",
    "Tuple": "()",
}


def empty_value(function: cst.FunctionDef) -> str:
    """Source of the empty value for the function's return annotation ("None" when unknown)."""
    returns = function.returns
    if returns is None or is_optional(returns):
        return "None"
    kind = base_type(returns)
    if kind in ("Decimal", "Fraction"):
        return f"{code(returns.annotation)}(0)"
    return EMPTY_BY_TYPE.get(kind or "", "None")


class ReturnEmpty(Operator):
    name = "return_empty"
    summary = "return None or the empty value of the annotated return type (0, \"\", [], {}, Decimal(0), …)"
    examples = (
        ("def total(xs) -> int:\n    return sum(xs)\n", "def total(xs) -> int:\n    return 0\n"),
        ("def name(u):\n    return u.name\n", "def name(u):\n    return None\n"),
        ("def find(u) -> str | None:\n    return u.name\n", "def find(u) -> str | None:\n    return None\n"),
        ("def parts(t) -> list[str]:\n    return t.split()\n", "def parts(t) -> list[str]:\n    return []\n"),
        ("def tax(a) -> Decimal:\n    return a * 2\n", "def tax(a) -> Decimal:\n    return Decimal(0)\n"),
        ("def stop():\n    return\n",) * 2,
    )

    def replacements(self, site: Site, target: Target | None) -> Iterable[cst.CSTNode]:
        node = site.node
        if isinstance(node, cst.Return) and node.value is not None:
            yield node.with_changes(value=cst.parse_expression(empty_value(site.function)))
