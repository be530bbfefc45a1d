"""Mutants of one target: every operator over the target's function only, trivially equivalent ones dropped."""

from __future__ import annotations

import ast
import dataclasses
import difflib
import functools
import itertools
import re
import types
from collections.abc import Iterable, Sequence
from pathlib import Path

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from drafter.data import Mutant, MutantSet, Target
from drafter.errors import ConfigError, SourceError
from sabotage.operator import Operator, Position
from sabotage.operators import ALL


class SabotageError(SourceError):
    """A target's file cannot be read or parsed, or its function is not where the target says."""


def all_operators() -> tuple[Operator, ...]:
    return ALL


def select_operators(names: Iterable[str]) -> tuple[Operator, ...]:
    """The named operators in the canonical order; ConfigError naming any unknown name."""
    wanted = set(names)
    known = {op.name for op in ALL}
    unknown = sorted(wanted - known)
    if unknown:
        raise ConfigError(f"unknown sabotage operator(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    return tuple(op for op in ALL if op.name in wanted)


def normalised_tree(source: str) -> str:
    """The module's syntax tree without positions, formatting or comments (docstrings kept as they are)."""
    return ast.dump(ast.parse(source))


def unified_diff(before: str, after: str, file: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{file}", f"b/{file}"
    )
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def _definitions(statements: Sequence[cst.CSTNode], name: str) -> Iterable[cst.FunctionDef | cst.ClassDef]:
    """Defs and classes called `name` in one namespace, looking through if/try/with/for/while blocks."""
    for statement in statements:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            if statement.name.value == name:
                yield statement
        elif isinstance(statement, cst.BaseCompoundStatement):
            blocks = [statement.body]
            for extra in ("orelse", "finalbody"):
                block = getattr(statement, extra, None)
                blocks.append(getattr(block, "body", block))
            blocks.extend(getattr(statement, "handlers", ()))
            for block in blocks:
                inner = getattr(block, "body", None)
                if isinstance(inner, Sequence):
                    yield from _definitions(inner, name)


def find_function(
    module: cst.Module, qualname: str, line: int, spans: dict[cst.CSTNode, CodeRange]
) -> cst.FunctionDef | None:
    """The def that `qualname` names; when a name is bound twice, the one spanning `line`, else the last."""
    scopes: list[cst.CSTNode] = [module]
    parts = [part for part in qualname.split(".") if part != "<locals>"]
    for depth, part in enumerate(parts):
        found = [d for scope in scopes for d in _definitions(_body(scope), part)]
        if depth == len(parts) - 1:
            found = [d for d in found if isinstance(d, cst.FunctionDef)]
        scopes = found
        if not scopes:
            return None
    spanning = [f for f in scopes if spans[f].start.line <= line <= spans[f].end.line]
    return (spanning or scopes)[-1]


def _body(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    body = node.body
    return body if isinstance(body, Sequence) else getattr(body, "body", ())


def locate(target: Target, src: Path) -> tuple[str, cst.Module, cst.FunctionDef, dict[cst.CSTNode, CodeRange]]:
    text, module, spans = _parsed(*read_text(src, target.file))
    function = find_function(module, target.qualname, target.line, spans)
    if function is None:
        raise SabotageError(f"{target.file}: no function {target.qualname!r} for target {target.id}")
    return text, module, function, spans


def read_text(src: Path, file: str) -> tuple[str, str]:
    path = Path(src) / file
    try:
        return str(path), path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SabotageError(f"{path}: cannot read it ({exc})") from exc


@functools.lru_cache(maxsize=16)
def _parsed(path: str, text: str) -> tuple[str, cst.Module, dict[cst.CSTNode, CodeRange]]:
    """One parse and one position pass per module text, shared by all its targets."""
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        raise SabotageError(f"{path}: does not parse ({exc.message} at line {exc.raw_line})") from exc
    return text, module, MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)


class _Ancestry(cst.CSTVisitor):
    """The indentation of every block enclosing one node, outermost first."""

    def __init__(self, module: cst.Module, wanted: cst.CSTNode) -> None:
        self.module, self.wanted = module, wanted
        self.stack: list[cst.CSTNode] = []
        self.indents: list[str] | None = None

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node is self.wanted:
            self.indents = [self.module.default_indent if b.indent is None else b.indent
                            for b in self.stack if isinstance(b, cst.IndentedBlock)]
        self.stack.append(node)
        return self.indents is None and not isinstance(node, cst.BaseExpression)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()


class FunctionSplice:
    """The target function's text inside its module, so a mutant is generated and compared as that function alone.

    Code is generated for the mutated function only, with the indentation its blocks have in the module, and
    spliced into the module text; the module itself is never generated again.
    """

    def __init__(self, text: str, module: cst.Module, function: cst.FunctionDef, def_line: int) -> None:
        finder = _Ancestry(module, function)
        module.visit(finder)
        self.module, self.indents = module, finder.indents or []
        self.text = text
        original = self.code(function)
        self.start = _nearest(text, original, def_line)
        self.end = self.start + len(original)
        self.first_line = text.count("\n", 0, self.start) + 1
        tree = self.function_tree(original)
        self.original_key = ast.dump(tree)
        self.original_outline = _outline(tree)
        self.original_code, self.original_tree = original, tree
        self.original_frames = _frames(tree)
        self.statements = _statement_spans(tree)
        self.function = function
        self._places: dict[cst.CSTNode, tuple[int, int, tuple[str, ...]]] | None = None
        self._owners: dict[cst.CSTNode, cst.BaseStatement] = {}

    def code(self, function: cst.FunctionDef) -> str:
        return self._generated(function, self.indents)

    def _generated(self, node: cst.CSTNode, indents: Sequence[str]) -> str:
        state = CodegenState(default_indent=self.module.default_indent, default_newline=self.module.default_newline)
        state.indent_tokens = list(indents)
        node._codegen(state)
        return "".join(state.tokens)

    def mutated_code(self, operator: Operator, position: Position) -> str:
        """The function's text with one mutant in it, generated for the statement holding the change only.

        A default `mutate` replaces one node, so only the innermost statement of a block that holds it changes;
        its text is generated alone and spliced into the function's text (the same text as generating the whole
        function, which is what an operator with its own `mutate` gets).
        """
        if type(operator).mutate is Operator.mutate:
            self._map_statements()
            owner = self._owners.get(position.node)
            if owner is not None:
                start, end, indents = self._places[owner]
                statement = self._generated(owner.deep_replace(position.node, position.replacement), indents)
                return self.original_code[:start] + statement + self.original_code[end:]
        return self.code(operator.mutate(self.function, position))

    def _map_statements(self) -> None:
        """Where each statement of a block starts and ends in the function's text, and each node's statement."""
        if self._places is not None:
            return
        state = _Recorder(default_indent=self.module.default_indent, default_newline=self.module.default_newline)
        state.indent_tokens = list(self.indents)
        self.function._codegen(state)
        ends = list(itertools.accumulate(map(len, state.tokens), initial=0))
        self._places = {node: (ends[first], ends[last], indents)
                        for node, (first, last, indents) in state.places.items()}
        if "".join(state.tokens) != self.original_code:
            self._places = {}  # never expected; generating the whole function stays correct
            return
        owners = _Owners()
        self.function.visit(owners)
        self._owners = {node: owner for node, owner in owners.owner.items() if owner in self._places}

    def function_tree(self, code: str) -> ast.FunctionDef | ast.AsyncFunctionDef:
        """The function's syntax tree; an indented def parses inside `if 1:` (its text is never re-indented)."""
        tree = ast.parse(f"if 1:\n{code}" if self.indents else code)
        return (tree.body[0].body if self.indents else tree.body)[0]

    def reach(self, code: str, tree: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, ...]:
        """Module lines of the original of which one must run for this mutant to behave differently; () = unknown.

        The changed lines are widened to the statements (or compound headers) holding them. Known only when the
        mutant's frames are the original's (same locals, cells, flags: deleting the only assignment of a name or
        the only `yield` changes the function everywhere) and it replaces or deletes lines: an insertion alone
        can be reached from a branch that runs neither of its neighbours.
        """
        if _frames(tree) != self.original_frames:
            return ()
        before, after = self.original_code.splitlines(), code.splitlines()
        changed: set[int] = set()
        for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
            if tag == "insert":
                return ()
            if tag != "equal":
                changed.update(range(i1, i2))
        offset = self.first_line - (2 if self.indents else 1)  # tree lines -> module lines ("if 1:" adds one)
        lines: set[int] = set()
        for index in changed:
            span = _innermost(self.statements, index + 1 + (1 if self.indents else 0))
            if span is None:
                return ()
            lines.update(range(span[0] + offset, span[1] + offset + 1))
        return tuple(sorted(lines))

    def module_source(self, code: str) -> str:
        return self.text[: self.start] + code + self.text[self.end:]

    def diff(self, code: str, file: str) -> str:
        """The unified diff of the whole module, computed on the function's lines and their context only."""
        lines = self.text.splitlines(keepends=True)
        first, after_end = self.first_line - 1, self.text.count("\n", 0, self.end)
        low, high = max(0, first - 3), after_end + 3
        before = lines[low:high]
        mutated = lines[low:first] + code.splitlines(keepends=True) + lines[after_end:high]
        shift = low

        def moved(match: re.Match) -> str:
            return f"@@ -{int(match[1]) + shift}{match[2] or ''} +{int(match[3]) + shift}{match[4] or ''} @@"

        return "".join(
            _HUNK.sub(moved, line, count=1) if line.startswith("@@") else
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
            for line in difflib.unified_diff(before, mutated, f"a/{file}", f"b/{file}")
        )


@dataclasses.dataclass
class _Recorder(CodegenState):
    """Code generation that notes the tokens and indentation of every statement directly in a block."""

    places: dict = dataclasses.field(default_factory=dict)
    _open: list = dataclasses.field(default_factory=list)

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._open.append(len(self.tokens))
        self._open.append(tuple(self.indent_tokens))

    def after_codegen(self, node: cst.CSTNode) -> None:
        indents = self._open.pop()
        first = self._open.pop()
        if isinstance(node, cst.BaseStatement):
            self.places[node] = (first, len(self.tokens), indents)


class _Owners(cst.CSTVisitor):
    """Each node of a function's body and the innermost statement of a block (not an `elif`) holding it."""

    def __init__(self) -> None:
        self.owner: dict[cst.CSTNode, cst.BaseStatement] = {}
        self.stack: list[tuple[cst.CSTNode, cst.BaseStatement | None]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        parent, owner = self.stack[-1] if self.stack else (None, None)
        if isinstance(node, cst.BaseStatement) and isinstance(parent, cst.IndentedBlock):
            owner = node
        if owner is not None:
            self.owner[node] = owner
        self.stack.append((node, owner))
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()


_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


def _nearest(text: str, original: str, def_line: int) -> int:
    """Where the function's text starts in the module: the occurrence nearest before its def line."""
    starts, at = [], text.find(original)
    while at >= 0:
        starts.append(at)
        at = text.find(original, at + 1)
    if not starts:
        raise SabotageError("the target's code does not round-trip through libcst")
    return min(starts, key=lambda s: abs(def_line - text.count("\n", 0, s) - 1))


def _frames(function: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple | None:
    """What every frame of the function is made of (flags, locals, cells, free variables), nested code included."""
    try:
        code = compile(ast.Module(body=[function], type_ignores=[]), "<mutant>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    shapes = []
    pending = [c for c in code.co_consts if isinstance(c, types.CodeType)]
    while pending:
        code = pending.pop(0)
        shapes.append((code.co_flags, code.co_varnames, code.co_cellvars, code.co_freevars, code.co_argcount,
                       code.co_posonlyargcount, code.co_kwonlyargcount))
        pending.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return tuple(shapes)


def _statement_spans(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[int, int, int]]:
    """(first line, last line, header's last line) of every statement and except clause in the function's body."""
    spans = []
    for node in ast.walk(function):
        if node is function or not isinstance(node, (ast.stmt, ast.excepthandler)):
            continue
        body = getattr(node, "body", None)
        header_end = body[0].lineno - 1 if isinstance(body, list) and body and hasattr(body[0], "lineno") else None
        spans.append((node.lineno, node.end_lineno or node.lineno, header_end or node.end_lineno or node.lineno))
    return spans


def _innermost(spans: list[tuple[int, int, int]], line: int) -> tuple[int, int] | None:
    """The lines to watch for a change on `line`: the smallest statement holding it, or just its header."""
    holding = [s for s in spans if s[0] <= line <= s[1]]
    if not holding:
        return None
    first, last, header_end = min(holding, key=lambda s: s[1] - s[0])
    return (first, max(first, header_end)) if line <= header_end else (first, last)


def _outline(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """Everything of a def but its body: kind, name, parameters, defaults, annotations, decorators."""
    parts = [function.args, *function.decorator_list] + ([function.returns] if function.returns else [])
    return "|".join([type(function).__name__, function.name, *map(ast.dump, parts)])


def mutants_for(target: Target, src: Path, operators: Sequence[Operator] | None = None) -> MutantSet:
    """Every operator's mutants of the target's function, in operator then position order; SRC is only read.

    Equivalence and duplicates are decided on the function's own tree, and so is `body_only`: a mutant that
    changes nothing but the body can be switched in-process without another check.
    """
    text, module, function, spans = locate(target, src)
    splice = FunctionSplice(text, module, function, spans[function].start.line)
    seen = {splice.original_key}
    kept: list[Mutant] = []
    equivalent = duplicate = 0
    for operator in ALL if operators is None else operators:
        for n, position in enumerate(operator.positions(function, target), start=1):
            code = splice.mutated_code(operator, position)
            try:
                tree = splice.function_tree(code)
            except SyntaxError:
                continue  # an operator bug must not stop the run; the operator examples test guards it
            key = ast.dump(tree)
            if key in seen:
                equivalent += key == splice.original_key
                duplicate += key != splice.original_key
                continue
            seen.add(key)
            line = spans[position.node].start.line if position.node in spans else target.line
            body_only = _outline(tree) == splice.original_outline
            kept.append(
                Mutant(
                    id=f"{target.id}#{operator.name}-{n}",
                    target=target.id,
                    operator=operator.name,
                    description=f"line {line}: {operator.describe(function, position)}",
                    diff=splice.diff(code, target.file),
                    module=target.module,
                    file=target.file,
                    source=splice.module_source(code),
                    line=line,
                    body_only=body_only,
                    reach=splice.reach(code, tree) if body_only else (),
                )
            )
    return MutantSet(target.id, tuple(kept), dropped_equivalent=equivalent, dropped_duplicate=duplicate)


def mutants_for_all(targets: Sequence[Target], src: Path, jobs: int = 1,
                    operators: Sequence[Operator] | None = None) -> list[MutantSet | SourceError]:
    """mutants_for of every target, in order (an error in its place), over `jobs` forked processes.

    A module's targets go to one process together, so each module is parsed once, unless there are fewer
    modules than processes: then the largest groups are halved until every process has work.
    """
    by_file: dict[str, list[int]] = {}
    for index, target in enumerate(targets):
        by_file.setdefault(target.file, []).append(index)
    chunks = list(by_file.values())
    while len(chunks) < jobs and max(map(len, chunks), default=0) > 1:
        largest = max(chunks, key=len)
        at = chunks.index(largest)
        chunks[at: at + 1] = [largest[: len(largest) // 2], largest[len(largest) // 2:]]
    groups = [[targets[i] for i in indexes] for indexes in chunks]
    work = functools.partial(_group_mutants, src=Path(src), operators=None if operators is None else tuple(operators))
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    if jobs <= 1 or len(groups) <= 1 or "fork" not in methods:
        made = [work(group) for group in groups]
    else:
        with multiprocessing.get_context("fork").Pool(min(jobs, len(groups))) as pool:
            made = pool.map(work, groups, chunksize=1)
    results: list[MutantSet | SourceError] = [None] * len(targets)  # type: ignore[list-item]
    for indexes, sets in zip(chunks, made):
        for index, result in zip(indexes, sets):
            results[index] = result
    return results


def _group_mutants(group: Sequence[Target], src: Path, operators) -> list[MutantSet | SourceError]:
    out: list[MutantSet | SourceError] = []
    for target in group:
        try:
            out.append(mutants_for(target, src, operators))
        except SourceError as exc:
            out.append(exc)
    return out
