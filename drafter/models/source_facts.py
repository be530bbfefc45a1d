"""Facts the heuristic reads from SRC's files with `ast` (never importing them): type aliases, constructors
that reject negative numbers, the errors a body raises and the names it looks parameters up in.

`String = Union[str, bytes]` in a `_types.py` that defines no target is still what `version: String` means, so
aliases are collected from every module under SRC. A file that cannot be read or parsed contributes nothing.
"""

from __future__ import annotations

import ast
import functools
import stat
from dataclasses import dataclass
from pathlib import Path

TYPE_HEADS = {"Union", "Optional", "List", "Dict", "Tuple", "Set", "FrozenSet", "Sequence", "Mapping", "Iterable",
              "Collection", "Literal", "Annotated", "list", "dict", "tuple", "set", "frozenset", "type"}
MAX_FILES = 500


def _tree(path: Path) -> ast.Module | None:
    """The parsed file, shared by every fact of every target of a run (callers only read it)."""
    try:
        info = path.stat()
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):  # a FIFO named pipe.py would block the run on open
        return None
    return _parsed(str(path), info.st_mtime_ns, info.st_size)


@functools.lru_cache(maxsize=64)
def _parsed(path: str, _mtime: int, _size: int) -> ast.Module | None:
    try:
        return ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
        return None


def _is_type_expression(node: ast.expr) -> bool:
    if isinstance(node, ast.Subscript):
        head = node.value.attr if isinstance(node.value, ast.Attribute) else getattr(node.value, "id", "")
        return head in TYPE_HEADS
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _is_type_expression(node.left) or _is_type_expression(node.right) or all(
            isinstance(n, ast.Name) for n in (node.left, node.right))
    return False


def _python_files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    if not root.is_dir():
        return []
    return sorted(root.rglob("*.py"))[:MAX_FILES]


@functools.lru_cache(maxsize=8)
def _aliases(root: str, stamp: tuple) -> dict[str, str]:
    aliases: dict[str, str] = {}
    for path in _python_files(Path(root)):
        tree = _tree(path)
        statements = list(tree.body) if tree else []
        for block in [s for s in statements if isinstance(s, ast.If)]:  # `if TYPE_CHECKING:` aliases
            statements += block.body
        for statement in statements:
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and \
                    isinstance(statement.targets[0], ast.Name):
                name, value = statement.targets[0].id, statement.value
            elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and \
                    statement.value is not None and "TypeAlias" in ast.unparse(statement.annotation):
                name, value = statement.target.id, statement.value
            else:
                continue
            if _is_type_expression(value):
                aliases.setdefault(name, ast.unparse(value))  # first definition (sorted paths) wins
    return aliases


def _stamp(root: str) -> tuple:
    """Changes when a file under root changes, so a cached reading is never stale."""
    stamps = []
    for path in _python_files(Path(root)):
        try:
            stat = path.stat()
        except OSError:
            continue
        stamps.append((str(path), stat.st_mtime_ns, stat.st_size))
    return tuple(stamps)


def type_aliases(root: str) -> dict[str, str]:
    """`alias name -> annotation text` for module-level type aliases anywhere under SRC."""
    return _aliases(root, _stamp(root))


def module_file(root: str, module: str) -> Path | None:
    base = Path(root).joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def constructor_rejects_negatives(root: str, module: str, class_name: str) -> bool:
    """True when the class's __init__ raises under an `if ... < 0` (or `0 > ...`) test: its numbers are >= 0."""
    path = module_file(root, module)
    tree = _tree(path) if path else None
    for node in tree.body if tree else ():
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            init = next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
            return init is not None and any(_raises_on_negative(n) for n in ast.walk(init))
    return False


def _raises_on_negative(node: ast.AST) -> bool:
    if not isinstance(node, ast.If) or not any(isinstance(s, ast.Raise) for s in node.body):
        return False
    for compare in (n for n in ast.walk(node.test) if isinstance(n, ast.Compare) and len(n.ops) == 1):
        left, op, right = compare.left, compare.ops[0], compare.comparators[0]
        if isinstance(op, ast.Lt) and isinstance(right, ast.Constant) and right.value == 0:
            return True
        if isinstance(op, ast.Gt) and isinstance(left, ast.Constant) and left.value == 0:
            return True
    return False


