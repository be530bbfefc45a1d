"""Arithmetic swap: + ↔ -, * ↔ /, // → /, / → //, % → *, ** → *, also in augmented assignments."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from drafter.data import Target
from sabotage.operator import Operator, Site, is_string

SWAPS: dict[type, tuple[type, ...]] = {
    cst.Add: (cst.Subtract,),
    cst.Subtract: (cst.Add,),
    cst.Multiply: (cst.Divide,),
    cst.Divide: (cst.Multiply, cst.FloorDivide),
    cst.FloorDivide: (cst.Divide,),
    cst.Modulo: (cst.Multiply,),
    cst.Power: (cst.Multiply,),
    cst.AddAssign: (cst.SubtractAssign,),
    cst.SubtractAssign: (cst.AddAssign,),
    cst.MultiplyAssign: (cst.DivideAssign,),
    cst.DivideAssign: (cst.MultiplyAssign, cst.FloorDivideAssign),
    cst.FloorDivideAssign: (cst.DivideAssign,),
    cst.ModuloAssign: (cst.MultiplyAssign,),
    cst.PowerAssign: (cst.MultiplyAssign,),
}


class SwapArithmetic(Operator):
    name = "swap_arithmetic"
    summary = (
        "swap an arithmetic operator (+↔-, *↔/, //↔/, %→*, **→*), augmented assignments included; "
        "string + and % are left alone"
    )
    examples = (
        ("def tax(a, r):\n    return a + a * r\n", "def tax(a, r):\n    return a - a * r\n"),
        ("def tax(a, r):\n    return a + a * r\n", "def tax(a, r):\n    return a + a / r\n"),
        ("def half(n):\n    return n // 2\n", "def half(n):\n    return n / 2\n"),
        ("def rest(n):\n    return n % 7\n", "def rest(n):\n    return n * 7\n"),
        ("def grow(n):\n    n += 1\n    return n\n", "def grow(n):\n    n -= 1\n    return n\n"),
        ("def greet(name):\n    return 'hi ' + name\n",) * 2,
    )

    def replacements(self, site: Site, target: Target | None) -> Iterable[cst.CSTNode]:
        node = site.node
        if isinstance(node, cst.BinaryOperation):
            if is_string(node.left) or is_string(node.right):
                return
        elif not (isinstance(node, cst.AugAssign) and not is_string(node.value)):
            return
        op = node.operator
        for new in SWAPS.get(type(op), ()):
            spacing = {"whitespace_before": op.whitespace_before, "whitespace_after": op.whitespace_after}
            yield node.with_changes(operator=new(**spacing))
