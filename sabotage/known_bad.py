"""Known-bad patches: unified diffs an oracle owner keeps, applied in memory to SRC, one mutant per touched target.

A patch that does not parse, does not apply or touches no target is reported as a KnownBadError; the others
still load. SRC is only read.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from drafter.data import Mutant, Target
from drafter.errors import ConfigError
from sabotage.mutants import normalised_tree, unified_diff

PATCH_SUFFIXES = (".diff", ".patch")
# The @@ line of a unified diff (diff syntax, not Python code).
HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
DIFF_MARKERS = ("--- ", "+++ ", "@@", "diff ", "index ", "Index:", "From ")


@dataclass(frozen=True)
class KnownBadError:
    file: str  # the patch, relative to the known-bad folder
    reason: str


class PatchError(Exception):
    """Internal: why one patch cannot be used; becomes a KnownBadError."""


@dataclass(frozen=True)
class Hunk:
    old_start: int
    lines: tuple[tuple[str, str], ...]  # (tag, text), tag in " ", "-", "+"

    @property
    def old(self) -> list[str]:
        return [text for tag, text in self.lines if tag != "+"]

    @property
    def new(self) -> list[str]:
        return [text for tag, text in self.lines if tag != "-"]


@dataclass(frozen=True)
class FilePatch:
    old_path: str
    new_path: str
    hunks: tuple[Hunk, ...]


def parse_patch(text: str) -> list[FilePatch]:
    rows = text.splitlines()
    files: list[FilePatch] = []
    i = 0
    while i < len(rows):
        if not _file_header(rows, i):
            i += 1
            continue
        old_path, new_path = _path(rows[i]), _path(rows[i + 1])
        i += 2
        hunks = []
        while i < len(rows) and rows[i].startswith("@@"):
            hunk, i = _parse_hunk(rows, i)
            hunks.append(hunk)
        if not hunks:
            raise PatchError(f"no hunks for {new_path}")
        files.append(FilePatch(old_path, new_path, tuple(hunks)))
    if not files:
        raise PatchError("no unified diff in it (no '--- ' / '+++ ' file header)")
    return files


def _file_header(rows: list[str], i: int) -> bool:
    return rows[i].startswith("--- ") and i + 1 < len(rows) and rows[i + 1].startswith("+++ ")


def _path(header: str) -> str:
    return header[4:].split("\t", 1)[0].strip()


def _parse_hunk(rows: list[str], i: int) -> tuple[Hunk, int]:
    match = HUNK_HEADER.match(rows[i])
    if not match:
        raise PatchError(f"bad hunk header {rows[i]!r}")
    old_start = int(match.group(1))
    old_left = int(match.group(2) or 1)
    new_left = int(match.group(4) or 1)
    lines: list[tuple[str, str]] = []
    i += 1
    while i < len(rows) and (old_left or new_left):
        row = rows[i]
        tag, body = (row[:1] or " "), row[1:]  # an empty row is a context line whose blank was stripped
        if tag == "\\":
            i += 1
            continue
        if tag not in " -+":
            break
        old_left -= tag != "+"
        new_left -= tag != "-"
        lines.append((tag, body))
        i += 1
    while i < len(rows) and rows[i].startswith("\\"):
        i += 1
    stray = i < len(rows) and rows[i][:1] in ("-", "+", " ") and not _file_header(rows, i)
    if old_left or new_left or stray:
        raise PatchError(f"hunk at line {old_start}: its body does not match the counts in its header")
    return Hunk(old_start, tuple(lines)), i


def apply_hunks(lines: list[str], hunks: Sequence[Hunk]) -> tuple[list[str], list[int]]:
    """The patched lines and the 1-based old line numbers each change touches (nearest offset, no fuzz)."""
    out: list[str] = []
    touched: list[int] = []
    cursor = 0  # index into `lines` up to which everything is copied
    for number, hunk in enumerate(hunks, start=1):
        at = _find(lines, hunk.old, hunk.old_start - 1 if hunk.old else hunk.old_start, cursor)
        if at is None:
            raise PatchError(f"hunk {number} (line {hunk.old_start}) does not apply: its context is not in the file")
        out.extend(lines[cursor:at])
        old_line = at  # 0-based index of the next old line
        for tag, _ in hunk.lines:
            if tag == "-":
                touched.append(old_line + 1)
            elif tag == "+":
                touched.append(old_line + 0.5)  # between old lines old_line and old_line + 1
            if tag != "+":
                old_line += 1
        out.extend(hunk.new)
        cursor = at + len(hunk.old)
    out.extend(lines[cursor:])
    return out, touched


def _find(lines: list[str], block: list[str], start: int, floor: int) -> int | None:
    for offset in range(len(lines) + 1):
        for at in (start - offset, start + offset):
            if floor <= at <= len(lines) - len(block) and lines[at : at + len(block)] == block:
                return at
    return None


def _resolve(src: Path, path: str) -> str:
    """The file a patch path names under SRC: git's a/ b/ prefix dropped, else leading folders (like patch -pN)."""
    if path == "/dev/null":
        raise PatchError("creating or deleting files is not supported")
    raw = Path(path)
    if raw.is_absolute() or ".." in raw.parts:
        raise PatchError(f"{path}: a patch path must be relative and stay inside SRC")
    parts = raw.parts
    candidates = [Path(*parts[1:])] if len(parts) > 1 and parts[0] in ("a", "b") else []
    candidates += [Path(*parts[k:]) for k in range(len(parts))]
    for candidate in candidates:
        if (src / candidate).is_file():
            return candidate.as_posix()
    raise PatchError(f"{path}: no such file under {src}")


