"""Known-bad patches: unified diffs an oracle owner keeps, applied in memory to SRC, one mutant per touched target.

A patch that does not parse, does not apply or touches no target is reported as a KnownBadError; the others
still load. SRC is only read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
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
