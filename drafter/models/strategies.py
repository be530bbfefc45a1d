"""Bounded Hypothesis strategy expressions (source text) for one parameter.

From its annotation when there is one; otherwise guessed from the default value, the body's usage evidence
(found by the extract stage), the docstring and the name. Every guess records what it was based on.
Annotations are type expressions, not code, so they are read with `ast` and nothing is imported or evaluated.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field, replace

from drafter.data import ClassInfo, Param, Usage
from drafter.models.annotations import dotted

MAX_TEXT = 20
MAX_ITEMS = 10
MAX_INNER = 5  # collections nested inside collections stay small
MAX_DEPTH = 3
MAX_BYTES = 32

NUMERIC = ("int", "float", "decimal", "fraction")
MONEY_NAMES = {"amount", "price", "total", "cost", "subtotal", "balance", "fee", "tax", "money", "payment", "charge"}
RATE_NAMES = {"rate", "ratio", "percent", "percentage", "pct", "factor", "fraction", "discount", "share", "weight"}
COUNT_FROM_ONE = {"parts", "chunks", "groups", "buckets", "pieces", "ways", "batches", "pages", "workers", "n_parts"}
COUNT_NAMES = {"n", "count", "size", "length", "limit", "width", "height", "times", "repeat", "k", "num", "number",
               "depth", "index", "idx", "i", "j", "offset", "start", "stop", "end", "lineno", "indent", "ceiling", "floor",
               "precision", "ndigits", "digits", "places", "decimals"}
STATUS_NAMES = {"status", "status_code", "http_status"}
TEXT_NAMES = {"s", "text", "string", "name", "code", "label", "title", "slug", "word", "key", "prefix", "suffix",
              "sep", "separator", "message", "msg", "url", "email", "line", "path", "currency", "query", "template"}
BYTES_NAMES = {"blob", "buf", "buffer", "payload", "raw_bytes", "octets"}
BOOL_NAMES = {"flag", "strict", "verbose", "enabled", "reverse", "force", "quiet", "dry_run"}
TEXT_ITEM_NAMES = {"lines", "words", "names", "keys", "tags", "strings", "labels", "codes", "texts", "rows"}
USAGE_PRIORITY = ("mapping", "bytes", "text", "sequence", "number", "bool")
DOC_TYPE_WORDS = {"int": "int", "integer": "int", "float": "float", "number": "int", "str": "str", "string": "str",
                  "text": "str", "bytes": "bytes", "bool": "bool", "boolean": "bool", "list": "list",
                  "sequence": "list", "iterable": "list", "dict": "dict", "mapping": "dict", "decimal": "decimal"}


@dataclass(frozen=True)
class Guess:
    expr: str
    kind: str  # int float decimal fraction str bytes bool none list tuple dict set enum class literal any union
    basis: str  # what the guess was based on, for the candidate's rationale
    elem: Guess | None = None  # element guess of list/tuple/set kinds
    cls: str | None = None  # class name for kind class/enum


@dataclass(frozen=True)
class Context:
    """What a guess may use: the module's public names, its classes, the target's docstring."""

    module_names: frozenset[str] = frozenset()
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    docstring: str = ""
    safe_text: bool = False  # text that survives a line-based text form: letters and digits only
    nonneg: frozenset[str] = frozenset()  # params the docstring says must not be negative
    constants: dict[str, tuple[str | int, ...]] = field(default_factory=dict)  # the module's literal collections
    unpacked: tuple[str, ...] = ()  # names the code gives the parts of the value's elements (`for tag, text in x`)
    aliases: dict[str, str] = field(default_factory=dict)  # module-level type aliases of SRC: name -> annotation
    rejects_negative: frozenset[str] = frozenset()  # classes whose constructor raises on a negative number
    numeric_text: str = ""  # "int" or "float" when the body converts the text it gets: digits, not any text
    least: dict[str, int] = field(default_factory=dict)  # text params the body indexes: `s[0]` needs one character
    # param -> (literal values passed for it, where: doctest, calls in its module), for unannotated params
    shown: dict[str, tuple[tuple, str]] = field(default_factory=dict)


def param_guess(param: Param, ctx: Context) -> Guess | None:
    """A strategy for `param`, or None when there is nothing to go on."""
    if param.annotation:
        converted = [kind for kind in ("float", "int") if Usage("number", f"passed to {kind}()") in param.usage]
        ctx = replace(ctx, unpacked=param.unpacked, numeric_text=converted[0] if converted else "")
        guess = annotation_guess(param.annotation, param.name, ctx)
        if guess is not None and param.default == "None" and guess.kind not in ("none", "union"):
            guess = Guess(f"st.one_of(st.none(), {guess.expr})", "union", guess.basis + ", default None")
        return guess
    return unannotated_guess(param, ctx)


def annotation_guess(text: str, name: str, ctx: Context) -> Guess | None:
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    guess = _from_node(node, name, ctx, 0)
    if guess is None:
        return None
    return replace(guess, basis=f"annotation {text}" + (f" ({guess.basis})" if guess.basis else ""))


def _joined(*bases: str) -> str:
    return ", ".join(dict.fromkeys(b for b in bases if b))


def _from_node(node: ast.expr, name: str, ctx: Context, depth: int) -> Guess | None:
    if depth > MAX_DEPTH:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # a forward reference "Hunk"
        try:
            return _from_node(ast.parse(node.value, mode="eval").body, name, ctx, depth)
        except SyntaxError:
            return None
    if isinstance(node, ast.Constant) and node.value is None:
        return Guess("st.none()", "none", "")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union([node.left, node.right], name, ctx, depth)
    if isinstance(node, (ast.Name, ast.Attribute)):
        return _simple(dotted(node), name, ctx, depth)
    if isinstance(node, ast.Subscript):
        head = dotted(node.value).rsplit(".", 1)[-1]
        args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        return _generic(head, args, name, ctx, depth)
    return None


def _simple(dotted: str, name: str, ctx: Context, depth: int) -> Guess | None:
    head = dotted.rsplit(".", 1)[-1]
    scalar = _scalar(head, name, ctx)
    if scalar is not None:
        return scalar
    if head in ("list", "List", "Sequence", "Iterable", "Collection", "MutableSequence"):
        return _collection("list", [_any(depth)], name, ctx, depth)
    if head in ("dict", "Dict", "Mapping", "MutableMapping"):
        return _generic("dict", [ast.Name("str"), ast.Name("int")], name, ctx, depth)
    if head in ("Any", "object"):
        return _any(depth)
    if head in ctx.aliases and head not in ctx.classes:
        try:
            aliased = ast.parse(ctx.aliases[head], mode="eval").body
        except SyntaxError:
            return None
        guess = _from_node(aliased, name, ctx, depth + 1)
        return replace(guess, basis=_joined(guess.basis, f"{head} = {ctx.aliases[head]}")) if guess else None
    return _class(dotted, ctx, depth)


def _scalar(head: str, name: str, ctx: Context) -> Guess | None:
    nonneg = name in ctx.nonneg
    if head in ("str", "int"):
        listed = listed_values(name, str if head == "str" else int, ctx)
        if listed is not None:
            return listed
    if head in ("int", "SupportsInt", "SupportsIndex"):
        return Guess(int_expr(name, nonneg), "int", "")
    if head in ("float", "SupportsFloat"):
        low = "0.0" if nonneg else "-1000000.0"
        return Guess(f"st.floats(min_value={low}, max_value=1000000.0, allow_nan=False)", "float", "")
    if head == "Decimal":
        return Guess(decimal_expr(name, nonneg), "decimal", "")
    if head == "Fraction":
        low = 0 if nonneg else -1000
        return Guess(f"st.fractions(min_value={low}, max_value=1000, max_denominator=1000)", "fraction", "")
    if head == "str" and ctx.numeric_text:
        number = int_expr(name, nonneg) if ctx.numeric_text == "int" else \
            f"st.floats(min_value={'0.0' if nonneg else '-1000000.0'}, max_value=1000000.0, allow_nan=False)"
        return Guess(f"{number}.map(str)", "str", f"text the body passes to {ctx.numeric_text}()")
    if head == "str":
        return Guess(text_expr(ctx.safe_text, ctx.least.get(name, 0)), "str", "")
    if head == "bytes":
        return Guess(f"st.binary(max_size={MAX_BYTES})", "bytes", "")
    if head == "bytearray":
        return Guess(f"st.binary(max_size={MAX_BYTES}).map(bytearray)", "bytes", "")
    if head == "bool":
        return Guess("st.booleans()", "bool", "")
    if head == "None":
        return Guess("st.none()", "none", "")
    if head in TIME_STRATEGIES:
        return Guess(TIME_STRATEGIES[head], "time", "")
    return None


# Bounded to a few centuries around now: the values real date code is written for.
TIME_STRATEGIES = {
    "timedelta": "st.timedeltas(min_value=datetime.timedelta(days=-3650), max_value=datetime.timedelta(days=3650))",
    "datetime": "st.datetimes(min_value=datetime.datetime(1900, 1, 1), max_value=datetime.datetime(2100, 1, 1))",
    "date": "st.dates(min_value=datetime.date(1900, 1, 1), max_value=datetime.date(2100, 1, 1))",
}


def listed_values(name: str, kind: type, ctx: Context) -> Guess | None:
    """`st.sampled_from(sorted(TAGS))` for a value named `tag` when the module lists its values in constant TAGS."""
    stem = name.upper()
    plurals = (stem + "S", stem + "ES", stem[:-1] + "IES" if stem.endswith("Y") else "")
    for constant in plurals:
        values = ctx.constants.get(constant)
        if values and constant in ctx.module_names and all(type(v) is kind for v in values):
            # sorted(): a set constant has no stable order, which sampled_from requires
            return Guess(f"st.sampled_from(sorted({constant}))", "literal",
                         f"module constant {constant} lists the values of {name}")
    return None


def _any(depth: int) -> Guess:
    return Guess(f"st.one_of(st.none(), st.booleans(), {int_expr('', False)}, st.text(max_size={MAX_TEXT}))", "any", "")


def _generic(head: str, args: list[ast.expr], name: str, ctx: Context, depth: int) -> Guess | None:
    if head == "Optional":
        return _union([args[0], ast.Constant(None)], name, ctx, depth)
    if head == "Union":
        return _union(args, name, ctx, depth)
    if head == "Literal":
        values = [ast.unparse(a) for a in args]
        return Guess(f"st.sampled_from([{', '.join(values)}])", "literal", "")
    if head == "Annotated":
        return _from_node(args[0], name, ctx, depth)
    if head in ("list", "List", "Sequence", "Iterable", "Collection", "MutableSequence"):
        return _collection("list", args[:1], name, ctx, depth)
    if head in ("set", "Set", "frozenset", "FrozenSet", "AbstractSet", "MutableSet"):
        return _collection("frozenset" if "rozen" in head else "set", args[:1], name, ctx, depth)
    if head in ("tuple", "Tuple"):
        if len(args) == 2 and isinstance(args[1], ast.Constant) and args[1].value is Ellipsis:
            return _collection("tuple", args[:1], name, ctx, depth)
        names = ctx.unpacked if len(ctx.unpacked) == len(args) else (name,) * len(args)
        inner = replace(ctx, unpacked=())
        parts = [_from_node(a, n, inner, depth + 1) for a, n in zip(args, names)]
        if any(p is None for p in parts):
            return None
        return Guess(f"st.tuples({', '.join(p.expr for p in parts)})", "tuple", _joined(*(p.basis for p in parts)))
    if head in ("dict", "Dict", "Mapping", "MutableMapping"):
        if len(args) != 2:
            return None
        keys = _from_node(args[0], "key", replace(ctx, safe_text=ctx.safe_text), depth + 1)
        values = _from_node(args[1], "value", ctx, depth + 1)
        if keys is None or values is None or keys.kind in ("list", "dict", "set"):
            return None
        if ctx.safe_text and keys.kind == "str":
            keys = Guess(text_expr(True, min_size=1), "str", "")
        size = MAX_INNER if depth else MAX_ITEMS
        return Guess(f"st.dictionaries({keys.expr}, {values.expr}, max_size={size})", "dict", "")
    return None


def _collection(kind: str, args: list, name: str, ctx: Context, depth: int) -> Guess | None:
    elem = args[0] if args else None
    if isinstance(elem, Guess):
        inner = elem
    elif elem is None:
        inner = _any(depth)
    else:
        inner = _from_node(elem, _singular(name), ctx, depth + 1)
    if inner is None:
        return None
    if kind in ("set", "frozenset") and inner.kind in ("list", "dict", "set"):
        return None  # unhashable elements
    size = MAX_INNER if depth else MAX_ITEMS
    if kind == "list":
        expr = f"st.lists({inner.expr}, max_size={size})"
    elif kind == "tuple":
        expr = f"st.lists({inner.expr}, max_size={size}).map(tuple)"
    else:
        expr = f"st.{'frozensets' if kind == 'frozenset' else 'sets'}({inner.expr}, max_size={size})"
    return Guess(expr, "list" if kind == "tuple" else kind, inner.basis, elem=inner)


def _union(args: list[ast.expr], name: str, ctx: Context, depth: int) -> Guess | None:
    parts = [_from_node(a, name, ctx, depth) for a in args]
    if any(p is None for p in parts):
        return None
    if len(parts) == 1:
        return parts[0]
    return Guess(f"st.one_of({', '.join(p.expr for p in parts)})", "union", "")


def _class(dotted: str, ctx: Context, depth: int) -> Guess | None:
    head = dotted.rsplit(".", 1)[-1]
    info = ctx.classes.get(head)
    if info is None or head not in ctx.module_names:
        return None  # the test could not name it
    if info.kind == "enum":
        return Guess(f"st.sampled_from({head})", "enum", "", cls=head)
    return class_builds(info, ctx, depth)


def class_builds(info: ClassInfo, ctx: Context, depth: int = 0) -> Guess | None:
    """`st.builds(Cls, field=...)` from the class's fields; fields with defaults may be left to them."""
    args, bases = [], []
    rejects = info.name in ctx.rejects_negative
    for param in info.fields:
        if param.kind in ("var_positional", "var_keyword"):
            continue
        sub = replace(ctx, nonneg=frozenset({param.name} if rejects else ()), unpacked=param.unpacked)
        guess = (_from_node(ast.parse(param.annotation, mode="eval").body, param.name, sub, depth + 1)
                 if param.annotation and _parses(param.annotation) else unannotated_guess(param, sub))
        if guess is None:
            if param.default is None:
                return None
            continue
        args.append(f"{param.name}={guess.expr}")
        bases.append(guess.basis)
    expr = f"st.builds({info.name}{''.join(', ' + a for a in args)})"
    if rejects:
        bases.append(f"the constructor of {info.name} rejects negative numbers")
    return Guess(expr, "class", _joined(*bases), cls=info.name)