def describe_patch(text: str, name: str) -> str:
    """The patch's subject: a git Subject line, else a leading comment or prose line, else its file name."""
    for row in text.splitlines():
        if row.startswith("Subject:"):
            subject = row[len("Subject:") :].strip()
            return subject.split("] ", 1)[1] if subject.startswith("[") and "] " in subject else subject
        if row.startswith(DIFF_MARKERS[:4]):
            break
    first = next((row.strip() for row in text.splitlines() if row.strip()), "")
    if first.startswith("#"):
        return first.lstrip("#").strip() or name
    return first if first and not first.startswith(DIFF_MARKERS) else name


def _patch_mutants(text: str, name: str, src: Path, targets: Sequence[Target]) -> list[Mutant]:
    description = describe_patch(text, name)
    mutants: list[Mutant] = []
    for file_patch in parse_patch(text):
        file = _resolve(src, file_patch.old_path)
        original = (src / file).read_text(encoding="utf-8")
        patched_lines, touched = apply_hunks(original.splitlines(), file_patch.hunks)
        patched = "\n".join(patched_lines) + ("\n" if original.endswith("\n") or not original else "")
        try:
            changed_tree = normalised_tree(patched) != normalised_tree(original)
        except SyntaxError as exc:
            raise PatchError(f"{file}: the patched file does not parse (line {exc.lineno}: {exc.msg})") from None
        for target in targets:
            inside = [t for t in touched if target.file == file and target.line <= t <= target.end_line]
            if not inside:
                continue
            if not changed_tree:
                raise PatchError(f"{file}: changes only comments or formatting, no code")
            mutants.append(
                Mutant(
                    id=f"known_bad:{name}@{target.id}",
                    target=target.id,
                    operator="known_bad",
                    description=description,
                    diff=unified_diff(original, patched, file),
                    module=target.module,
                    file=file,
                    source=patched,
                    line=int(min(inside)),
                )
            )
    if not mutants:
        raise PatchError("it touches no target (no changed line inside a target's line span)")
    return mutants


def load_known_bad(patch_dir: Path, src: Path, targets: Sequence[Target]) -> tuple[list[Mutant], list[KnownBadError]]:
    """One mutant per (patch, touched target) for every *.diff / *.patch under patch_dir, sorted by path."""
    patch_dir, src = Path(patch_dir), Path(src)
    if not patch_dir.is_dir():
        raise ConfigError(f"--known-bad {patch_dir}: not a directory")
    mutants: list[Mutant] = []
    errors: list[KnownBadError] = []
    patches = sorted(p for p in patch_dir.rglob("*") if p.suffix in PATCH_SUFFIXES and p.is_file())
    for path in patches:
        name = path.relative_to(patch_dir).as_posix()
        try:
            mutants.extend(_patch_mutants(path.read_text(encoding="utf-8"), name, src, targets))
        except PatchError as exc:
            errors.append(KnownBadError(name, str(exc)))
        except (OSError, UnicodeDecodeError) as exc:
            errors.append(KnownBadError(name, f"cannot read it: {exc}"))
    return mutants, errors


