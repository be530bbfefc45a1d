"""Static checks on parsed candidates. One small function per reason code; the first failing rule rejects."""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
import io
import keyword
import re._parser as sre_parse
import textwrap
import tokenize
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import hypothesis.strategies

from drafter import allowed
from drafter.data import Candidate, Drafted, Extraction, Target, Verdict
from drafter.dependence import TargetUse, dotted, is_pytest_raises
from drafter.limits import MAX_AST_DEPTH, MAX_FIELD_CHARS

Problem = str | None


@dataclass(frozen=True)
class Parsed:
    """A candidate's fields as syntax trees, with the facts several rules need."""

    candidate: Candidate
    target: Target
    inputs: dict[str, ast.expr]
    assume: tuple[ast.expr, ...]
    body: ast.Module
    allowed_names: frozenset[str]
    corpus: tuple[str, ...]

    def fields(self) -> Iterator[tuple[str, ast.AST]]:
        """(label, tree) for every field, labels naming the field in details."""
        for key, tree in self.inputs.items():
            yield f"inputs[{key!r}]", tree
        for i, tree in enumerate(self.assume):
            yield f"assume[{i}]", tree
        yield "body", self.body

    @functools.cached_property
    def _locals(self) -> dict[str, set[str]]:
        return {
            label: bound_names(tree) | (set() if label.startswith("inputs") else set(self.inputs))
            for label, tree in self.fields()
        }

    def local(self, label: str) -> set[str]:
        """Names defined for one field: the inputs (except inside strategies) and what the field binds itself."""
        return self._locals[label]

    def nodes(self) -> Iterator[tuple[str, ast.AST]]:
        for label, tree in self.fields():
            for node in ast.walk(tree):
                yield label, node


def lint(drafted: Sequence[Drafted], target: Target, extraction: Extraction) -> list[Drafted]:
    """Check every candidate accepted so far; verdicts get stage "lint". Others pass through unchanged."""
    out: list[Drafted] = []
    accepted_keys: set[str] = set()
    for item in drafted:
        if item.candidate is None or not item.verdict.accepted:
            out.append(item)
            continue
        verdict = check(item.candidate, target, extraction, accepted_keys)
        out.append(dataclasses.replace(item, verdict=verdict))
    return out


def check(candidate: Candidate, target: Target, extraction: Extraction, accepted_keys: set[str]) -> Verdict:
    parsed, problem = parse_fields(candidate, target, extraction)
    if parsed is None:
        return Verdict("lint", False, "syntax", problem or "")
    for reason, rule in RULES:
        problem = rule(parsed)
        if problem:
            return Verdict("lint", False, reason, problem)
    key = normal_form(parsed)
    if key in accepted_keys:
        return Verdict("lint", False, "duplicate", "same inputs, assumptions and body as an earlier candidate of this target")
    accepted_keys.add(key)
    return Verdict("lint", True)


# ---------------------------------------------------------------- syntax


def parse_fields(candidate: Candidate, target: Target, extraction: Extraction) -> tuple[Parsed | None, str]:
    try:
        inputs = {key: parse_expression(code, f"inputs[{key!r}]") for key, code in candidate.inputs.items()}
        assume = tuple(parse_expression(code, f"assume[{i}]") for i, code in enumerate(candidate.assume))
        body = parse_statements(candidate.body, "body")
    except SyntaxError as error:
        return None, str(error)
    names = allowed.target_names(extraction.module_names.get(target.module, ()), target.name, target.owner)
    return Parsed(candidate, target, inputs, assume, body, names, extraction.corpus), ""


def parse_expression(code: str, label: str) -> ast.expr:
    try:
        return bounded_tree(code, label, ast.parse(_bounded_text(code, label).strip(), mode="eval")).body
    except _OverBounds:
        raise
    except SyntaxError as error:
        raise SyntaxError(f"{label} is not a Python expression: {error.msg} (line {error.lineno}): {code!r}") from None
    except (RecursionError, MemoryError):
        raise _OverBounds(f"{label} is nested too deeply for the parser") from None


def parse_statements(code: str, label: str) -> ast.Module:
    try:
        return bounded_tree(code, label, ast.parse(dedent(_bounded_text(code, label))))
    except _OverBounds:
        raise
    except SyntaxError as error:
        raise SyntaxError(f"{label} does not parse: {error.msg} (line {error.lineno})") from None
    except (RecursionError, MemoryError):
        raise _OverBounds(f"{label} is nested too deeply for the parser") from None


