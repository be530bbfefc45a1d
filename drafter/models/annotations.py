"""Annotations read as type expressions with `ast`: their head, the names they mention, result types to check.

Nothing is imported or evaluated: an annotation is text from a source tree drafter never runs here.
"""

from __future__ import annotations

import ast
import re

from drafter.data import Param


def annotation_tree(text: str | None) -> ast.expr | None:
    """An annotation's expression, a string forward reference unwrapped; None when absent or unparsable."""
    try:
        node = ast.parse((text or "").strip(), mode="eval").body
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            node = ast.parse(node.value.strip(), mode="eval").body
    except SyntaxError:
        return None
    return node


def annotation_head(text: str | None) -> str:
    """`list` for `list[str]`, `Decimal` for `decimal.Decimal`, '' for no annotation or any other shape."""
    node = annotation_tree(text)
    if isinstance(node, ast.Subscript):
        node = node.value
    return dotted(node).rsplit(".", 1)[-1] if isinstance(node, (ast.Name, ast.Attribute)) else ""


def annotation_names(text: str | None) -> set[str]:
    """Every type name an annotation mentions: {"list", "Decimal"} for `list[decimal.Decimal]`."""
    node = annotation_tree(text)
    if node is None:
        return set()
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}


def same_annotation(a: str | None, b: str | None) -> bool:
    trees = annotation_tree(a), annotation_tree(b)
    return None not in trees and ast.dump(trees[0]) == ast.dump(trees[1])


def dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{dotted(node.value)}.{node.attr}"
    return ""


def is_format_template(param: Param) -> bool:
    """A defaulted `format="%.1f"`-like parameter: its values are format strings, whose grammar no text strategy knows."""
    if param.default is None:
        return False
    try:
        value = ast.literal_eval(param.default)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return isinstance(value, str) and (param.name in ("format", "fmt", "template", "format_spec") or
                                       re.search(r"%[-+ #0]*\d*(\.\d+)?[a-zA-Z]|\{[^{}]*\}", value) is not None)


def isinstance_target(returns: str, names: frozenset[str]) -> str | None:
    """The class for isinstance() from a return annotation, when it is a plain nameable type."""
    head = annotation_head(returns)
    builtin = {"int": "int", "float": "(int, float)", "str": "str", "bytes": "bytes", "bool": "bool", "list": "list",
               "List": "list", "dict": "dict", "Dict": "dict", "tuple": "tuple", "Tuple": "tuple", "set": "set",
               "frozenset": "frozenset", "Decimal": "Decimal", "Fraction": "Fraction"}
    if head in builtin:
        return builtin[head]
    if head and head.isidentifier() and head in names and head[0].isupper():
        return head
    return None


def element_type(returns: str, names: frozenset[str]) -> str | None:
    """`X` of a `list[X]`-like (or `Iterator[X]`) return annotation, when X is a plain nameable type."""
    try:
        node = ast.parse(returns.strip(), mode="eval").body
    except SyntaxError:
        return None
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)):
        return None
    if node.value.id not in ("list", "List", "set", "frozenset", "Sequence", "Iterator", "Iterable") or \
            isinstance(node.slice, ast.Tuple):
        return None
    return isinstance_target(ast.unparse(node.slice), names)
