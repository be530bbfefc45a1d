"""Unified-diff hunks: parse one, print it back, apply it (idempotently) to a list of lines."""

import re
from dataclasses import dataclass

HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$")
TAGS = (" ", "-", "+")


class HunkError(ValueError):
    """Malformed hunk text, or a hunk that does not fit the lines it is applied to."""


@dataclass(frozen=True)
class Hunk:
    old_start: int  # 1-based line where the hunk starts in the old file
    lines: tuple[tuple[str, str], ...]  # (tag, text) with tag in ' ', '-', '+'

    @property
    def old_lines(self) -> list[str]:
        return [text for tag, text in self.lines if tag != "+"]

    @property
    def new_lines(self) -> list[str]:
        return [text for tag, text in self.lines if tag != "-"]

    def to_text(self) -> str:
        """The hunk in unified-diff form, header included."""
        old, new = len(self.old_lines), len(self.new_lines)
        header = f"@@ -{self.old_start},{old} +{self.old_start},{new} @@"
        return "\n".join([header] + [tag + text for tag, text in self.lines]) + "\n"


def parse_hunk(text: str) -> Hunk:
    """Parse one hunk; the counts in the header must match its body."""
    rows = text.splitlines()
    if not rows:
        raise HunkError("empty hunk")
    match = HEADER.match(rows[0])
    if not match:
        raise HunkError(f"bad hunk header {rows[0]!r}")
    old_start = int(match.group(1))
    old_count = int(match.group(2) or 1)
    new_count = int(match.group(4) or 1)
    lines = []
    for row in rows[1:]:
        tag, body = row[:1] or " ", row[1:]
        if tag not in TAGS:
            raise HunkError(f"bad hunk line {row!r}")
        lines.append((tag, body))
    hunk = Hunk(old_start, tuple(lines))
    if (len(hunk.old_lines), len(hunk.new_lines)) != (old_count, new_count):
        raise HunkError("hunk header counts do not match its body")
    return hunk


def apply_hunk(lines: list[str], hunk: Hunk) -> list[str]:
    """Apply hunk to lines and return the new lines; applying it to its own result changes nothing."""
    start = max(hunk.old_start - 1, 0)
    old, new = hunk.old_lines, hunk.new_lines
    if start > len(lines):
        raise HunkError(f"hunk starts at line {hunk.old_start}, past the end of {len(lines)} lines")
    if lines[start:start + len(new)] == new:
        return list(lines)
    if lines[start:start + len(old)] != old:
        raise HunkError(f"hunk does not apply at line {hunk.old_start}")
    return lines[:start] + new + lines[start + len(old):]


def count_changes(hunk: Hunk) -> int:
    """Number of added plus removed lines."""
    return sum(1 for tag, _ in hunk.lines if tag != " ")
