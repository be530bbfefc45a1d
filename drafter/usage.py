"""How a function's body uses each parameter (methods called on it, operators, builtins it is passed to,
literals it is compared with): the evidence strategies are drawn from when annotations are missing."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping

import libcst as cst
from libcst.metadata import CodeRange

from drafter.data import Usage


def _dotted(node: cst.BaseExpression) -> str:
    """`a.b.c` for a Name/Attribute chain (the callee of a Call, the base of a subscript), '' for anything else."""
    if isinstance(node, cst.Call):
        return _dotted(node.func)
    if isinstance(node, cst.Subscript):
        return _dotted(node.value)
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr.value}" if head else ""
    return ""


def _tuple_names(loop: cst.CSTNode) -> tuple[str, ...]:
    """("a", "b") for a `for a, b in ...` loop or comprehension, () for any other target."""
    target = getattr(loop, "target", None) if isinstance(loop, (cst.For, cst.CompFor)) else None
    if not isinstance(target, (cst.Tuple, cst.List)):
        return ()
    names = tuple(e.value.value for e in target.elements if isinstance(e.value, cst.Name))
    return names if len(names) == len(target.elements) else ()


_SKIPPED_FIELDS = ("whitespace", "lpar", "rpar", "comma", "semicolon", "leading_lines", "header", "footer")
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(node: cst.CSTNode) -> tuple[str, ...]:
    kind = type(node)
    if kind not in _CHILD_FIELDS:
        names = (f.name for f in dataclasses.fields(node))
        _CHILD_FIELDS[kind] = tuple(n for n in names if not any(skip in n for skip in _SKIPPED_FIELDS))
    return _CHILD_FIELDS[kind]


def _children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """A node's child nodes, read straight from its dataclass fields (whitespace and brackets skipped)."""
    for field_name in _child_fields(node):
        value = getattr(node, field_name)
        if isinstance(value, cst.CSTNode):
            yield value
        elif isinstance(value, (tuple, list)):
            yield from (child for child in value if isinstance(child, cst.CSTNode))


def _collect_usage(
    function: cst.FunctionDef, positions: Mapping[cst.CSTNode, CodeRange]
) -> tuple[dict[str, tuple[Usage, ...]], dict[str, tuple[str, ...]]]:
    """Usage evidence per parameter, in source order, and the names `for a, b in param` unpacks it into.

    A plain walk over the dataclass fields of the body: libcst's visitor rebuilds every node it passes, which made
    this the slowest step of extraction."""
    p = function.params
    names = {param.name.value for param in (*p.posonly_params, *p.params, *p.kwonly_params)}
    names |= {param.name.value for param in (p.star_arg, p.star_kwarg) if isinstance(param, cst.Param)}
    numeric = frozenset(param.name.value for param in (*p.posonly_params, *p.params, *p.kwonly_params)
                        if param.default is not None and _literal(param.default) and _literal(param.default)[0] == "number")
    found: list[tuple[CodeRange, str, Usage]] = []
    unpacked: dict[str, tuple[str, ...]] = {}
    pending: list[tuple[cst.CSTNode, cst.CSTNode | None, cst.CSTNode | None]] = [(function.body, None, None)]
    while pending:
        node, parent, grand = pending.pop()
        if isinstance(node, cst.Name):
            if node.value in names and parent is not None:
                usage = _classify(node, parent, grand, numeric)
                if usage is not None:
                    found.append((positions[node], node.value, usage))
            continue
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            continue  # nested definitions have names of their own
        if isinstance(node, (cst.For, cst.CompFor)) and isinstance(node.iter, cst.Name) and node.iter.value in names:
            elements = _tuple_names(node)
            if elements:
                unpacked.setdefault(node.iter.value, elements)
        pending.extend((child, node, parent) for child in _children(node))
    by_param: dict[str, dict[Usage, None]] = {n: {} for n in names}  # dicts keep first-seen order
    for _, name, usage in sorted(found, key=lambda f: (f[0].start.line, f[0].start.column)):
        by_param[name].setdefault(usage)
    return {n: tuple(u) for n, u in by_param.items()}, unpacked


