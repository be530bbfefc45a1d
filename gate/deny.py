"""Deny paths: gitignore-style patterns matched against every path a patch touches (both sides of a rename)."""

import re
from pathlib import Path

import pathspec

from gate import gitutil
from gate.check import Check, GateError
from gate.gitutil import FileChange

# conftest.py can rewrite any grade from any depth, so it is denied even if the list forgets it.
ALWAYS_DENIED = ("**/conftest.py",)
HUNK_HEADER = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")
DIFF_GIT = re.compile(r'^diff --git (?P<a>"(?:[^"\\]|\\.)*"|\S+) (?P<b>"(?:[^"\\]|\\.)*"|\S+)$')


def load_patterns(text: str, source: str) -> pathspec.GitIgnoreSpec:
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise GateError(f"deny list {source} has no patterns; an empty deny list would allow any patch")
    try:
        return pathspec.GitIgnoreSpec.from_lines(lines + list(ALWAYS_DENIED))
    except Exception as exc:  # pathspec raises assorted errors on bad patterns
        raise GateError(f"deny list {source}: bad pattern: {exc}") from None


def _unquote(path: str) -> str:
    """git quotes paths with unusual bytes as C strings."""
    if len(path) >= 2 and path[0] == path[-1] == '"':
        raw = path[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
        return raw.encode("latin-1").decode("utf-8", "replace")
    return path


def _strip(path: str, prefix: str) -> str | None:
    path = _unquote(path.split("\t", 1)[0].rstrip())
    if path == "/dev/null":
        return None
    return path[2:] if path.startswith(prefix) else path


class _Block:
    def __init__(self, old: str | None, new: str | None) -> None:
        self.old, self.new, self.status, self.binary = old, new, "modified", False
        self.from_git = self.has_header = False

    def change(self) -> FileChange:
        status = self.status
        if self.old is None:
            status = "added"
        elif self.new is None:
            status = "deleted"
        return FileChange(status, self.old, self.new, self.binary)


def parse_patch(text: str, source: str = "patch") -> list[FileChange]:
    """Files touched by a unified or git diff (new, deleted, renamed, copied, binary). GateError if malformed."""
    lines = text.splitlines()
    blocks: list[_Block] = []
    block: _Block | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        where = f"{source} line {i + 1}"
        if line.startswith("diff --git "):
            block = _Block(*_git_header_paths(line, where))
            block.from_git = True
            blocks.append(block)
        elif block is not None and line.startswith(("new file mode", "deleted file mode")):
            if line.startswith("new"):
                block.old = None
            else:
                block.new = None
        elif block is not None and line.startswith(("rename from ", "copy from ")):
            block.old = _unquote(line.split(" from ", 1)[1])
            block.status = "renamed" if line.startswith("rename") else "copied"
        elif block is not None and line.startswith(("rename to ", "copy to ")):
            block.new = _unquote(line.split(" to ", 1)[1])
        elif line.startswith("Binary files ") or line == "GIT binary patch":
            if block is None:
                raise GateError(f"{where}: binary change outside a file header")
            block.binary = True
        elif line.startswith("--- "):
            if i + 1 >= len(lines) or not lines[i + 1].startswith("+++ "):
                raise GateError(f"{where}: '---' header without a '+++' line")
            old, new = _strip(line[4:], "a/"), _strip(lines[i + 1][4:], "b/")
            if block is not None and block.from_git and not block.has_header:
                block.old = None if old is None else block.old
                block.new = None if new is None else block.new
            else:  # a plain unified diff: no `diff --git` line
                block = _Block(old, new)
                blocks.append(block)
            block.has_header = True
            i += 1
        elif line.startswith("@@"):
            if block is None:
                raise GateError(f"{where}: hunk outside a file header")
            i = _skip_hunk(lines, i, source)
            continue
        i += 1
    if not blocks:
        raise GateError(f"{source} is not a diff: it names no files")
    return [b.change() for b in blocks]


def _git_header_paths(line: str, where: str) -> tuple[str | None, str | None]:
    match = DIFF_GIT.match(line)
    if match:
        return _strip(match["a"], "a/"), _strip(match["b"], "b/")
    rest = line[len("diff --git "):]
    half = len(rest) // 2
    # Unquoted paths with spaces: "a/X b/X" splits in the middle when both sides name the same file.
    if len(rest) % 2 == 1 and rest[half] == " " and rest[:2] == "a/" and rest[half + 1:half + 3] == "b/" \
            and rest[2:half] == rest[half + 3:]:
        return rest[2:half], rest[half + 3:]
    raise GateError(f"{where}: cannot read paths from {line!r}")


def _skip_hunk(lines: list[str], i: int, source: str) -> int:
    """Index after the hunk starting at i; its body must match the header's counts."""
    match = HUNK_HEADER.match(lines[i])
    if not match:
        raise GateError(f"{source} line {i + 1}: bad hunk header {lines[i]!r}")
    old_left = int(match.group(1) if match.group(1) is not None else 1)
    new_left = int(match.group(2) if match.group(2) is not None else 1)
    i += 1
    while old_left > 0 or new_left > 0:
        if i >= len(lines):
            raise GateError(f"{source}: hunk ends early ({old_left} old and {new_left} new lines missing)")
        tag = lines[i][:1]
        if tag == "\\":  # "\ No newline at end of file"
            i += 1
            continue
        if tag in (" ", ""):
            old_left, new_left = old_left - 1, new_left - 1
        elif tag == "-":
            old_left -= 1
        elif tag == "+":
            new_left -= 1
        else:
            raise GateError(f"{source} line {i + 1}: unexpected line in hunk {lines[i]!r}")
        if old_left < 0 or new_left < 0:
            raise GateError(f"{source} line {i + 1}: hunk body longer than its header says")
        i += 1
    while i < len(lines) and lines[i].startswith("\\"):
        i += 1
    return i


def denied(spec: pathspec.GitIgnoreSpec, changes: list[FileChange]) -> list[str]:
    """`denied: PATH (status)` for every touched path a pattern matches."""
    hits = []
    for change in changes:
        for path in change.paths:
            if spec.match_file(path) or spec.match_file(path + "/"):
                hits.append(f"denied: {path} ({change.status})")
    return sorted(dict.fromkeys(hits))


def check_deny(deny: Path, patch: Path | None = None, base: str | None = None, repo: Path | None = None) -> Check:
    """Deny-path check. With base, the deny list is read from the base revision and, without a patch file,
    the changes are everything from base to the working tree."""
    if patch is None and base is None:
        raise GateError("deny needs --patch FILE or --base REV")
    if base is not None:
        root = gitutil.repo_root(repo or Path.cwd())
        try:
            rel = Path(deny).resolve().relative_to(root.resolve())
        except ValueError:
            raise GateError(f"deny list {deny} is not inside the repository {root}") from None
        spec = load_patterns(gitutil.show(root, base, rel.as_posix()), f"{rel.as_posix()} at {base}")
        changes = parse_patch(_read_patch(patch), str(patch)) if patch else gitutil.changes_since(root, base)
    else:
        try:
            text = Path(deny).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise GateError(f"cannot read deny list {deny}: {exc}") from None
        spec = load_patterns(text, str(deny))
        changes = parse_patch(_read_patch(patch), str(patch))
    hits = denied(spec, changes)
    touched = sorted({p for c in changes for p in c.paths})
    return Check("deny", not hits, tuple(hits) or (f"none of {len(touched)} touched paths is denied",),
                 {"denied": hits, "touched": touched})


def _read_patch(patch: Path) -> str:
    try:
        return Path(patch).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GateError(f"cannot read patch {patch}: {exc}") from None
