"""Sabotages an oracle owner applies by hand to parameters: `rate = -rate` at entry, `return amount`."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from drafter.data import Target
from sabotage.operator import (
    NUMERIC_TYPES,
    Operator,
    Position,
    Site,
    annotation_text,
    base_type,
    docstring_line,
    named_params,
)


def _numeric_default(param: cst.Param) -> bool:
    value = param.default
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, (cst.Minus, cst.Plus)):
        value = value.expression
    return isinstance(value, (cst.Integer, cst.Float))


def _looks_numeric(param: cst.Param, target: Target | None) -> bool:
    if param.annotation is not None:
        return base_type(param.annotation) in NUMERIC_TYPES
    if _numeric_default(param):
        return True
    known = {p.name: p for p in target.params} if target else {}
    info = known.get(param.name.value)
    if info is None:
        return False
    if info.annotation is not None:
        return info.annotation.rsplit(".", 1)[-1].strip() in NUMERIC_TYPES
    return any(u.kind == "number" for u in info.usage)


class NegateParam(Operator):
    name = "negate_param"
    summary = "insert `p = -p` at entry (after the docstring) for a numeric-looking parameter"
    examples = (
        (
            'def apply_tax(amount: float, rate: float) -> float:\n'
            '    """Tax."""\n'
            '    return amount * (1 + rate)\n',
            'def apply_tax(amount: float, rate: float) -> float:\n'
            '    """Tax."""\n'
            '    rate = -rate\n'
            '    return amount * (1 + rate)\n',
        ),
        (
            "def clamp(percent, ceiling=50):\n    return min(percent, ceiling)\n",
            "def clamp(percent, ceiling=50):\n    ceiling = -ceiling\n    return min(percent, ceiling)\n",
        ),
        ("def square(x: int): return x * x\n", "def square(x: int): x = -x; return x * x\n"),
        ("def shout(text: str, *args: int) -> str:\n    return text\n",) * 2,
    )

    def positions(self, function: cst.FunctionDef, target: Target | None = None) -> list[Position]:
        return [
            Position(param, description=f"`{param.name.value} = -{param.name.value}` inserted at entry")
            for param in named_params(function)
            if _looks_numeric(param, target)
        ]

    def mutate(self, function: cst.FunctionDef, position: Position) -> cst.FunctionDef:
        name = position.node.name.value
        negate = cst.Assign(
            targets=[cst.AssignTarget(cst.Name(name))],
            value=cst.UnaryOperation(cst.Minus(), cst.Name(name)),
        )
        body = function.body
        if isinstance(body, cst.SimpleStatementSuite):
            return function.with_changes(body=body.with_changes(body=[negate, *body.body]))
        at = 1 if docstring_line(function) is not None else 0
        statements = list(body.body)
        statements.insert(at, cst.SimpleStatementLine([negate]))
        return function.with_changes(body=body.with_changes(body=statements))


class ReturnParam(Operator):
    name = "return_param"
    summary = "return an argument unchanged (`return amount`), one mutant per (return, type-compatible param)"
    examples = (
        (
            "def apply_tax(amount: float, rate: float) -> float:\n    return amount * (1 + rate)\n",
            "def apply_tax(amount: float, rate: float) -> float:\n    return amount\n",
        ),
        (
            "def apply_tax(amount: float, rate: float) -> float:\n    return amount * (1 + rate)\n",
            "def apply_tax(amount: float, rate: float) -> float:\n    return rate\n",
        ),
        (
            "def join(self, parts: list, sep):\n    return sep.join(parts)\n",
            "def join(self, parts: list, sep):\n    return sep\n",
        ),
        ("def count(words: list[str]) -> int:\n    return len(words)\n",) * 2,
        ("def ident(x):\n    return x\n",) * 2,
    )

    def replacements(self, site: Site, target: Target | None) -> Iterable[cst.CSTNode]:
        node = site.node
        root = site.ancestors[0]
        if not isinstance(node, cst.Return) or node.value is None or site.function is not root:
            return
        wanted = annotation_text(root.returns)
        for param in named_params(root):
            name = param.name.value
            have = annotation_text(param.annotation)
            if wanted is not None and have is not None and have != wanted:
                continue
            if isinstance(node.value, cst.Name) and node.value.value == name:
                continue
            yield node.with_changes(value=cst.Name(name))