class _OverBounds(SyntaxError):
    """A field past one of drafter/limits.py's bounds: rejected as syntax, with the bound named."""


def _bounded_text(code: str, label: str) -> str:
    if len(code) > MAX_FIELD_CHARS:
        raise _OverBounds(f"{label} is {len(code):,} characters (the limit is {MAX_FIELD_CHARS:,})")
    return code


def bounded_tree(code: str, label: str, tree: ast.AST) -> ast.AST:
    """The tree, unless it is deeper than later stages (recursive visitors, libcst) can walk safely."""
    pending = [(tree, 1)]
    while pending:
        node, depth = pending.pop()
        if depth > MAX_AST_DEPTH:
            raise _OverBounds(f"{label} nests more than {MAX_AST_DEPTH} levels deep")
        pending.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return tree


def dedent(code: str) -> str:
    return textwrap.dedent(code).strip("\n")


# ---------------------------------------------------------------- helpers


def strategy_name(node: ast.AST) -> str | None:
    """`text` for a call `st.text(...)`."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if isinstance(node.func.value, ast.Name) and node.func.value.id == "st":
            return node.func.attr
    return None


def bound_names(tree: ast.AST) -> set[str]:
    """Names a tree binds anywhere: assignments, loop/with/except targets, comprehensions, lambdas, defs."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            names.add(node.name)
    return names


def loaded_names(tree: ast.AST) -> Iterator[ast.Name]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            yield node


def assertions(body: ast.AST) -> Iterator[tuple[ast.AST, ast.expr | None]]:
    """(statement, tested expression) for every assertion: `assert`, `raise AssertionError`, `with pytest.raises`."""
    for node in ast.walk(body):
        if isinstance(node, ast.Assert):
            yield node, node.test
        elif isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if dotted(exc) == "AssertionError":
                yield node, None
        elif isinstance(node, ast.With) and any(is_pytest_raises(i.context_expr) for i in node.items):
            yield node, None


# ---------------------------------------------------------------- placeholder


def placeholder(p: Parsed) -> Problem:
    for label, node in p.nodes():
        if strategy_name(node) == "nothing":
            return f"{label} uses st.nothing(): no value is ever generated"
        if isinstance(node, ast.Constant) and node.value is Ellipsis:
            return f"{label} contains `...` as a placeholder"
    statements = [s for s in p.body.body if not is_docstring(s)]
    if all(isinstance(s, ast.Pass) for s in statements):
        return "body is empty or only `pass`"
    texts = [(f"inputs[{k!r}]", v) for k, v in p.candidate.inputs.items()]
    texts += [(f"assume[{i}]", a) for i, a in enumerate(p.candidate.assume)] + [("body", p.candidate.body)]
    for label, code in texts:
        word = todo_word(code)
        if word:
            return f"{label} contains {word}: the candidate is unfinished"
    return None


def is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant) and isinstance(statement.value.value, str)