def _parses(text: str) -> bool:
    try:
        ast.parse(text, mode="eval")
        return True
    except SyntaxError:
        return False


# ------------------------------------------------------------------ scalar expressions


def int_expr(name: str, nonneg: bool) -> str:
    low, high = -1000, 1000
    if name in COUNT_FROM_ONE:
        low, high = 1, 50
    elif name in COUNT_NAMES or name.startswith(("n_", "num_")) or name.rsplit("_", 1)[-1] in COUNT_NAMES:
        low, high = 0, 50
    elif name in STATUS_NAMES:
        low, high = 100, 599
    elif nonneg:
        low = 0
    return f"st.integers(min_value={low}, max_value={high})"


def decimal_expr(name: str, nonneg: bool) -> str:
    if name in RATE_NAMES or name.endswith("_rate"):
        return "st.decimals(min_value=Decimal('0'), max_value=Decimal('1'), places=4)"
    low = "0.00" if nonneg else "-1000000.00"
    if name in MONEY_NAMES or name.endswith(("_amount", "_price", "_total")):
        return f"st.decimals(min_value=Decimal('{low}'), max_value=Decimal('1000000.00'), places=2)"
    return f"st.decimals(min_value=Decimal('{low}'), max_value=Decimal('1000000.00'), places=4)"