def class_methods(root: str, module: str, class_name: str) -> frozenset[str]:
    """Names the class body defines with `def` (dunders included): `__eq__`, `__lt__`, `__str__`..."""
    path = module_file(root, module)
    tree = _tree(path) if path else None
    for node in tree.body if tree else ():
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            return frozenset(f.name for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)))
    return frozenset()


@functools.lru_cache(maxsize=8)
def _type_variables(root: str, stamp: tuple) -> frozenset[str]:
    found = set()
    for path in _python_files(Path(root)):
        tree = _tree(path)
        for statement in tree.body if tree else ():
            if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call) and \
                    getattr(statement.value.func, "id", getattr(statement.value.func, "attr", "")) == "TypeVar":
                found |= {t.id for t in statement.targets if isinstance(t, ast.Name)}
    return frozenset(found)


def type_variables(root: str) -> frozenset[str]:
    """Names bound to `TypeVar(...)` at module level under SRC: not classes, so never an isinstance() target."""
    return _type_variables(root, _stamp(root))


def _function_at(root: str, file: str, line: int) -> tuple[ast.AST, dict, ast.AST, dict] | None:
    """(owner, the owner's functions by name, the function, the module's functions by name) for the function
    defined at `line` of `file`."""
    tree = _tree(Path(root) / file)
    for owner in ast.walk(tree) if tree else ():
        body = owner.body if isinstance(owner, (ast.Module, ast.ClassDef)) else []
        functions = {f.name: f for f in body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
        for function in functions.values():
            if line in (function.lineno, *(d.lineno for d in function.decorator_list)):
                module = {f.name: f for f in tree.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
                return owner, functions, function, module
    return None


def raised_in_body(root: str, file: str, line: int) -> tuple[str, ...]:
    """Exception class names the function defined at `line` of `file` raises itself (`raise ValueError(...)`), or
    through what it delegates to (one level): a method of its own class it calls as `self.x(...)`/`cls.x(...)`
    (validators), a function of its module it calls by name (`naturaltime` passing its unit to `naturaldelta`)."""
    found = _function_at(root, file, line)
    if found is None:
        return ()
    owner, functions, function, module = found
    names = set(_raised(function)) | _stdlib_raised(function, _tree(Path(root) / file))
    for call in (n for n in ast.walk(function) if isinstance(n, ast.Call)):
        func = call.func
        if isinstance(owner, ast.ClassDef) and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                and func.value.id in ("self", "cls") and func.attr in functions:
            names |= _raised(functions[func.attr])
        elif isinstance(func, ast.Name) and func.id in module and module[func.id] is not function:
            names |= _raised(module[func.id])
    return tuple(sorted(names))


CASE_METHODS = ("upper", "lower", "casefold")


def looked_up_params(root: str, file: str, line: int) -> dict[str, tuple[str, str, bool]]:
    """Parameters the function uses as keys of a module-level name, as (name, case method, per element):
    `Unit[unit.upper()]` gives {"unit": ("Unit", "upper", False)}, `{Unit[s] for s in units}` gives
    {"units": ("Unit", "", True)}; a parameter passed on to a function of the same file that looks it up counts
    too. Only a value among the keys is meant for the function: any other raises KeyError."""
    found = _function_at(root, file, line)
    if found is None:
        return {}
    return _looked_up(found[2], found[3], depth=1)


def indexed_params(root: str, file: str, line: int) -> dict[str, int]:
    """Parameters the function indexes with a constant (`s[0]`, `s[-1]`), as the length that index needs."""
    found = _function_at(root, file, line)
    if found is None:
        return {}
    params = set(_parameter_names(found[2]))
    least: dict[str, int] = {}
    for node in ast.walk(found[2]):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in params:
            index = node.slice
            if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
                index, negative = index.operand, True
            else:
                negative = False
            if isinstance(index, ast.Constant) and type(index.value) is int and index.value < 50:
                need = index.value if negative else index.value + 1
                least[node.value.id] = max(least.get(node.value.id, 0), need)
    return least


def _parameter_names(function: ast.FunctionDef) -> list[str]:
    return [a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)]


def _looked_up(function: ast.FunctionDef, functions: dict, depth: int) -> dict[str, tuple[str, str, bool]]:
    params = set(_parameter_names(function))
    elements = {}  # loop variable -> the parameter it iterates over
    for node in ast.walk(function):
        loops = node.generators if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)) \
            else [node] if isinstance(node, ast.For) else []
        for loop in loops:
            if isinstance(loop.target, ast.Name) and isinstance(loop.iter, ast.Name) and loop.iter.id in params:
                elements[loop.target.id] = loop.iter.id
    keys: dict[str, tuple[str, str, bool]] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id not in params:
            index, case = node.slice, ""
            if isinstance(index, ast.Call) and isinstance(index.func, ast.Attribute) and not index.args and \
                    index.func.attr in CASE_METHODS:
                index, case = index.func.value, index.func.attr
            if isinstance(index, ast.Name) and index.id in params:
                keys.setdefault(index.id, (node.value.id, case, False))
            elif isinstance(index, ast.Name) and index.id in elements:
                keys.setdefault(elements[index.id], (node.value.id, case, True))
        elif depth and isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in functions and functions[node.func.id] is not function:
            callee = functions[node.func.id]
            theirs = _looked_up(callee, functions, depth - 1)
            names = _parameter_names(callee)
            passed = [(names[i] if i < len(names) else "", a) for i, a in enumerate(node.args)]
            passed += [(k.arg or "", k.value) for k in node.keywords]
            for their_name, arg in passed:
                if isinstance(arg, ast.Name) and arg.id in params and their_name in theirs:
                    keys.setdefault(arg.id, theirs[their_name])
    return keys