def todo_word(code: str) -> str | None:
    """TODO/FIXME in a comment, string or name of the code (tokens, not text search)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(dedent(code)).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    for token in tokens:
        if token.type in (tokenize.COMMENT, tokenize.STRING, tokenize.NAME):
            for word in ("TODO", "FIXME"):
                if word in token.string:
                    return word
    return None


# ---------------------------------------------------------------- golden


def golden(p: Parsed) -> Problem:
    for label, node in p.nodes():
        if isinstance(node, ast.Name) and node.id in allowed.GOLDEN_NAMES and node.id not in p.local(label):
            return f"{label} names {node.id!r}: candidates never read files, fixtures or golden data"
        if isinstance(node, ast.Attribute):
            if node.attr in allowed.GOLDEN_ATTRS:
                return f"{label} calls .{node.attr}: candidates never read files"
            if dotted(node) in {f"json.{n}" for n in allowed.GOLDEN_JSON_LOADERS}:
                return f"{label} calls {dotted(node)}: candidates never load recorded JSON"
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            for name in p.corpus:
                if name in node.value or name.rsplit("/", 1)[-1] in node.value:
                    return f"{label} mentions corpus file {name!r}: the corpus is never read into a candidate"
    return None


# ---------------------------------------------------------------- forbidden_name


def forbidden_name(p: Parsed) -> Problem:
    for label, node in p.nodes():
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return f"{label} has an import statement: the renderer adds the imports"
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return f"{label} declares global/nonlocal names"
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in p.local(label):
            problem = forbidden_bare(node.id, p)
            if problem:
                return f"{label}: {problem}"
        if isinstance(node, ast.Attribute):
            problem = forbidden_attribute(node)
            if problem:
                return f"{label}: {problem}"
        if isinstance(node, ast.Call) and dotted(node.func) in ("getattr", "hasattr"):
            strings = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if any(s.startswith("__") for s in strings):
                return f"{label}: {dotted(node.func)} of a dunder attribute"
    for key in p.inputs:
        if key.startswith("__"):
            return f"inputs[{key!r}]: dunder names are forbidden"
    return None


def forbidden_bare(name: str, p: Parsed) -> str | None:
    if name in p.allowed_names:
        return None
    if name in allowed.FORBIDDEN_BUILTINS:
        return f"{name!r} is a forbidden builtin"
    if name.startswith("__"):
        return f"{name!r}: dunder names are forbidden"
    if name in allowed.FORBIDDEN_MODULES and name not in allowed.STDLIB_BARE_NAMES:
        return f"{name!r} is not one of the allowed modules ({', '.join(allowed.PURE_STDLIB)})"
    return None


def forbidden_attribute(node: ast.Attribute) -> str | None:
    if node.attr.startswith("__"):
        return f"dunder attribute .{node.attr} is forbidden"
    base = node.value.id if isinstance(node.value, ast.Name) else None
    if base == "st" and node.attr not in allowed.STRATEGY_NAMES:
        return f"st.{node.attr} is not a Hypothesis strategy"
    if base == "pytest" and node.attr not in allowed.PYTEST_ATTRS:
        return f"pytest.{node.attr} is not allowed (only {', '.join(sorted(allowed.PYTEST_ATTRS))})"
    return None


# ---------------------------------------------------------------- unknown_name / shadowing


def unknown_name(p: Parsed) -> Problem:
    """Inputs are free variables of any name; only a name that is bound nowhere and allowed nowhere is an error."""
    known = known_names(p)
    for label, tree in p.fields():
        local = p.local(label)
        for node in loaded_names(tree):
            if node.id not in known and node.id not in local:
                return f"{label} uses {node.id!r}, which is defined nowhere (not an input, not bound in the body, not allowed)"
    return None


def known_names(p: Parsed) -> set[str]:
    return (
        set(p.allowed_names) | allowed.ALLOWED_BUILTINS | set(allowed.HYPOTHESIS_NAMES)
        | set(allowed.PURE_STDLIB) | set(allowed.STDLIB_BARE_NAMES) | {"pytest"}
    )


def shadowing(p: Parsed) -> Problem:
    """An input may take any name except one the test function also needs in its other meaning."""
    # Strategies run at module level, where an input name hides nothing; only the test function's own code counts.
    inside = [node for label, node in p.nodes() if not label.startswith("inputs")]
    called = {dotted(node.func) for node in inside if isinstance(node, ast.Call)} | ({"assume"} if p.assume else set())
    module_uses = {dotted(node.value) for node in inside if isinstance(node, ast.Attribute) and is_module_attribute(node)}
    known = known_names(p)
    for key in p.inputs:
        if not key.isidentifier() or keyword.iskeyword(key):
            return f"inputs[{key!r}] is not a Python identifier"
        if p.target.owner is None and key == p.target.name:
            return f"inputs[{key!r}] would hide the target {p.target.qualname} itself"
        if key in known and key in called:
            return f"inputs[{key!r}] would hide {key!r}, which the candidate also calls"
        if key in module_uses:
            return f"inputs[{key!r}] would hide the module {key!r}, whose attributes the candidate also uses"
    return None


MODULES = {"st": hypothesis.strategies, "pytest": None, **{name: importlib.import_module(name) for name in allowed.PURE_STDLIB}}


def is_module_attribute(node: ast.Attribute) -> bool:
    """`math.floor`, `st.integers`, `pytest.raises`: an attribute that the module of that name really has."""
    base = dotted(node.value)
    if base not in MODULES:
        return False
    module = MODULES[base]
    return node.attr in allowed.PYTEST_ATTRS if module is None else hasattr(module, node.attr)


# ---------------------------------------------------------------- unbounded


def unbounded(p: Parsed) -> Problem:
    for label, node in p.nodes():
        name = strategy_name(node)
        if name is None:
            continue
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        if name in allowed.SIZED_STRATEGIES:
            problem = size_problem(name, keywords.get("max_size"))
        elif name == "from_regex":
            problem = regex_problem(node, keywords)
        elif name == "recursive":
            problem = None if "max_leaves" in keywords else "st.recursive(...) without max_leaves"
        else:
            problem = None
        if problem:
            return f"{label}: {problem}"
    return None


def size_problem(name: str, max_size: ast.expr | None) -> str | None:
    if max_size is None:
        return f"st.{name}(...) without max_size"
    if not (isinstance(max_size, ast.Constant) and type(max_size.value) is int):
        return f"st.{name}(...) max_size must be a literal int"
    if max_size.value > allowed.MAX_COLLECTION_SIZE:
        return f"st.{name}(...) max_size={max_size.value} is above the cap {allowed.MAX_COLLECTION_SIZE}"
    return None


def regex_problem(node: ast.Call, keywords: dict[str, ast.expr]) -> str | None:
    fullmatch = keywords.get("fullmatch")
    if not (isinstance(fullmatch, ast.Constant) and fullmatch.value is True):
        return "st.from_regex(...) without fullmatch=True generates unbounded text around the match"
    pattern = node.args[0] if node.args else keywords.get("regex")
    if not (isinstance(pattern, ast.Constant) and isinstance(pattern.value, str)):
        return "st.from_regex(...) needs a literal pattern"
    try:
        _, widest = sre_parse.parse(pattern.value).getwidth()
    except Exception as error:  # re's own parser: any failure means a bad pattern
        return f"st.from_regex pattern does not compile: {error}"
    if widest > allowed.MAX_COLLECTION_SIZE:
        return f"st.from_regex pattern {pattern.value!r} matches strings longer than {allowed.MAX_COLLECTION_SIZE}"
    return None


# ---------------------------------------------------------------- swallowed


BROAD = {"Exception", "BaseException", "AssertionError"}


def swallowed(p: Parsed) -> Problem:
    for node in ast.walk(p.body):
        if isinstance(node, ast.ExceptHandler):
            if node.type is None:
                return "body has a bare `except:`; catch the specific error of the contract"
            broad = caught_broad(node.type)
            if broad:
                return f"body catches {broad}; that hides the failures the candidate exists to show"
        if is_pytest_raises(node) and node.args:
            broad = caught_broad(node.args[0])
            if broad:
                return f"body expects pytest.raises({broad}); name the specific error of the contract"
    return None


def caught_broad(node: ast.expr) -> str | None:
    names = node.elts if isinstance(node, ast.Tuple) else [node]
    for name in names:
        text = dotted(name)
        if text and text.rsplit(".", 1)[-1] in BROAD:
            return text
    return None


# ---------------------------------------------------------------- no_assertion


def no_assertion(p: Parsed) -> Problem:
    if next(assertions(p.body), None) is None:
        return "body has no assert (nor `raise AssertionError`, nor `with pytest.raises`)"
    return None


# ---------------------------------------------------------------- tautology


def trivially_true(test: ast.expr) -> str | None:
    if isinstance(test, ast.Constant) and test.value:
        return f"`assert {ast.unparse(test)}` is always true"
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right = test.left, test.comparators[0]
        if isinstance(test.ops[0], (ast.Eq, ast.Is, ast.LtE, ast.GtE)) and ast.dump(left) == ast.dump(right):
            return f"`{ast.unparse(test)}` compares a value with itself"
    if isinstance(test, ast.Call) and dotted(test.func) == "isinstance" and len(test.args) == 2:
        if dotted(test.args[1]) == "object":
            return f"`{ast.unparse(test)}` is true of every value"
    return None


def tautology(p: Parsed) -> Problem:
    """Only what is certain statically; whether an assertion really depends on the target is sabotage's question."""
    for _, test in assertions(p.body):
        problem = trivially_true(test) if test is not None else None
        if problem:
            return problem
    if not TargetUse(p.target, p.body).mentions(p.body):
        return f"the body never calls {p.target.qualname}: it holds whatever the target does"
    return None


