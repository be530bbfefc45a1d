"""What a target's own source says, read with `ast` (never imported): does it yield, which leading
`if <condition>: raise E` guards it has, the literal calls in its docstring's examples, the module's type aliases.

Everything here is evidence for the heuristic; a file that cannot be read or parsed gives no evidence, never an error.
"""

from __future__ import annotations

import ast
import builtins
import functools
import re
from dataclasses import dataclass
from pathlib import Path

from drafter.data import Extraction, Target

ITERATOR_CALLS = {"map", "filter", "zip", "iter", "reversed", "enumerate", "chain", "islice", "starmap", "groupby",
                  "accumulate", "product", "permutations", "combinations", "cycle", "repeat", "count",
                  "takewhile", "dropwhile", "zip_longest", "tee", "compress", "filterfalse"}
ITERATOR_ANNOTATIONS = {"Iterator", "Generator", "Iterable", "AsyncIterator", "AsyncGenerator"}
GUARD_NAMES = frozenset(dir(builtins))  # len, isinstance, ... may appear in a guard's condition


@dataclass(frozen=True)
class Guard:
    """A leading `if condition: raise error` of the body, the condition only over parameters and builtins."""

    condition: str  # source text, over the parameter names
    error: str  # the exception class name as the body spells it
    names: tuple[str, ...]  # parameters the condition reads


@dataclass(frozen=True)
class Facts:
    yields: bool = False  # a generator function: its result must be materialised before comparing
    returns_iterator: bool = False  # returns map()/filter()/a generator expression...
    guards: tuple[Guard, ...] = ()
    example_args: tuple[dict[str, object], ...] = ()  # literal arguments of the docstring's `>>>` calls, by name
    mutates: frozenset[str] = frozenset()  # parameters the body changes in place (`x.append`, `x[i] = ...`)
    owner_methods: frozenset[str] = frozenset()  # every method the owner class defines, dunders included

    @property
    def lazy(self) -> bool:
        return self.yields or self.returns_iterator


@functools.lru_cache(maxsize=64)
def _tree(path: str) -> ast.Module | None:
    try:
        return ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None


def function_node(extraction: Extraction, target: Target) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    tree = _tree(str(Path(extraction.root) / target.file))
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == target.name:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if first <= target.line <= node.lineno:
                return node
    return None


def facts_of(extraction: Extraction, target: Target) -> Facts:
    node = function_node(extraction, target)
    examples = tuple(example_calls(target.docstring or "", target))
    if node is None:
        return Facts(example_args=examples)
    own = list(_own_nodes(node))
    yields = any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in own)
    returns_iterator = any(isinstance(n, ast.Return) and n.value is not None and _lazy_value(n.value) for n in own)
    returns_iterator |= _head(node.returns) in ITERATOR_ANNOTATIONS
    params = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
    return Facts(yields, returns_iterator, tuple(_guards(node, params)), examples, frozenset(_mutated(own, params)),
                 frozenset(_owner_methods(extraction, target, node)))


