"""Call sabotage: drop a call (keep its receiver or first argument), swap two positional arguments."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from drafter.data import Target
from sabotage.operator import Operator, Site, code, is_string, parenthesized


def _positional(arg: cst.Arg) -> bool:
    return arg.keyword is None and arg.star == ""


class DropCall(Operator):
    name = "drop_call"
    summary = (
        "replace a call by its receiver (`x.quantize(CENT)` → `x`) or its first argument (`f(a, b)` → `a`); "
        "calls that are a whole statement or build a raised exception are left to other operators"
    )
    examples = (
        (
            "def tax(x):\n    return (x * 2).quantize(CENT, rounding=ROUND_HALF_EVEN)\n",
            "def tax(x):\n    return (x * 2)\n",
        ),
        ("def norm(code):\n    return code.strip().upper()\n", "def norm(code):\n    return code.upper()\n"),
        ("def norm(code):\n    return code.strip().upper()\n", "def norm(code):\n    return code.strip()\n"),
        ("def total(a, b):\n    return -max(a + b, 0)\n", "def total(a, b):\n    return -(a + b)\n"),
        ("def text(lines):\n    return ', '.join(lines)\n", "def text(lines):\n    return lines\n"),
        (
            "def check(x):\n    if x < 0:\n        raise ValueError(str(x))\n    log(x)\n    return now()\n",
        ) * 2,
    )

    def replacements(self, site: Site, target: Target | None) -> Iterable[cst.CSTNode]:
        node = site.node
        if not isinstance(node, cst.Call) or isinstance(site.parent, cst.Expr) or site.inside(cst.Raise):
            return
        func = node.func
        first = node.args[0] if node.args and _positional(node.args[0]) else None
        if isinstance(func, cst.Name) and func.value == "super":
            return
        if isinstance(func, cst.Attribute) and not (is_string(func.value) and first is not None):
            yield func.value.with_changes(lpar=node.lpar or func.value.lpar, rpar=node.rpar or func.value.rpar)
        elif first is not None:
            value = first.value
            yield parenthesized(value) if not node.lpar else value.with_changes(lpar=node.lpar, rpar=node.rpar)


class SwapArguments(Operator):
    name = "swap_arguments"
    summary = "swap two neighbouring positional arguments of a call (`divmod(a, b)` → `divmod(b, a)`)"
    examples = (
        (
            "def split(cents, parts):\n    return divmod(cents, parts)\n",
            "def split(cents, parts):\n    return divmod(parts, cents)\n",
        ),
        ("def pick(a, b, c):\n    return f(a, b, c)\n", "def pick(a, b, c):\n    return f(a, c, b)\n"),
        ("def pick(a, b):\n    return f(a, key=b)\n",) * 2,
        ("def twice(a):\n    return f(a, a)\n",) * 2,
    )

    def replacements(self, site: Site, target: Target | None) -> Iterable[cst.CSTNode]:
        node = site.node
        if not isinstance(node, cst.Call):
            return
        args = list(node.args)
        for i in range(len(args) - 1):
            left, right = args[i], args[i + 1]
            if not (_positional(left) and _positional(right)) or code(left.value) == code(right.value):
                continue
            swapped = list(args)
            swapped[i] = left.with_changes(value=right.value)
            swapped[i + 1] = right.with_changes(value=left.value)
            yield node.with_changes(args=swapped)