# ---------------------------------------------------------------- literal_expected


def literal_value(node: ast.expr) -> tuple[bool, object]:
    """(is a literal, its value) for constants, signed numbers, literal containers and Decimal('…')/Fraction(…)."""
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    if isinstance(node, ast.Call) and dotted(node.func) in ("Decimal", "decimal.Decimal", "Fraction", "fractions.Fraction"):
        ok = all(literal_value(a)[0] for a in node.args) and not node.keywords
        if ok:
            try:
                values = [ast.literal_eval(a) for a in node.args]
                make = Decimal if "Decimal" in dotted(node.func) else Fraction
                return True, make(*values)
            except Exception:  # a bad literal is still a recorded literal, not a trivial one
                return True, node
    if isinstance(node, ast.JoinedStr) and all(isinstance(v, ast.Constant) for v in node.values):
        return True, "".join(v.value for v in node.values)
    return False, None


def is_trivial(value: object) -> bool:
    if isinstance(value, (list, tuple, set, dict, frozenset, str, bytes)) and len(value) == 0:
        return True
    return any(type(value) is type(t) and value == t for t in allowed.TRIVIAL_LITERALS) or (
        isinstance(value, (int, float, Decimal, Fraction)) and not isinstance(value, bool) and value in (0, 1, -1)
    )