def drop_operator_duplicates(mutants: Sequence[Mutant], known: Sequence[Mutant], targets: Sequence[Target],
                             src: Path) -> tuple[list[Mutant], dict[str, int]]:
    """The mutants without those whose module is the same tree as a known-bad patch of their target (the owner's
    words are kept), and how many were dropped per target.

    Decided on the target's def alone: its module is parsed once, an operator mutant only as the def it splices in.
    """
    by_id = {t.id: t for t in targets}
    shapes: dict[str, _DefShape | None] = {}
    known_keys: dict[str, set[str]] = {}
    for patch in known:
        if patch.target in by_id and patch.target not in shapes:
            shapes[patch.target] = _DefShape.of(by_id[patch.target], src)
        shape = shapes.get(patch.target)
        key = shape.key(patch.source) if shape else None
        if key is not None:
            known_keys.setdefault(patch.target, set()).add(key)
    kept: list[Mutant] = []
    dropped: dict[str, int] = {}
    for mutant in mutants:
        keys = known_keys.get(mutant.target)
        if keys and shapes[mutant.target].key(mutant.source) in keys:  # type: ignore[union-attr]
            dropped[mutant.target] = dropped.get(mutant.target, 0) + 1
        else:
            kept.append(mutant)
    return kept, dropped


class _DefShape:
    """Where a target's def sits in its module, so another version of the module is compared as that def only."""

    def __init__(self, text: str, tree: ast.Module, node: ast.AST, path: tuple) -> None:
        starts = [0] + [m.end() for m in re.finditer("\n", text)]
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        start, end = starts[first - 1], starts[node.end_lineno] if node.end_lineno < len(starts) else len(text)
        self.head, self.tail = text[:start], text[end:]
        self.indented = node.col_offset > 0
        self.path = path
        self.rest = _dump_without(tree, path)

    @classmethod
    def of(cls, target: Target, src: Path) -> _DefShape | None:
        try:
            text = (src / target.file).read_text(encoding="utf-8")
            tree = ast.parse(text)
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            return None
        found = [(node, path) for node, path in _nodes(tree, ())
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == target.name
                 and min([node.lineno] + [d.lineno for d in node.decorator_list]) <= target.line <= node.end_lineno]
        if not found:
            return None
        node, path = min(found, key=lambda found: found[0].end_lineno - found[0].lineno)
        return cls(text, tree, node, path)

    def key(self, source: str) -> str | None:
        """The tree of what `source` has in place of the def, or None when the rest of its module is another tree."""
        if len(source) >= len(self.head) + len(self.tail) and source.startswith(self.head) and source.endswith(self.tail):
            middle = source[len(self.head): len(source) - len(self.tail)]  # the operators' case: only the def differs
            try:
                body = ast.parse(f"if 1:\n{middle}" if self.indented else middle).body
            except (SyntaxError, ValueError):
                pass
            else:
                if not self.indented:
                    return "\n".join(map(ast.dump, body))
                if len(body) == 1:
                    return "\n".join(map(ast.dump, body[0].body))
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            return None
        node = _at(tree, self.path)
        return ast.dump(node) if node is not None and _dump_without(tree, self.path) == self.rest else None


def _nodes(node: ast.AST, path: tuple) -> Iterator[tuple[ast.AST, tuple]]:
    """Every node under `node` with its path: (field, index) steps, index None for a single child."""
    for field, value in ast.iter_fields(node):
        children = enumerate(value) if isinstance(value, list) else [(None, value)]
        for index, child in children:
            if isinstance(child, ast.AST):
                step = path + ((field, index),)
                yield child, step
                yield from _nodes(child, step)


def _at(tree: ast.AST, path: tuple) -> ast.AST | None:
    node = tree
    for field, index in path:
        value = getattr(node, field, None)
        if index is not None:
            value = value[index] if isinstance(value, list) and index < len(value) else None
        if not isinstance(value, ast.AST):
            return None
        node = value
    return node


def _dump_without(tree: ast.Module, path: tuple) -> str:
    """The tree's dump with the node at `path` (a statement in a list) replaced by `pass`."""
    field, index = path[-1]
    parent = _at(tree, path[:-1])
    block = getattr(parent, field)
    saved, block[index] = block[index], ast.Pass()
    try:
        return ast.dump(tree)
    finally:
        block[index] = saved
