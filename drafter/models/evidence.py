"""Evidence of what a function takes and gives where its annotations are silent, read with `ast`, never run:
the literal arguments of its doctest calls and of the calls other functions of its module make, and what its
`return` statements compute (a count, a piece of text).

A value the author passes is better evidence than a name or a truthiness test: `slugify('First post!')` says
`text` is a string although the body only asks `if text:`.
"""

from __future__ import annotations

import ast
from pathlib import Path

from drafter.data import Target
from drafter.models.examples import NOT_LITERAL, doc_examples
from drafter.models.source_facts import _function_at, _own_nodes, _tree
from drafter.models.strategies import value_kind

MAX_DEPTH = 3  # module functions followed to learn what a returned call gives
# Calls whose result is a number or a piece of text whatever they are given.
NUMBER_CALLS = frozenset({"len", "sum", "int", "float", "abs", "round", "ord", "min", "max", "count", "index", "find",
                          "rfind", "bit_length"})
TEXT_CALLS = frozenset({"str", "repr", "chr", "format", "join", "lower", "upper", "strip", "lstrip", "rstrip",
                        "replace", "title", "capitalize", "casefold", "swapcase", "center", "ljust", "rjust", "zfill",
                        "expandtabs", "sub", "hex", "oct", "bin"})


def shown_arguments(target: Target, root: str) -> dict[str, tuple[tuple, str]]:
    """Parameter name -> (literal values passed for it, where they were seen), from the target's doctest calls
    and from calls of it by name elsewhere in its module; for module-level functions only."""
    params = [p.name for p in target.params if p.kind not in ("var_positional", "var_keyword")]
    if target.owner:
        return {}  # `obj.method(...)` passes self implicitly: positions cannot be matched to parameters here
    found: dict[str, list] = {}
    where: dict[str, list[str]] = {}

    def note(passed: dict, source: str) -> None:
        for name in params:
            if name in passed and passed[name] is not NOT_LITERAL:
                found.setdefault(name, []).append(passed[name])
                if source not in where.setdefault(name, []):
                    where[name].append(source)

    for example in doc_examples(target.docstring, target.name):
        note({**dict(example.kwargs), **dict(zip(params, example.args))}, "doctest")
    for args, kwargs in _module_calls(root, target.file, target.name, target.line):
        note({**kwargs, **dict(zip(params, args))}, "a call in its module")
    return {name: (tuple(values), " and ".join(where[name])) for name, values in found.items()}


def _module_calls(root: str, file: str, name: str, line: int) -> list[tuple[tuple, dict]]:
    """Literal arguments of `name(...)` calls in the module, outside the function itself."""
    tree = _tree(Path(root) / file)
    if tree is None:
        return []
    own = _function_at(root, file, line)
    skipped = {id(n) for n in ast.walk(own[2])} if own else set()
    calls = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name):
            continue
        if id(node) in skipped:
            continue
        args, kwargs = [], {}
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                break
            args.append(_literal(arg))
        for keyword in node.keywords:
            if keyword.arg:
                kwargs[keyword.arg] = _literal(keyword.value)
        calls.append((tuple(args), kwargs))
    return calls


def _literal(node: ast.expr) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return NOT_LITERAL


def result_kind(target: Target, root: str) -> str | None:
    """"number", "text", "bytes", "bool" or "sequence" when the evidence says what the function returns: its
    annotation, else its doctest outputs, else what every `return` computes; None when unknown or mixed."""
    head = (target.returns or "").strip().split("[")[0].rsplit(".", 1)[-1]
    by_annotation = {"int": "number", "float": "number", "Decimal": "number", "Fraction": "number", "str": "text",
                     "bytes": "bytes", "bool": "bool", "list": "sequence", "List": "sequence", "tuple": "sequence"}
    if head:
        return by_annotation.get(head)
    outputs = [e.output for e in doc_examples(target.docstring, target.name) if e.output is not NOT_LITERAL]
    kinds = {_number(value_kind(o)) for o in outputs}
    if len(kinds) == 1:
        return kinds.pop()
    return returned_kind(target, root)


def returned_kind(target: Target, root: str) -> str | None:
    """What every `return` of the function computes (the code only, not its annotation or examples)."""
    found = _function_at(root, target.file, target.line)
    return _returns_kind(found[2], found[3], 0) if found else None


def _returns_kind(function: ast.AST, functions: dict, depth: int) -> str | None:
    """The one kind every `return` of `function` gives; module functions it returns the result of are followed a
    few calls deep, and a returned local is judged by what is assigned to it."""
    assigned: dict[str, list[ast.expr]] = {}
    returned: list[ast.expr | None] = []
    for node in _own_nodes(function):
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return None
        if isinstance(node, ast.Return):
            returned.append(node.value)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    assigned.setdefault(target.id, []).append(node.value)
    if not returned:
        return None
    kinds = {_computed(value, assigned, functions, depth, frozenset()) for value in returned}
    return kinds.pop() if len(kinds) == 1 else None


def _number(kind: str | None) -> str | None:
    return "number" if kind == "float" else kind


def _computed(node: ast.expr | None, assigned: dict, functions: dict, depth: int, seen: frozenset) -> str | None:
    def again(inner: ast.expr | None) -> str | None:
        return _computed(inner, assigned, functions, depth, seen)

    if node is None:
        return None
    if isinstance(node, ast.Constant):
        return _number(value_kind(node.value))
    if isinstance(node, ast.JoinedStr):
        return "text"
    if isinstance(node, ast.Name) and node.id in assigned and node.id not in seen:
        kinds = {_computed(v, assigned, functions, depth, seen | {node.id}) for v in assigned[node.id]}
        return kinds.pop() if len(kinds) == 1 else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant):
        return _number(value_kind(node.left.value))  # '%d:%s' % (...) is text; 7 % n a number
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        sides = {again(node.left), again(node.right)} - {None}
        return sides.pop() if len(sides) == 1 else None
    if isinstance(node, ast.IfExp):
        sides = {again(node.body), again(node.orelse)}
        return sides.pop() if len(sides) == 1 else None
    if isinstance(node, ast.Call):
        callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if callee in NUMBER_CALLS and callee not in ("min", "max"):
            return "number"
        if callee in TEXT_CALLS:
            return "text"
        if isinstance(node.func, ast.Name) and callee in functions and depth < MAX_DEPTH:
            return _returns_kind(functions[callee], functions, depth + 1)
    return None