def asserted_parts(test: ast.expr) -> Iterator[ast.expr]:
    """The conditions an assertion states (through and/or/not/if-else), not filters inside calls or comprehensions."""
    if isinstance(test, ast.BoolOp):
        for value in test.values:
            yield from asserted_parts(value)
    elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        yield from asserted_parts(test.operand)
    elif isinstance(test, ast.IfExp):
        yield from asserted_parts(test.body)
        yield from asserted_parts(test.orelse)
    else:
        yield test


def recorded_literal(part: ast.expr, use: TargetUse) -> ast.expr | None:
    """The non-trivial literal that `part` says a target result equals (or differs from), if it says that."""
    if not isinstance(part, ast.Compare):
        return None
    operands = [part.left, *part.comparators]
    for op, left, right in zip(part.ops, operands, operands[1:]):
        if isinstance(op, (ast.Eq, ast.NotEq)):
            for result, other in ((left, right), (right, left)):
                is_literal, value = literal_value(other)
                if is_literal and not is_trivial(value) and use.refers(result):
                    return other
    return None


def literal_expected(p: Parsed) -> Problem:
    """Rejected only when every assertion that depends on the target compares it with a recorded literal: shape
    checks such as `len(out) == 3` beside a relation stay."""
    use = TargetUse(p.target, p.body)
    guarded = use.guarded(p.body)
    first: tuple[ast.expr, ast.expr] | None = None
    for statement, test in assertions(p.body):
        if not ((test is not None and use.refers(test)) or id(statement) in guarded):
            continue
        parts = [part for part in asserted_parts(test) if use.refers(part)] if test is not None else []
        literals = [recorded_literal(part, use) for part in parts]
        if not parts or None in literals:
            return None  # this assertion states a relation (or an error contract)
        first = first or (parts[0], literals[0])
    if first is None:
        return None
    part, literal = first
    return (
        f"every assertion on {p.target.qualname} compares a result with a recorded value (`{ast.unparse(part)}` "
        f"against {ast.unparse(literal)}); state a relation that holds for every generated input"
    )


# ---------------------------------------------------------------- duplicate


def normal_form(p: Parsed) -> str:
    inputs = sorted((key, ast.dump(tree)) for key, tree in p.inputs.items())
    return repr((inputs, [ast.dump(a) for a in p.assume], ast.dump(p.body)))


RULES: tuple[tuple[str, Callable[[Parsed], Problem]], ...] = (
    ("placeholder", placeholder),
    ("golden", golden),
    ("forbidden_name", forbidden_name),
    ("unknown_name", unknown_name),
    ("shadowing", shadowing),
    ("unbounded", unbounded),
    ("swallowed", swallowed),
    ("no_assertion", no_assertion),
    ("tautology", tautology),
    ("literal_expected", literal_expected),
)

REASONS = ("syntax", *(reason for reason, _ in RULES), "duplicate")
