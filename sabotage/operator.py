"""The operator contract: find positions in one function, make one mutant per position, describe it.

An operator sees only the target's ``FunctionDef`` (nested functions, classes and lambdas inside it are part
of its body and are mutated too). Docstrings, annotations and decorators are never offered as positions.

``examples`` convention: each ``(before, after)`` pair is the source of a module holding one function;
``after`` must be exactly one of the mutants the operator produces for ``before`` (any position), and an
example whose ``after`` equals its ``before`` says the operator finds no position at all there.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import libcst as cst

from drafter.data import Target

_EMPTY_MODULE = cst.Module(body=[])
NUMERIC_TYPES = frozenset({"int", "float", "complex", "Decimal", "Fraction"})
_STRING_NODES = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
_LEAVES = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.Name)
_ATOMS = (
    cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.SimpleString, cst.ConcatenatedString,
    cst.FormattedString, cst.Integer, cst.Float, cst.Imaginary, cst.List, cst.Tuple, cst.Dict, cst.Set,
    cst.ListComp, cst.SetComp, cst.DictComp, cst.Ellipsis,
)


@dataclass(frozen=True, eq=False)
class Position:
    """One place an operator can change: ``node`` is replaced (by identity) with ``replacement``."""

    node: cst.CSTNode
    replacement: cst.CSTNode | None = None
    description: str = ""  # overrides the default "`before` → `after`" when set
    context: cst.CSTNode | None = None  # shown instead of a bare leaf such as `0`, with the leaf replaced


@dataclass(frozen=True, eq=False)
class Site:
    """A node of the target's body with its ancestors (outermost first, the target function itself first)."""

    node: cst.CSTNode
    ancestors: tuple[cst.CSTNode, ...]

    @property
    def function(self) -> cst.FunctionDef:
        """The innermost function the node belongs to (a nested def, or the target itself)."""
        return next(a for a in reversed(self.ancestors) if isinstance(a, cst.FunctionDef))

    @property
    def parent(self) -> cst.CSTNode:
        return self.ancestors[-1]

    def inside(self, *kinds: type[cst.CSTNode]) -> bool:
        return any(isinstance(a, kinds) for a in self.ancestors)


class Operator:
    """Base of every mutation operator; most override only ``replacements``."""

    name: str = ""
    summary: str = ""
    examples: tuple[tuple[str, str], ...] = ()

    def replacements(self, site: Site, target: Target | None) -> Iterable[cst.CSTNode]:
        """Nodes that may stand in for ``site.node``, one mutant each."""
        return ()

    def positions(self, function: cst.FunctionDef, target: Target | None = None) -> list[Position]:
        return [
            Position(site.node, replacement, context=_context(site))
            for site in walk(function)
            for replacement in self.replacements(site, target)
        ]

    def mutate(self, function: cst.FunctionDef, position: Position) -> cst.FunctionDef:
        return function.deep_replace(position.node, position.replacement)

    def describe(self, function: cst.FunctionDef, position: Position) -> str:
        if position.description:
            return position.description
        before = position.context or position.node
        after = before.deep_replace(position.node, position.replacement) if position.context else position.replacement
        return f"`{snippet(before)}` → `{snippet(after)}`"

    def __repr__(self) -> str:
        return f"<operator {self.name}>"


# ---------------------------------------------------------------- walking a function body


class _Walker(cst.CSTVisitor):
    def __init__(self, root: cst.FunctionDef) -> None:
        self.stack: list[cst.CSTNode] = [root]
        self.sites: list[Site] = []
        self.skipped: set[int] = set()
        self._skip_docstring_of(root)

    def _skip_docstring_of(self, node: cst.FunctionDef | cst.ClassDef) -> None:
        doc = docstring_line(node)
        if doc is not None:
            self.skipped.add(id(doc))

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.stack.append(node)
        if isinstance(node, (cst.Annotation, cst.Decorator)) or id(node) in self.skipped:
            return False
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            self._skip_docstring_of(node)
        self.sites.append(Site(node, tuple(self.stack[:-1])))
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()


_last_walk: list = [None, ()]  # every operator walks the same function in turn: walked once, kept while it lasts


def walk(function: cst.FunctionDef) -> Iterator[Site]:
    """Every node of the function's body in source order, minus docstrings, annotations and decorators."""
    if _last_walk[0] is not function:
        walker = _Walker(function)
        function.body.visit(walker)
        _last_walk[:] = [function, tuple(walker.sites)]
    return iter(_last_walk[1])


def _context(site: Site) -> cst.CSTNode | None:
    """For a leaf (a literal or a name), the nearest enclosing expression or simple statement."""
    if not isinstance(site.node, _LEAVES):
        return None
    wanted = (cst.BaseExpression, cst.BaseSmallStatement)
    return next((a for a in reversed(site.ancestors[1:]) if isinstance(a, wanted)), None)


def docstring_line(node: cst.FunctionDef | cst.ClassDef) -> cst.SimpleStatementLine | None:
    body = node.body
    if not isinstance(body, cst.IndentedBlock) or not body.body:
        return None
    first = body.body[0]
    if (
        isinstance(first, cst.SimpleStatementLine)
        and len(first.body) == 1
        and isinstance(first.body[0], cst.Expr)
        and isinstance(first.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    ):
        return first
    return None


# ---------------------------------------------------------------- small helpers shared by operators


def code(node: cst.CSTNode) -> str:
    return _EMPTY_MODULE.code_for_node(node)


def snippet(node: cst.CSTNode | None, limit: int = 70) -> str:
    """A node's code on one line, shortened for descriptions."""
    text = " ".join(code(node).split()) if node is not None else ""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def is_string(node: cst.CSTNode) -> bool:
    return isinstance(node, _STRING_NODES)


def parenthesized(node: cst.BaseExpression) -> cst.BaseExpression:
    """The expression, wrapped in parentheses unless it is an atom, so it can stand anywhere."""
    if isinstance(node, _ATOMS) or node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def named_params(function: cst.FunctionDef) -> list[cst.Param]:
    """Parameters a body can read by name, in order, without self/cls and without *args/**kwargs."""
    p = function.params
    every = [*p.posonly_params, *p.params, *p.kwonly_params]
    return [param for param in every if param.name.value not in ("self", "cls")]


def annotation_text(annotation: cst.Annotation | None) -> str | None:
    return None if annotation is None else "".join(code(annotation.annotation).split())


def base_type(annotation: cst.Annotation | None) -> str | None:
    """`list[int]` → "list", `decimal.Decimal` → "Decimal"; None when missing."""
    if annotation is None:
        return None
    node = annotation.annotation
    if isinstance(node, cst.Subscript):
        node = node.value
    if isinstance(node, cst.SimpleString):  # a quoted forward reference
        return node.evaluated_value.split("[")[0].rsplit(".", 1)[-1].strip()
    return code(node).rsplit(".", 1)[-1].strip()


def is_optional(annotation: cst.Annotation | None) -> bool:
    if annotation is None:
        return False
    node = annotation.annotation
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        return any(code(side).strip() == "None" for side in (node.left, node.right))
    return base_type(annotation) in ("Optional", "None")