def _raised(function: ast.AST) -> set[str]:
    names = set()
    for raised in (n for n in ast.walk(function) if isinstance(n, ast.Raise) and n.exc is not None):
        exc = raised.exc.func if isinstance(raised.exc, ast.Call) else raised.exc
        name = exc.id if isinstance(exc, ast.Name) else getattr(exc, "attr", "")
        if name and name[0].isupper() and name != "NotImplementedError":
            names.add(name)
    return names


LITERAL_TYPES = (str, bytes, int, float, type(None))


def literal_results(root: str, file: str, line: int) -> tuple | None:
    """Every value the function can return, when each `return` gives a literal: a constant, a choice between
    literals (`a if c else b`), or a lookup in a literal dict (`{1: "st"}.get(n % 10, "th")`, `{...}[k]`).
    None when any return computes its value, when the function yields, or when fewer than two values are possible."""
    found = _function_at(root, file, line)
    if found is None:
        return None
    function = found[2]
    values: list = []
    for node in _own_nodes(function):
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return None
        if isinstance(node, ast.Return):
            possible = _literal_values(node.value) if node.value is not None else [None]
            if possible is None:
                return None
            values += possible
    if not _always_leaves(function.body):
        values.append(None)  # it can fall off its end
    distinct = list(dict.fromkeys((type(v), v) for v in values))
    if len(distinct) < 2 or all(isinstance(v, bool) or v is None for _, v in distinct):
        return None
    return tuple(v for _, v in distinct)


def _own_nodes(function: ast.AST):
    """The function's nodes in source order, not those of functions, lambdas or classes nested in it."""
    stack = list(reversed(list(ast.iter_child_nodes(function))))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _literal_values(node: ast.expr) -> list | None:
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, LITERAL_TYPES) and not (isinstance(value, float) and value != value):
            return [value]
        return None
    if isinstance(node, ast.IfExp):
        body, orelse = _literal_values(node.body), _literal_values(node.orelse)
        return None if body is None or orelse is None else body + orelse
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and \
            isinstance(node.func.value, ast.Dict) and len(node.args) == 2 and not node.keywords:
        table, default = _dict_values(node.func.value), _literal_values(node.args[1])
        return None if table is None or default is None else table + default
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Dict):
        return _dict_values(node.value)
    return None