def text_expr(safe: bool, min_size: int = 0) -> str:
    least = f"min_size={min_size}, " if min_size else ""
    if safe:
        return f"st.text(alphabet=string.ascii_letters + string.digits, {least}max_size=10)"
    return f"st.text({least}max_size={MAX_TEXT})"


def _singular(name: str) -> str:
    return name[:-1] if name.endswith("s") and len(name) > 2 else name


# ------------------------------------------------------------------ unannotated parameters


# Reads that any value passes (`if text:`, an isinstance branch for another type): the weakest evidence.
WEAK_USAGE = ("used as a condition", "checked with isinstance")
FAMILIES = {"str": "text", "bytes": "bytes", "bool": "bool", "int": "number", "float": "number", "decimal": "number",
            "fraction": "number", "list": "sequence", "tuple": "sequence", "set": "sequence", "dict": "mapping"}


def unannotated_guess(param: Param, ctx: Context) -> Guess | None:
    """From the evidence, best first: literal values passed for it (doctests, calls in its module), its default,
    body usage, the docstring, a conventional name, then reads any value passes. Where they disagree the narrow
    type wins: text over bool, bytes or a sequence (a str is all of those to a careless guess)."""
    name = param.name
    from_default = _default_guess(param, ctx)
    for kind in (str, int):
        listed = listed_values(name, kind, ctx)
        if listed and (from_default is None or from_default.kind in ("none", {str: "str", int: "int"}[kind])):
            return replace(listed, basis=_joined(listed.basis, f"default {param.default}" if param.default else ""))
    strong = [u for u in param.usage if not u.evidence.startswith(WEAK_USAGE)]
    weak = [u for u in param.usage if u.evidence.startswith(WEAK_USAGE)]
    strong_kind = next((k for k in USAGE_PRIORITY if k in {u.kind for u in strong}), None)
    weak_kind = next((k for k in USAGE_PRIORITY if k in {u.kind for u in weak}), None)
    if strong_kind is None and any(u.kind == "callable" for u in param.usage):
        return None  # it is called: no honest guess of a callable's contract, whatever the name suggests
    found: list[tuple[Guess, str]] = []  # (guess, source) best first

    def add(guess: Guess | None, source: str, basis: str) -> None:
        if guess is not None:
            found.append((replace(guess, basis=basis), source))

    values, where = ctx.shown.get(name, ((), ""))
    shown_kinds = {value_kind(v) for v in values} - {None}
    if len(shown_kinds) == 1:
        shown = ", ".join(repr(v) for v in values[:3])
        add(_kind_guess(shown_kinds.pop(), name, ctx), "shown", f"{where} passes {name}={shown}")
    if from_default is not None and from_default.kind != "none":
        add(from_default, "default", f"default {param.default}")
    evidence = "; ".join(u.evidence for u in strong)
    add(_kind_guess(strong_kind, name, ctx) if strong_kind else None, "usage", f"body usage of {name} ({evidence})")
    doc_kind = _docstring_kind(name, ctx.docstring)
    add(_kind_guess(doc_kind, name, ctx) if doc_kind else None, "docstring", f"docstring describes {name} as {doc_kind}")
    name_kind = _name_kind(name)
    add(_kind_guess(name_kind, name, ctx) if name_kind else None, "name", f"parameter name {name!r} suggests {name_kind}")
    weak_evidence = "; ".join(u.evidence for u in weak)
    add(_kind_guess(weak_kind, name, ctx) if weak_kind else None, "weak", f"body usage of {name} ({weak_evidence})")
    if not found:
        return None
    guess, source = found[0]
    family = FAMILIES.get(guess.kind, guess.kind)
    text = next((g for g, _ in found if FAMILIES.get(g.kind) == "text"), None)
    # A value the author passes or defaults to is never overruled: only usage, docstring, names and weak reads are.
    if text is not None and family in ("bool", "bytes", "sequence") and source not in ("shown", "default"):
        guess = replace(text, basis=f"{text.basis}, over {guess.basis}")
    elif family == "bool" and source in ("name", "weak", "docstring"):
        other = next((g for g, _ in found if FAMILIES.get(g.kind) != "bool"), None)
        guess = replace(other, basis=f"{other.basis}, over {guess.basis}") if other else guess
    if source == "default" and guess is found[0][0] and strong_kind:
        guess = replace(guess, basis=f"{guess.basis} and body usage ({evidence})")
    if from_default is not None and from_default.kind == "none":  # default None: also try None itself
        guess = Guess(f"st.one_of(st.none(), {guess.expr})", "union", guess.basis + ", default None")
    return guess