def _owner_methods(extraction: Extraction, target: Target, node: ast.AST) -> set[str]:
    tree = _tree(str(Path(extraction.root) / target.file))
    for cls in ast.walk(tree) if target.owner and tree else ():
        if isinstance(cls, ast.ClassDef) and cls.name == target.owner.rsplit(".", 1)[-1] and node in cls.body:
            return {n.name for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return set()


def _own_nodes(node: ast.AST):
    """Nodes of the function's body, not of functions, lambdas or classes nested in it."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        yield child
        yield from _own_nodes(child)


def _lazy_value(value: ast.expr) -> bool:
    if isinstance(value, ast.GeneratorExp):
        return True
    if isinstance(value, ast.Call):
        func = value.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        return name in ITERATOR_CALLS
    return False


def _head(annotation: ast.expr | None) -> str:
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return ""
    if isinstance(annotation, ast.Subscript):
        annotation = annotation.value
    if isinstance(annotation, ast.Attribute):
        return annotation.attr
    return annotation.id if isinstance(annotation, ast.Name) else ""


def _guards(node: ast.FunctionDef | ast.AsyncFunctionDef, params: set[str]) -> list[Guard]:
    """The guards at the top of the body, before any other statement runs (a docstring may precede them)."""
    found = []
    body = list(node.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    for statement in body:
        if not (isinstance(statement, ast.If) and not statement.orelse and len(statement.body) == 1
                and isinstance(statement.body[0], ast.Raise)):
            break
        error = _raised(statement.body[0])
        names = {n.id for n in ast.walk(statement.test) if isinstance(n, ast.Name)}
        calls_ok = all(isinstance(c.func, ast.Name) and c.func.id in ("len", "isinstance", "abs", "int", "str", "float",
                                                                      "bool", "type", "callable")
                       for c in ast.walk(statement.test) if isinstance(c, ast.Call))
        read = names & params
        if error is None or not read or not calls_ok or not names <= params | GUARD_NAMES:
            break  # a condition on state we cannot generate: later guards may depend on it too
        found.append(Guard(ast.unparse(statement.test), error, tuple(sorted(read))))
    return found


def _raised(statement: ast.Raise) -> str | None:
    exc = statement.exc
    if isinstance(exc, ast.Call):
        exc = exc.func
    if isinstance(exc, ast.Name) and exc.id[:1].isupper():
        return exc.id
    return None


def _mutated(own: list[ast.AST], params: set[str]) -> set[str]:
    changed = set()
    for n in own:
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name):
            if n.func.attr in ("append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update",
                               "add", "discard", "setdefault", "popitem") and n.func.value.id in params:
                changed.add(n.func.value.id)
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.Delete)):
            for t in (n.targets if isinstance(n, (ast.Assign, ast.Delete)) else [n.target]):
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in params:
                    changed.add(t.value.id)
    return changed


# ------------------------------------------------------------------ docstring examples


def example_calls(docstring: str, target: Target) -> list[dict[str, object]]:
    """Literal arguments of `>>> name(...)` lines, mapped to parameter names; outputs are never read."""
    positional = [p.name for p in target.params if p.kind in ("positional_only", "positional_or_keyword")]
    if target.owner and positional and positional[0] in ("self", "cls"):
        positional = positional[1:]
    found = []
    for line in re.findall(r"^\s*>>>\s*(.+)$", docstring, flags=re.MULTILINE):
        try:
            expr = ast.parse(line.strip(), mode="eval").body
        except SyntaxError:
            continue
        for call in ast.walk(expr):
            if not (isinstance(call, ast.Call) and _callee(call.func) == target.name):
                continue
            args: dict[str, object] = {}
            try:
                for name, value in zip(positional, call.args):
                    args[name] = ast.literal_eval(value)
                for keyword in call.keywords:
                    if keyword.arg:
                        args[keyword.arg] = ast.literal_eval(keyword.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
            if len(call.args) <= len(positional):
                found.append(args)
    return found


def _callee(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


# ------------------------------------------------------------------ type aliases


@functools.lru_cache(maxsize=16)
def _aliases_under(root: str, files: tuple[str, ...]) -> dict[str, str]:
    aliases: dict[str, str] = {}
    for rel in files:
        tree = _tree(str(Path(root) / rel))
        for statement in tree.body if tree else ():
            value, name = None, None
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
                name, value = statement.targets[0].id, statement.value
            elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value:
                if _head(statement.annotation) == "TypeAlias":
                    name, value = statement.target.id, statement.value
            elif isinstance(statement, getattr(ast, "TypeAlias", ())):
                name, value = statement.name.id, statement.value
            if name and value is not None and _looks_like_type(value):
                aliases.setdefault(name, ast.unparse(value))
    return aliases


def type_aliases(extraction: Extraction) -> dict[str, str]:
    """`String -> Union[str, bytes]` for module-level aliases anywhere in SRC (first definition wins)."""
    files = tuple(sorted({t.file for t in extraction.targets}))
    return _aliases_under(extraction.root, files)


TYPE_HEADS = {"Union", "Optional", "List", "Dict", "Tuple", "Set", "FrozenSet", "Sequence", "Mapping", "Iterable",
              "list", "dict", "tuple", "set", "frozenset", "Literal"}


def _looks_like_type(value: ast.expr) -> bool:
    if isinstance(value, ast.Subscript):
        return _head(value) in TYPE_HEADS
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.BitOr):
        return _looks_like_type(value.left) or _looks_like_type(value.right)
    return isinstance(value, ast.Name) and value.id in ("str", "int", "float", "bytes", "bool")


# ------------------------------------------------------------------ constructors


def nonnegative_fields(extraction: Extraction, module: str, class_name: str) -> frozenset[str]:
    """Names an `__init__` rejects when negative (`if x < 0: raise`), anywhere in its body; "*" when the compared
    name is not a parameter (a loop over the fields), so every numeric field is kept at 0 or above."""
    files = sorted({t.file for t in extraction.targets if t.module == module})
    for rel in files:
        tree = _tree(str(Path(extraction.root) / rel))
        for cls in ast.walk(tree) if tree else ():
            if not (isinstance(cls, ast.ClassDef) and cls.name == class_name):
                continue
            init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
            if init is None:
                return frozenset()
            params = {a.arg for a in (*init.args.args, *init.args.kwonlyargs)}
            found = set()
            for node in ast.walk(init):
                if isinstance(node, ast.If) and any(isinstance(s, ast.Raise) for s in node.body):
                    for test in ast.walk(node.test):
                        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name) \
                                and isinstance(test.ops[0], ast.Lt) and isinstance(test.comparators[0], ast.Constant) \
                                and test.comparators[0].value == 0:
                            found.add(test.left.id if test.left.id in params else "*")
            return frozenset(found)
    return frozenset()