# ---------------------------------------------------------------- usage evidence

TEXT_METHODS = frozenset(
    {
        "split", "rsplit", "splitlines", "lower", "upper", "strip", "lstrip", "rstrip", "startswith", "endswith",
        "casefold", "title", "capitalize", "swapcase", "isdigit", "isalpha", "isalnum", "isspace", "isupper",
        "islower", "isidentifier", "isnumeric", "isdecimal", "partition", "rpartition", "replace", "encode",
        "zfill", "center", "ljust", "rjust", "removeprefix", "removesuffix", "format", "format_map", "find",
        "rfind", "expandtabs", "translate",
    }
)
METHOD_KINDS = {
    **dict.fromkeys(TEXT_METHODS, "text"),
    **dict.fromkeys(("append", "extend", "insert", "sort", "reverse", "remove"), "sequence"),
    **dict.fromkeys(("items", "keys", "values", "get", "setdefault", "popitem"), "mapping"),
    **dict.fromkeys(("decode",), "bytes"),
    **dict.fromkeys(
        ("quantize", "to_integral_value", "is_integer", "bit_length", "as_integer_ratio", "conjugate"), "number"
    ),
}
BUILTIN_ARG_KINDS = {
    **dict.fromkeys(
        ("abs", "round", "int", "float", "divmod", "pow", "complex", "chr", "hex", "bin", "oct"), "number"
    ),
    **dict.fromkeys(
        ("len", "sorted", "reversed", "enumerate", "zip", "sum", "any", "all", "list", "tuple", "set", "frozenset",
         "iter"),
        "sequence",
    ),
    "dict": "mapping",
    "ord": "text",
    "callable": "callable",
    "bool": "bool",
}
ISINSTANCE_KINDS = {
    "str": "text", "int": "number", "float": "number", "Decimal": "number", "Fraction": "number",
    "list": "sequence", "tuple": "sequence", "dict": "mapping", "Mapping": "mapping", "bytes": "bytes",
    "bool": "bool",
}
NUMBER_ONLY_OPS = {
    cst.Subtract: "-", cst.Divide: "/", cst.FloorDivide: "//", cst.Power: "**",
    cst.LeftShift: "<<", cst.RightShift: ">>",
}
ORDER_OPS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)