def value_kind(value: object) -> str | None:
    """The kind `_kind_guess` draws for one literal value."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "number"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "text"
    if isinstance(value, (bytes, bytearray)):
        return "bytes"
    if isinstance(value, (list, tuple)):
        return "sequence"
    if isinstance(value, dict):
        return "mapping"
    return None  # None itself says nothing of the type


def _default_guess(param: Param, ctx: Context) -> Guess | None:
    if param.default is None:
        return None
    try:
        value = ast.literal_eval(param.default)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if value is None:
        return Guess("st.none()", "none", "")
    if isinstance(value, bool):
        return Guess("st.booleans()", "bool", "")
    if isinstance(value, int):
        low, high = min(0, 2 * value), max(100, 2 * value)
        return Guess(f"st.integers(min_value={low}, max_value={high})", "int", "")
    if isinstance(value, float):
        low, high = min(0.0, 2 * value), max(100.0, 2 * value)
        return Guess(f"st.floats(min_value={low!r}, max_value={high!r}, allow_nan=False)", "float", "")
    if isinstance(value, str):
        return Guess(text_expr(ctx.safe_text, ctx.least.get(param.name, 0)), "str", "")
    if isinstance(value, bytes):
        return Guess(f"st.binary(max_size={MAX_BYTES})", "bytes", "")
    if isinstance(value, (list, tuple)):
        return _kind_guess("sequence", param.name, ctx)
    if isinstance(value, dict):
        return _kind_guess("mapping", param.name, ctx)
    return None


def _kind_guess(kind: str, name: str, ctx: Context) -> Guess | None:
    nonneg = name in ctx.nonneg
    if kind == "text":
        return Guess(text_expr(ctx.safe_text, ctx.least.get(name, 0)), "str", "")
    if kind in ("number", "int"):
        return Guess(int_expr(name, nonneg), "int", "")
    if kind == "float":
        return _scalar("float", name, ctx)
    if kind == "decimal":
        return _scalar("Decimal", name, ctx)
    if kind in ("str", "bytes", "bool"):
        return _scalar({"str": "str", "bytes": "bytes", "bool": "bool"}[kind], name, ctx)
    if kind in ("sequence", "list"):
        if name in TEXT_ITEM_NAMES:
            item = Guess(text_expr(ctx.safe_text), "str", "")
        else:
            item = Guess("st.integers(min_value=-1000, max_value=1000)", "int", "")
        return _collection("list", [item], name, ctx, 0)
    if kind in ("mapping", "dict"):
        return Guess(f"st.dictionaries(st.text(max_size=10), st.integers(min_value=-1000, max_value=1000), "
                     f"max_size={MAX_ITEMS})", "dict", "")
    return None  # callables: no honest guess of their contract


def _docstring_kind(name: str, docstring: str) -> str | None:
    """Google/NumPy/Sphinx parameter types: `name (int):`, `name : str`, `:type name: list`."""
    if not docstring:
        return None
    patterns = (rf"\b{re.escape(name)}\s*\(\s*(\w+)", rf"^\s*{re.escape(name)}\s*:\s*(\w+)",
                rf":type\s+{re.escape(name)}\s*:\s*(\w+)", rf"\b{re.escape(name)}\b[^.]*?\b(?:a|an|the)\s+(\w+)")
    for pattern in patterns:
        for match in re.finditer(pattern, docstring, flags=re.MULTILINE | re.IGNORECASE):
            kind = DOC_TYPE_WORDS.get(match.group(1).lower())
            if kind:
                return kind
    return None


# Names that promise only "something to iterate over, as often as you like": a list is one.
ITERABLE_NAMES = frozenset({"iterable", "seq", "sequence"})


def _name_kind(name: str) -> str | None:
    if name in BOOL_NAMES or name.startswith(("is_", "has_", "allow_", "use_")):
        return "bool"
    if name in COUNT_NAMES or name in COUNT_FROM_ONE or name in STATUS_NAMES or name.startswith(("n_", "num_")):
        return "number"
    if name in MONEY_NAMES or name in RATE_NAMES:
        return "decimal"
    if name in TEXT_NAMES or name.endswith(("_name", "_text", "_code", "_str")):
        return "text"
    if name in BYTES_NAMES or name.endswith("_bytes"):
        return "bytes"
    if name in TEXT_ITEM_NAMES or name in ITERABLE_NAMES or (name.endswith("s") and len(name) > 2 and not name.endswith("ss")):
        return "sequence"
    return None


def nonnegative_params(params: tuple[Param, ...], docstring: str) -> frozenset[str]:
    """Params a docstring sentence says must not be negative (or must be positive)."""
    found = set()
    for sentence in re.split(r"(?<=[.;])\s+", docstring or ""):
        lowered = sentence.lower()
        if not re.search(r"(not|never) (be )?negative|non-?negative|must be positive|>= ?0", lowered):
            continue
        for param in params:
            if re.search(rf"\b{re.escape(param.name.lower())}\b", lowered):
                found.add(param.name)
    return frozenset(found)
