"""Statement deletion: one simple statement becomes `pass`."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from drafter.data import Target
from sabotage.operator import Operator, Site, docstring_line

DELETABLE = (
    cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Expr, cst.Assert, cst.Raise, cst.Del, cst.Break, cst.Continue,
)
INERT = (cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis, cst.Name)


class DeleteStatement(Operator):
    name = "delete_statement"
    summary = (
        "replace one simple statement (assignment, call, assert, raise, del, break, continue) by `pass`; "
        "returns, imports, bare literals and the target's only statement are left alone"
    )
    examples = (
        (
            "def check(x):\n    if x < 0:\n        raise ValueError(x)\n    return x\n",
            "def check(x):\n    if x < 0:\n        pass\n    return x\n",
        ),
        (
            "def grow(xs):\n    xs.append(1); xs.sort()\n    return xs\n",
            "def grow(xs):\n    pass; xs.sort()\n    return xs\n",
        ),
        ("def only(xs):\n    xs.clear()\n",) * 2,
    )

    def replacements(self, site: Site, target: Target | None) -> Iterable[cst.CSTNode]:
        node = site.node
        if not isinstance(node, DELETABLE) or isinstance(node, cst.AnnAssign) and node.value is None:
            return
        if isinstance(node, cst.Expr) and isinstance(node.value, INERT):
            return
        if self._only_statement(site):
            return
        yield cst.Pass(semicolon=node.semicolon)

    @staticmethod
    def _only_statement(site: Site) -> bool:
        """True for the single statement of the target's body (a docstring does not count)."""
        root, line = site.ancestors[0], site.parent
        if len(line.body) != 1:
            return False
        if line is root.body:
            return True
        doc = docstring_line(root)
        statements = [s for s in root.body.body if s is not doc]
        return len(statements) == 1 and statements[0] is line
