"""Static extraction of drafting targets from a read-only SRC folder (libcst; the code is never imported)."""

from __future__ import annotations

import ast
import dataclasses
import fnmatch
import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from drafter.data import ClassInfo, Extraction, ExtractError, Param, Target, Usage
from drafter.errors import SourceError
from drafter.walk import iter_modules, list_corpus

ENUM_BASES = frozenset({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"})
SKIPPED_DECORATORS = ("overload", "typing.overload")  # stubs: the implementation below them is the target


def extract(src: Path, corpus_dirs: Sequence[Path] = (), select: Sequence[str] = ()) -> Extraction:
    """Every public function and method of SRC, its classes and module names, and the corpus file names."""
    src = Path(src)
    if not src.exists():
        raise SourceError(f"SRC {src}: no such folder")
    if not src.is_dir():
        raise SourceError(f"SRC {src}: not a folder of Python modules")
    corpus = list_corpus(corpus_dirs)
    targets: dict[str, Target] = {}
    classes: list[ClassInfo] = []
    errors: list[ExtractError] = []
    module_names: dict[str, tuple[str, ...]] = {}
    constants: dict[str, dict[str, tuple[str | int, ...]]] = {}
    for rel, module in iter_modules(src, errors):
        try:
            tree = cst.parse_module((src / rel).read_bytes())
        except cst.ParserSyntaxError as exc:
            reason = f"syntax error at line {exc.editor_line}, column {exc.editor_column}: {exc.message}"
            errors.append(ExtractError(rel, reason))
            continue
        except (OSError, UnicodeDecodeError, LookupError, SyntaxError) as exc:
            errors.append(ExtractError(rel, f"cannot read: {exc}"))
            continue
        try:
            found = _ModuleAnalysis(tree, module, rel).run()
        except Exception as exc:  # noqa: BLE001 - one odd file (deep nesting, libcst limits) must not stop the others
            errors.append(ExtractError(rel, f"cannot analyse: {type(exc).__name__}: {exc}"))
            continue
        for target in found.targets:
            targets[target.id] = target  # a later definition of the same name replaces the earlier one, as in Python
        classes.extend(found.classes)
        module_names[module] = found.names
        if found.constants:
            constants[module] = found.constants
    kept = [t for t in targets.values() if not select or any(fnmatch.fnmatchcase(t.id, g) for g in select)]
    return Extraction(
        root=str(src.resolve()),
        targets=tuple(sorted(kept, key=lambda t: (t.file, t.line, t.id))),
        classes=tuple(sorted(classes, key=lambda c: (c.module, c.name))),
        errors=tuple(sorted(errors, key=lambda e: (e.file, e.reason))),
        corpus=corpus,
        module_names=dict(sorted(module_names.items())),
        constants=dict(sorted(constants.items())),
    )


# ---------------------------------------------------------------- one module


def _public(qualname: str) -> bool:
    return not any(part.startswith("_") for part in qualname.split("."))


def _normalised(text: str | None) -> str | None:
    """Expression text with formatting and comments removed, so layout changes do not change fingerprints."""
    if text is None:
        return None
    try:
        return ast.unparse(ast.parse(text.strip(), mode="eval"))
    except SyntaxError:
        return " ".join(text.split())


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


class _Found:
    def __init__(self) -> None:
        self.targets: list[Target] = []
        self.classes: list[ClassInfo] = []
        self.names: tuple[str, ...] = ()
        self.constants: dict[str, tuple[str | int, ...]] = {}


# Compound statements whose blocks still define names of the enclosing module or class body.
_BLOCKS = (cst.If, cst.Else, cst.Try, cst.TryStar, cst.ExceptHandler, cst.ExceptStarHandler, cst.Finally, cst.With,
           cst.For, cst.While)


def _statements(body: Sequence[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    """The statements of a module or class body, looking through if/try/with blocks but not into defs."""
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            yield from statement.body
            continue
        yield statement
        if isinstance(statement, _BLOCKS):
            block = statement.body
            yield from _statements(block.body if isinstance(block, cst.IndentedBlock) else [block])
            for part in ("orelse", "handlers", "finalbody"):
                child = getattr(statement, part, None)
                for item in child if isinstance(child, tuple | list) else [child] if child else []:
                    yield from _statements([item])


def _assigned_names(statement: cst.CSTNode) -> list[str]:
    if isinstance(statement, cst.Assign):
        targets = [t.target for t in statement.targets]
    elif isinstance(statement, (cst.AnnAssign, cst.AugAssign)):
        targets = [statement.target]
    else:
        return []
    names: list[str] = []
    while targets:
        target = targets.pop(0)
        if isinstance(target, cst.Name):
            names.append(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            targets += [e.value for e in target.elements]
    return names


class _ModuleAnalysis:
    """One walk over a parsed module's definitions. Qualified names come from the nesting of class bodies (what
    QualifiedNameProvider reports for local definitions, at a fraction of its cost); lines from PositionProvider."""

    def __init__(self, tree: cst.Module, module: str, rel: str) -> None:
        self.tree = tree
        self.module = module
        self.rel = rel
        self.found = _Found()
        self.enum_classes: set[str] = set()
        self.positions = MetadataWrapper(tree, unsafe_skip_copy=True).resolve(PositionProvider)

    def run(self) -> _Found:
        self._body(self.tree.body, prefix="")
        self.found.names = self._module_names()
        self.found.constants = self._constants()
        return self.found

    def _code(self, node: cst.CSTNode) -> str:
        text = self.tree.code_for_node(node).strip()
        # Only an expression spread over lines can carry layout or comments worth dropping.
        return (_normalised(text) or text) if "\n" in text else text

    def _body(self, body: Sequence[cst.CSTNode], prefix: str) -> None:
        for statement in _statements(body):
            if isinstance(statement, cst.FunctionDef):
                self._function(statement, prefix + statement.name.value)
            elif isinstance(statement, cst.ClassDef):
                self._class(statement, prefix + statement.name.value)

    # -- functions and methods

    def _function(self, node: cst.FunctionDef, qualname: str) -> None:
        if not _public(qualname):
            return
        decorators = tuple(self._code(d.decorator) for d in node.decorators)
        if any(d in SKIPPED_DECORATORS or d.endswith((".setter", ".deleter")) for d in decorators):
            return
        usage, unpacked = _collect_usage(node, self.positions)
        params = tuple(self._params(node, usage, unpacked))
        returns = self._code(node.returns.annotation) if node.returns else None
        docstring = node.get_docstring(clean=True)
        is_async = node.asynchronous is not None
        where = self.positions[node]
        self.found.targets.append(
            Target(
                id=f"{self.module}:{qualname}",
                module=self.module,
                qualname=qualname,
                file=self.rel,
                line=where.start.line,
                end_line=where.end.line,
                params=params,
                returns=returns,
                decorators=decorators,
                docstring=docstring,
                is_async=is_async,
                fingerprint=fingerprint(qualname, params, returns, decorators, docstring, is_async),
            )
        )

    def _params(
        self,
        node: cst.FunctionDef,
        usage: Mapping[str, tuple[Usage, ...]] | None = None,
        unpacked: Mapping[str, tuple[str, ...]] | None = None,
    ) -> Iterator[Param]:
        p = node.params
        star = [p.star_arg] if isinstance(p.star_arg, cst.Param) else []
        kwargs = [p.star_kwarg] if p.star_kwarg else []
        groups = (
            ("positional_only", p.posonly_params),
            ("positional_or_keyword", p.params),
            ("var_positional", star),
            ("keyword_only", p.kwonly_params),
            ("var_keyword", kwargs),
        )
        for kind, members in groups:
            for param in members:
                yield Param(
                    name=param.name.value,
                    kind=kind,
                    annotation=self._code(param.annotation.annotation) if param.annotation else None,
                    default=self._code(param.default) if param.default else None,
                    usage=(usage or {}).get(param.name.value, ()),
                    unpacked=(unpacked or {}).get(param.name.value, ()),
                )

    # -- classes

    def _class(self, node: cst.ClassDef, qualname: str) -> None:
        if not _public(qualname):
            return
        bases = {_dotted(b.value).rsplit(".", 1)[-1] for b in node.bases}
        decorators = {_dotted(d.decorator) for d in node.decorators}
        methods = [s for s in _statements(node.body.body) if isinstance(s, cst.FunctionDef)]
        if bases & (ENUM_BASES | self.enum_classes):
            self.enum_classes.add(node.name.value)
            info = ClassInfo(self.module, qualname, "enum", members=self._enum_members(node))
        elif decorators & {"dataclass", "dataclasses.dataclass"}:
            fields = _with_unpacked(self._dataclass_fields(node), methods)
            info = ClassInfo(self.module, qualname, "dataclass", fields=fields)
        else:
            init = next((m for m in methods if m.name.value == "__init__"), None)
            fields = _with_unpacked((f for f in self._params(init) if f.name != "self") if init else (), methods)
            info = ClassInfo(self.module, qualname, "class", fields=fields)
        self.found.classes.append(info)
        self._body(node.body.body, prefix=qualname + ".")

    def _enum_members(self, node: cst.ClassDef) -> tuple[str, ...]:
        members: list[str] = []
        for statement in _statements(node.body.body):
            if isinstance(statement, cst.AnnAssign) and statement.value is None:
                continue  # a bare annotation is not a member
            if not isinstance(statement, cst.AugAssign):
                members += [n for n in _assigned_names(statement) if not n.startswith("_")]
        return tuple(members)

    def _dataclass_fields(self, node: cst.ClassDef) -> Iterator[Param]:
        kind = "keyword_only" if self._dataclass_kw_only(node) else "positional_or_keyword"
        for statement in _statements(node.body.body):
            if not isinstance(statement, cst.AnnAssign) or not isinstance(statement.target, cst.Name):
                continue
            head = _dotted(statement.annotation.annotation).rsplit(".", 1)[-1]
            if head == "KW_ONLY":
                kind = "keyword_only"
                continue
            if head == "ClassVar" or self._init_false(statement.value):
                continue
            annotation = self._code(statement.annotation.annotation)
            default = self._code(statement.value) if statement.value is not None else None
            yield Param(statement.target.value, kind, annotation, default)

    @staticmethod
    def _dataclass_kw_only(node: cst.ClassDef) -> bool:
        for decorator in node.decorators:
            if isinstance(decorator.decorator, cst.Call):
                for arg in decorator.decorator.args:
                    if arg.keyword and arg.keyword.value == "kw_only" and _dotted(arg.value) == "True":
                        return True
        return False

    @staticmethod
    def _init_false(value: cst.BaseExpression | None) -> bool:
        if not isinstance(value, cst.Call) or _dotted(value.func).rsplit(".", 1)[-1] != "field":
            return False
        return any(a.keyword and a.keyword.value == "init" and _dotted(a.value) == "False" for a in value.args)

    # -- module names

    def _module_names(self) -> tuple[str, ...]:
        names: set[str] = set()
        exported: list[str] = []
        for statement in _statements(self.tree.body):
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                names.add(statement.name.value)
            assigned = _assigned_names(statement)
            names.update(assigned)
            if "__all__" in assigned and isinstance(statement.value, (cst.List, cst.Tuple, cst.Set)):
                exported += [
                    e.value.evaluated_value for e in statement.value.elements if isinstance(e.value, cst.SimpleString)
                ]
        return tuple(sorted({n for n in names if not n.startswith("_")} | set(exported)))


    def _constants(self) -> dict[str, tuple[str | int, ...]]:
        """Public names bound once, at module level, to a literal collection of strings or of ints."""
        values: dict[str, tuple[str | int, ...] | None] = {}
        for statement in _statements(self.tree.body):
            assigned = _assigned_names(statement)
            for name in assigned:
                values[name] = None if name in values else _literal_collection(statement, self.tree)
        return {n: v for n, v in sorted(values.items()) if v is not None and not n.startswith("_")}


COLLECTION_CALLS = ("tuple", "list", "set", "frozenset")


def _literal_collection(statement: cst.CSTNode, tree: cst.Module) -> tuple[str | int, ...] | None:
    """The values of `NAME = (...)`, `[...]`, `{...}` or `frozenset({...})` of two or more strs or ints (not bools)."""
    if not isinstance(statement, (cst.Assign, cst.AnnAssign)) or statement.value is None:
        return None
    if isinstance(statement, cst.Assign) and not (
        len(statement.targets) == 1 and isinstance(statement.targets[0].target, cst.Name)
    ):
        return None
    value = statement.value
    if isinstance(value, cst.Call) and _dotted(value.func) in COLLECTION_CALLS and len(value.args) == 1:
        value = value.args[0].value
    if not isinstance(value, (cst.Tuple, cst.List, cst.Set)):
        return None
    try:
        items = ast.literal_eval(tree.code_for_node(value))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    kinds = {type(item) for item in items}
    if len(items) < 2 or len(kinds) != 1 or kinds - {str, int}:
        return None
    return tuple(sorted(items)) if isinstance(items, (set, frozenset)) else tuple(items)


def _with_unpacked(fields: Iterator[Param] | Sequence[Param], methods: Sequence[cst.FunctionDef]) -> tuple[Param, ...]:
    """Fields with the names methods unpack their elements into (`for tag, text in self.lines`)."""
    fields = tuple(fields)
    if not fields:
        return fields
    found: dict[str, tuple[str, ...]] = {}
    for method in methods:
        pending: list[cst.CSTNode] = [method.body]
        while pending:
            node = pending.pop()
            attribute = getattr(node, "iter", None)
            if isinstance(attribute, cst.Attribute) and _dotted(attribute.value) == "self":
                names = _tuple_names(node)
                if names:
                    found.setdefault(attribute.attr.value, names)
            pending.extend(_children(node))
    return tuple(dataclasses.replace(f, unpacked=found[f.name]) if f.name in found else f for f in fields)


def _tuple_names(loop: cst.CSTNode) -> tuple[str, ...]:
    """("a", "b") for a `for a, b in ...` loop or comprehension, () for any other target."""
    target = getattr(loop, "target", None) if isinstance(loop, (cst.For, cst.CompFor)) else None
    if not isinstance(target, (cst.Tuple, cst.List)):
        return ()
    names = tuple(e.value.value for e in target.elements if isinstance(e.value, cst.Name))
    return names if len(names) == len(target.elements) else ()


def fingerprint(
    qualname: str,
    params: Sequence[Param],
    returns: str | None,
    decorators: Sequence[str],
    docstring: str | None,
    is_async: bool,
) -> str:
    """sha256 (16 hex digits) of the normalised signature and docstring; the body and layout do not count."""
    signature = {
        "qualname": qualname,
        "async": is_async,
        "decorators": [_normalised(d) for d in decorators],
        "params": [[p.name, p.kind, _normalised(p.annotation), _normalised(p.default)] for p in params],
        "returns": _normalised(returns),
        "docstring": docstring,
    }
    return hashlib.sha256(json.dumps(signature, sort_keys=True).encode()).hexdigest()[:16]


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
    found: list[tuple[CodeRange, str, Usage]] = []
    unpacked: dict[str, tuple[str, ...]] = {}
    pending: list[tuple[cst.CSTNode, cst.CSTNode | None, cst.CSTNode | None]] = [(function.body, None, None)]
    while pending:
        node, parent, grand = pending.pop()
        if isinstance(node, cst.Name):
            if node.value in names and parent is not None:
                usage = _classify(node, parent, grand)
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


def _classify(node: cst.CSTNode, parent: cst.CSTNode, grand: cst.CSTNode | None) -> Usage | None:
    """What one read of a parameter says about its type, judged from the expressions around it."""
    if isinstance(parent, cst.Attribute) and parent.value is node:
        method = parent.attr.value
        if isinstance(grand, cst.Call) and grand.func is parent and method in METHOD_KINDS:
            return Usage(METHOD_KINDS[method], f"calls .{method}()")
        return None
    if isinstance(parent, cst.Call) and parent.func is node:
        return Usage("callable", "is called")
    if isinstance(parent, cst.Arg) and parent.value is node and isinstance(grand, cst.Call):
        return _as_argument(grand)
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


def _as_argument(call: cst.Call) -> Usage | None:
    callee = _dotted(call.func)
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if callee in ("min", "max"):
        if len(positional) == 1:
            return Usage("sequence", f"passed to {callee}()")
        return Usage("number", f"passed to {callee}() with other values")
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