def _dict_values(table: ast.Dict) -> list | None:
    if any(key is None for key in table.keys):  # `**other` merges values we cannot see
        return None
    values: list = []
    for value in table.values:
        literal = _literal_values(value)
        if literal is None:
            return None
        values += literal
    return values


def _always_leaves(body: list[ast.stmt]) -> bool:
    """True when running `body` always ends in a return or a raise."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return _always_leaves(last.body) and _always_leaves(last.orelse)
    if isinstance(last, (ast.With, ast.AsyncWith)):
        return _always_leaves(last.body)
    return False


def absolute_params(root: str, file: str, line: int) -> frozenset[str]:
    """Parameters whose first use rebinds them to an absolute value of themselves (`n = abs(int(n))`): the
    function cannot tell `n` from `-n`."""
    found = _function_at(root, file, line)
    if found is None:
        return frozenset()
    function = found[2]
    params = set(_parameter_names(function))
    seen: set[str] = set()
    absolute: set[str] = set()
    for statement in function.body:
        used = {n.id for n in ast.walk(statement) if isinstance(n, ast.Name)} & params
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and \
                isinstance(statement.targets[0], ast.Name) and statement.targets[0].id in params - seen:
            name, value = statement.targets[0].id, statement.value
            inner = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)} & params
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "abs" and \
                    inner == {name}:
                absolute.add(name)
        seen |= used
    return frozenset(absolute)


LAZY_CALLS = frozenset({
    "map", "filter", "zip", "iter", "reversed", "enumerate",
    "islice", "chain", "from_iterable", "repeat", "cycle", "count", "starmap", "compress", "takewhile", "dropwhile",
    "groupby", "zip_longest", "accumulate", "product", "permutations", "combinations",
    "combinations_with_replacement", "pairwise", "batched", "filterfalse", "tee"})


def returns_iterator(root: str, file: str, line: int) -> bool:
    """True when the function is a generator, or every `return` gives a lazy iterator (`map(...)`, a generator
    expression, an itertools call, or what a generator function of the same module returns): its result must be
    materialised before it is compared, and can be consumed only once."""
    found = _function_at(root, file, line)
    if found is None:
        return False
    function, module = found[2], found[3]
    own = list(_own_nodes(function))
    if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in own):
        return True
    returns = [n.value for n in own if isinstance(n, ast.Return)]
    return bool(returns) and all(_is_lazy(value, module) for value in returns)


def _is_lazy(value: ast.expr | None, module: dict) -> bool:
    if isinstance(value, ast.GeneratorExp):
        return True
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    if name in LAZY_CALLS:
        return True
    callee = module.get(name) if isinstance(func, ast.Name) else None
    return callee is not None and any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in _own_nodes(callee))


@dataclass(frozen=True)
class StubSignature:
    """A function's annotations as a `.pyi` stub beside its module declares them (more-itertools, for one, keeps
    every annotation there)."""

    params: dict[str, str]
    returns: str | None
    type_variables: dict[str, str]  # TypeVar of the stub -> the one type that stands for it (its first constraint)


def stub_signature(root: str, file: str, qualname: str) -> StubSignature | None:
    """The signature of `qualname` in the stub beside `file`, when it declares it once (not `@overload`ed)."""
    stub = _tree((Path(root) / file).with_suffix(".pyi"))
    if stub is None:
        return None
    body: list[ast.stmt] = stub.body
    *owners, name = qualname.split(".")
    for owner in owners:
        body = next((n.body for n in body if isinstance(n, ast.ClassDef) and n.name == owner), [])
    defined = [n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]
    if len(defined) != 1 or any(ast.unparse(d).endswith("overload") for d in defined[0].decorator_list):
        return None
    function = defined[0]
    arguments = (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)
    typevars = {t.id: _stands_for(s.value) for s in stub.body if isinstance(s, ast.Assign) and
                isinstance(s.value, ast.Call) and getattr(s.value.func, "id", "") == "TypeVar"
                for t in s.targets if isinstance(t, ast.Name)}
    return StubSignature({a.arg: ast.unparse(a.annotation) for a in arguments if a.annotation is not None},
                         ast.unparse(function.returns) if function.returns is not None else None, typevars)


STANDS_IN = ("int", "float", "str", "bytes", "Decimal", "Fraction")


def _stands_for(typevar: ast.Call) -> str:
    """`TypeVar("N", float, Decimal)` -> "float", `TypeVar("S", bound=str)` -> "str", an open one -> "int"."""
    options = [ast.unparse(a) for a in typevar.args[1:]] + [ast.unparse(k.value) for k in typevar.keywords
                                                            if k.arg == "bound"]
    first = options[0].strip("'\"") if options else ""
    return first if first in STANDS_IN else "int"


# What well-known standard-library calls raise for arguments outside their domain (their documentation says so):
# `random.sample(pool, r)` with r > len(pool) is a ValueError of the target as much as one it raises itself.
STDLIB_RAISES = {
    ("random", "sample"): "ValueError", ("random", "randrange"): "ValueError", ("random", "randint"): "ValueError",
    ("random", "choice"): "IndexError", ("math", "sqrt"): "ValueError", ("math", "log"): "ValueError",
    ("math", "isqrt"): "ValueError", ("math", "comb"): "ValueError", ("math", "perm"): "ValueError",
    ("math", "factorial"): "ValueError",
}


def _stdlib_raised(function: ast.AST, tree: ast.Module | None) -> set[str]:
    """Errors of the STDLIB_RAISES calls in the function, called as `random.sample` or imported by name."""
    imported = {}
    for node in tree.body if tree else ():
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            imported.update({a.asname or a.name: (node.module, a.name) for a in node.names})
        elif isinstance(node, ast.Import):
            imported.update({a.asname or a.name: (a.name, "") for a in node.names})
    raised = set()
    for call in (n for n in _own_nodes(function) if isinstance(n, ast.Call)):
        func = call.func
        if isinstance(func, ast.Name) and func.id in imported:
            key = imported[func.id]
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in imported:
            key = (imported[func.value.id][0], func.attr)
        else:
            continue
        if key in STDLIB_RAISES:
            raised.add(STDLIB_RAISES[key])
    return raised


def compared_choices(root: str, file: str, line: int) -> dict[str, tuple[str, ...]]:
    """Text parameters the body tells apart by comparing them with two or more string literals (`==`, `in (...)`,
    `match`/`case`) in a function that raises: the values it accepts. grouper's `incomplete` is 'fill', 'strict'
    or 'ignore'; anything else is a ValueError."""
    found = _function_at(root, file, line)
    if found is None:
        return {}
    function = found[2]
    own = list(_own_nodes(function))
    if not any(isinstance(n, ast.Raise) for n in own):
        return {}
    params = set(_parameter_names(function))
    choices: dict[str, list[str]] = {}
    for node in own:
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and \
                isinstance(node.ops[0], (ast.Eq, ast.NotEq, ast.In, ast.NotIn)):
            for side, other in ((node.left, node.comparators[0]), (node.comparators[0], node.left)):
                if isinstance(side, ast.Name) and side.id in params:
                    choices.setdefault(side.id, []).extend(_strings(other))
        elif isinstance(node, ast.Match) and isinstance(node.subject, ast.Name) and node.subject.id in params:
            for pattern in (p for case in node.cases for p in ast.walk(case.pattern) if isinstance(p, ast.MatchValue)):
                choices.setdefault(node.subject.id, []).extend(_strings(pattern.value))
    distinct = {name: tuple(dict.fromkeys(values)) for name, values in choices.items()}
    return {name: values for name, values in distinct.items() if len(values) >= 2}


def _strings(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []
