"""Mutants of one target: every operator over the target's function only, trivially equivalent ones dropped."""

from __future__ import annotations

import ast
import difflib
from collections.abc import Iterable, Sequence
from pathlib import Path

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from drafter.data import Mutant, MutantSet, Target
from drafter.errors import ConfigError, SourceError
from sabotage.operator import Operator
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


def read_module(src: Path, file: str) -> tuple[str, cst.Module]:
    path = Path(src) / file
    try:
        text = path.read_text(encoding="utf-8")
        return text, cst.parse_module(text)
    except (OSError, UnicodeDecodeError) as exc:
        raise SabotageError(f"{path}: cannot read it ({exc})") from exc
    except cst.ParserSyntaxError as exc:
        raise SabotageError(f"{path}: does not parse ({exc.message} at line {exc.raw_line})") from exc


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


class _Splice(cst.CSTTransformer):
    """Replace one node, descending only along its ancestors (a full deep_replace walks the whole module)."""

    def __init__(self, old: cst.CSTNode, new: cst.CSTNode) -> None:
        self.old, self.new = old, new
        self.stack: list[cst.CSTNode] = []
        self.path: set[int] | None = None  # ids of old's ancestors, filled by the first (finding) pass

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.stack.append(node)
        if self.path is None:
            if node is self.old:
                self.path = {id(n) for n in self.stack}
            return self.path is None and not isinstance(node, cst.BaseExpression)
        return id(node) in self.path and node is not self.old

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> cst.CSTNode:
        self.stack.pop()
        return self.new if original_node is self.old and self.path is not None else updated_node


def splicer(module: cst.Module, old: cst.CSTNode):
    """A function new → module with `old` replaced by `new`; finds old's place once."""
    finder = _Splice(old, old)
    module.visit(finder)

    def splice(new: cst.CSTNode) -> cst.Module:
        transformer = _Splice(old, new)
        transformer.path = finder.path
        return module.visit(transformer)

    return splice


def locate(target: Target, src: Path) -> tuple[str, cst.Module, cst.FunctionDef, dict[cst.CSTNode, CodeRange]]:
    text, module = read_module(src, target.file)
    spans = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    function = find_function(module, target.qualname, target.line, spans)
    if function is None:
        raise SabotageError(f"{target.file}: no function {target.qualname!r} for target {target.id}")
    return text, module, function, spans


def mutants_for(target: Target, src: Path, operators: Sequence[Operator] | None = None) -> MutantSet:
    """Every operator's mutants of the target's function, in operator then position order; SRC is only read."""
    text, module, function, spans = locate(target, src)
    original = normalised_tree(text)
    seen = {original}
    splice = splicer(module, function)
    kept: list[Mutant] = []
    equivalent = duplicate = 0
    for operator in ALL if operators is None else operators:
        for n, position in enumerate(operator.positions(function, target), start=1):
            source = splice(operator.mutate(function, position)).code
            try:
                tree = normalised_tree(source)
            except SyntaxError:
                continue  # an operator bug must not stop the run; the operator examples test guards it
            if tree in seen:
                equivalent += tree == original
                duplicate += tree != original
                continue
            seen.add(tree)
            line = spans[position.node].start.line if position.node in spans else target.line
            kept.append(
                Mutant(
                    id=f"{target.id}#{operator.name}-{n}",
                    target=target.id,
                    operator=operator.name,
                    description=f"line {line}: {operator.describe(function, position)}",
                    diff=unified_diff(text, source, target.file),
                    module=target.module,
                    file=target.file,
                    source=source,
                    line=line,
                )
            )
    return MutantSet(target.id, tuple(kept), dropped_equivalent=equivalent, dropped_duplicate=duplicate)