def _literal(node: cst.CSTNode) -> tuple[str, str] | None:
    """("number" | "text", source) for a numeric or string literal (a signed number too)."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        inner = _literal(node.expression)
        sign = "-" if isinstance(node.operator, cst.Minus) else "+"
        return (inner[0], sign + inner[1]) if inner and inner[0] == "number" else None
    if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)):
        return "number", node.value
    if isinstance(node, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
        return "text", "a string"
    return None


def _classify(node: cst.CSTNode, parent: cst.CSTNode, grand: cst.CSTNode | None,
              numeric: frozenset[str] = frozenset()) -> Usage | None:
    """What one read of a parameter says about its type, judged from the expressions around it."""
    if isinstance(parent, cst.Attribute) and parent.value is node:
        method = parent.attr.value
        if isinstance(grand, cst.Call) and grand.func is parent and method in METHOD_KINDS:
            return Usage(METHOD_KINDS[method], f"calls .{method}()")
        return None
    if isinstance(parent, cst.Call) and parent.func is node:
        return Usage("callable", "is called")
    if isinstance(parent, cst.Arg) and parent.value is node and isinstance(grand, cst.Call):
        return _as_argument(grand, node, numeric)
    if isinstance(parent, cst.BinaryOperation):
        other = parent.right if parent.left is node else parent.left
        literal = _literal(other)
        if literal and literal[0] == "number":
            return Usage("number", f"arithmetic with {literal[1]}")
        if literal and isinstance(parent.operator, cst.Add):
            return Usage("text", "concatenated with a string")
        if literal and isinstance(parent.operator, cst.Modulo) and parent.left is node:
            return Usage("text", "formatted with %")
        if type(parent.operator) in NUMBER_ONLY_OPS:
            return Usage("number", f"arithmetic ({NUMBER_ONLY_OPS[type(parent.operator)]})")
        return None
    if isinstance(parent, cst.UnaryOperation):
        if isinstance(parent.operator, cst.Not):
            return Usage("bool", "used as a condition")
        return Usage("number", "negated") if isinstance(parent.operator, cst.Minus) else None
    if isinstance(parent, cst.Comparison):
        return _compared(node, parent)
    if isinstance(parent, cst.ComparisonTarget) and isinstance(grand, cst.Comparison):
        return _compared(node, grand)
    if isinstance(parent, cst.Subscript) and parent.value is node:
        index = parent.slice[0].slice if parent.slice else None
        if isinstance(index, cst.Slice):
            return Usage("sequence", "sliced")
        literal = _literal(index.value) if isinstance(index, cst.Index) else None
        if literal and literal[0] == "text":
            return Usage("mapping", "indexed with a string key")
        return Usage("sequence", "indexed")
    if isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is node:
        return Usage("sequence", "iterated over")
    if isinstance(parent, (cst.If, cst.While, cst.IfExp, cst.Assert)) and parent.test is node:
        return Usage("bool", "used as a condition")
    if isinstance(parent, cst.BooleanOperation):
        return Usage("bool", "used as a condition")
    if isinstance(parent, cst.FormattedStringExpression):
        return Usage("text", "formatted into an f-string")
    return None


def _as_argument(call: cst.Call, node: cst.CSTNode, numeric: frozenset[str]) -> Usage | None:
    callee = _dotted(call.func)
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if callee in ("min", "max"):
        if len(positional) == 1:
            return Usage("sequence", f"passed to {callee}()")
        # With other values it needs only an order, which strings have too (semver's max_ver(ver1, ver2)): a number
        # only beside a number literal or a parameter whose default is one (`max(low, min(high, value))`).
        others = [a.value for a in positional if a.value is not node]
        if any((_literal(o) or ("",))[0] == "number" or (isinstance(o, cst.Name) and o.value in numeric)
               for o in others):
            return Usage("number", f"passed to {callee}() with numbers")
        return None
    if callee in BUILTIN_ARG_KINDS:
        return Usage(BUILTIN_ARG_KINDS[callee], f"passed to {callee}()")
    if callee.startswith("math."):
        return Usage("number", f"passed to {callee}()")
    if callee == "isinstance" and len(call.args) == 2:
        checked = _dotted(call.args[1].value).rsplit(".", 1)[-1]
        if checked in ISINSTANCE_KINDS:
            return Usage(ISINSTANCE_KINDS[checked], f"checked with isinstance(..., {checked})")
    if isinstance(call.func, cst.Attribute) and _literal(call.func.value):
        method = call.func.attr.value
        if method == "join":
            return Usage("sequence", "joined with str.join()")
        if method == "format":
            return Usage("text", "formatted with str.format()")
    return None


def _compared(node: cst.CSTNode, comparison: cst.Comparison) -> Usage | None:
    operands = [comparison.left] + [t.comparator for t in comparison.comparisons]
    position = next((i for i, o in enumerate(operands) if o is node), None)
    if position is None:
        return None
    for i in (position - 1, position + 1):  # the operator between i and position decides the meaning
        if not 0 <= i < len(operands):
            continue
        operator = comparison.comparisons[min(i, position)].operator
        literal = _literal(operands[i])
        if literal and isinstance(operator, ORDER_OPS):
            if literal[0] == "number":
                return Usage("number", f"compared with {literal[1]}")
            return Usage("text", "compared with a string")
    return None
