"""Which parts of a candidate depend on its target: a static, flow-insensitive taint analysis used by lint.

It only has to be good enough to recognise a relation beside a recorded literal; whether an assertion really
depends on the target is decided by running it against sabotage.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from drafter.data import Target


def dotted(node: ast.AST) -> str | None:
    """`a.b.c` for a chain of attributes on a name, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def is_pytest_raises(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and dotted(node.func) == "pytest.raises"


class TargetUse:
    """Which expressions depend on a call of the target, following names assigned from such calls."""

    def __init__(self, target: Target, body: ast.Module):
        self.target = target
        self.tainted: set[str] = set()
        self.spread(body)

    def refers(self, node: ast.AST) -> bool:
        """Does the expression call (or reference) the target, or use a name assigned from it?"""
        return self.mentions(node) or any(
            isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and sub.id in self.tainted for sub in ast.walk(node)
        )

    def mentions(self, node: ast.AST) -> bool:
        """Does the tree name the target itself (a call, a reference, `obj.method`)?"""
        return any(self.is_target(sub) for sub in ast.walk(node))

    def is_target(self, node: ast.AST) -> bool:
        if self.target.owner is None:
            return isinstance(node, ast.Name) and node.id == self.target.name
        return isinstance(node, ast.Attribute) and node.attr == self.target.name and isinstance(node.ctx, ast.Load)

    def spread(self, body: ast.AST) -> None:
        """Taint names assigned from target-dependent values until nothing changes."""
        changed = True
        while changed:
            changed = False
            for node in ast.walk(body):
                for names, value in self.flows(node):
                    if value is not None and self.refers(value) and not names <= self.tainted:
                        self.tainted |= names
                        changed = True
                names = self.raise_dependent(node) | self.changed_in_place(node)
                if not names <= self.tainted:
                    self.tainted |= names
                    changed = True

    def changed_in_place(self, node: ast.AST) -> set[str]:
        """Names handed to a target called for its effect (`dedupe(b)`, `obj.reset()` as a statement): it changes them."""
        call = node.value if isinstance(node, ast.Expr) else None
        if not (isinstance(call, ast.Call) and self.mentions(call.func)):
            return set()
        handed = [*call.args, *(k.value for k in call.keywords)]
        if isinstance(call.func, ast.Attribute):
            handed.append(call.func.value)
        return {a.id for a in handed if isinstance(a, ast.Name)}

    def raise_dependent(self, node: ast.AST) -> set[str]:
        """Names set in the handlers or else-block of a try that calls the target: they record whether it raised."""
        if not (isinstance(node, ast.Try) and any(self.refers(s) for s in node.body)):
            return set()
        return assigned(*node.orelse, *(s for h in node.handlers for s in h.body))

    @staticmethod
    def flows(node: ast.AST) -> Iterator[tuple[set[str], ast.AST | None]]:
        def stored(*targets: ast.AST) -> set[str]:
            return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}

        if isinstance(node, ast.Assign):
            yield stored(*node.targets), node.value
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
            yield stored(node.target), node.value
        elif isinstance(node, (ast.For, ast.comprehension)):
            yield stored(node.target), node.iter
        elif isinstance(node, ast.With):
            for item in node.items:
                if item.optional_vars is not None:
                    yield stored(item.optional_vars), item.context_expr
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            # `acc.append(f(x))` / `acc.update(obj.method())`: the receiver now holds a target result.
            func = node.value.func
            if isinstance(func, ast.Attribute):
                yield stored(func.value), ast.Tuple(elts=[*node.value.args, *(k.value for k in node.value.keywords)])
        if isinstance(node, (ast.If, ast.While, ast.For)):
            # Control dependence: what a loop or branch over a target result sets depends on that result.
            yield assigned(*node.body, *node.orelse), control_test(node)

    def guarded(self, body: ast.Module) -> set[int]:
        """ids of statements that run only depending on the target: after a try or under pytest.raises around a call, or under
        a branch or loop on a target result."""
        inside: set[int] = set()
        for node in ast.walk(body):
            blocks: list[ast.stmt] = []
            if isinstance(node, ast.Try) and any(self.refers(s) for s in node.body):
                blocks = node.orelse + [s for h in node.handlers for s in h.body]
            elif isinstance(node, ast.With) and any(is_pytest_raises(i.context_expr) for i in node.items):
                if any(self.refers(s) for s in node.body):
                    blocks = [node]
            elif isinstance(node, (ast.If, ast.While, ast.For)) and self.refers(control_test(node)):
                blocks = node.body + node.orelse
            for block in blocks:
                inside |= {id(n) for n in ast.walk(block)}
        return inside


def control_test(node: ast.If | ast.While | ast.For) -> ast.expr:
    return node.iter if isinstance(node, ast.For) else node.test


def assigned(*statements: ast.AST) -> set[str]:
    """Names the statements store to (not the ones they only read)."""
    return {n.id for s in statements for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
