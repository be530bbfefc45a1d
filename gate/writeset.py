"""The patch's write-set, from git rather than from a parser of our own.

`git apply` decides which paths a patch writes (header names, timestamps, quoting, renames, modes, binary hunks),
so the gate applies the patch in a copy and compares the trees: whatever changed there is the write-set, and the
deny list, the symlink rule and the classifier all read this one list.
"""

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from gate.check import GateError
from gate.gitutil import FileChange

COPY_IGNORED = shutil.ignore_patterns(".git", "__pycache__", ".pytest_cache", ".hypothesis")
# Only git's own folder is skipped: caches the copy left out and the patch writes are part of its write-set.
PRUNED_DIRS = frozenset({".git"})


def entries(root: Path) -> dict[str, tuple[str, str]]:
    """(kind, digest) per path under root: files carry their exec bit, symlinks their target (never followed)."""
    out: dict[str, tuple[str, str]] = {}
    for folder, dirs, files in os.walk(root):
        links = [d for d in dirs if (Path(folder) / d).is_symlink()]
        dirs[:] = sorted(d for d in dirs if d not in PRUNED_DIRS and d not in links)
        for name in sorted(files + links):
            path = Path(folder) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                out[rel] = ("symlink", os.readlink(path))
            else:
                kind = "executable" if os.access(path, os.X_OK) else "file"
                out[rel] = (kind, hashlib.sha256(path.read_bytes()).hexdigest())
    return out


def tree_changes(before: dict[str, tuple[str, str]], after: dict[str, tuple[str, str]]) -> list[FileChange]:
    """Added, deleted and modified paths (content, mode or symlink target); a rename is a deletion plus an addition,
    so both sides are always in the write-set."""
    changes = []
    for rel in sorted(set(before) | set(after)):
        old, new = before.get(rel), after.get(rel)
        if old == new:
            continue
        status = "added" if old is None else "deleted" if new is None else "modified"
        changes.append(FileChange(status, rel if old else None, rel if new else None))
    return changes


def apply_patch(app: Path, patch: Path, work: Path) -> list[FileChange]:
    """Copy app to work, `git apply` the patch there, and return what changed. GateError if it does not apply."""
    patch = Path(patch)
    if not patch.is_file():
        raise GateError(f"patch file {patch} does not exist")
    if not Path(app).is_dir():
        raise GateError(f"app folder {app} does not exist")
    shutil.copytree(app, work, ignore=COPY_IGNORED, symlinks=True)
    before = entries(work)
    # The ceiling stops git from treating an enclosing repository as the target of the patch.
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(Path(work).parent), "LC_ALL": "C"}
    done = subprocess.run(["git", "apply", "--whitespace=nowarn", str(patch.resolve())], cwd=work,
                          capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise GateError(f"patch {patch} does not apply to {app}: {done.stderr.strip()}")
    return tree_changes(before, entries(work))


def escaping_symlinks(root: Path, changes: list[FileChange], oracle: str = "oracle") -> list[str]:
    """`symlink: PATH -> TARGET (...)` for every symlink the patch wrote that leaves its own folder or reaches
    into the oracle: a link is how a patch reads or writes what the deny list keeps it from naming."""
    problems = []
    root = Path(root).resolve()
    oracle_dir = root / oracle
    for change in changes:
        if change.new_path is None:
            continue
        link = root / change.new_path
        if not link.is_symlink():
            continue
        target = os.readlink(link)
        resolved = (link.parent / target).resolve()
        if resolved == oracle_dir or oracle_dir in resolved.parents:
            problems.append(f"symlink: {change.new_path} -> {target} (points into the oracle)")
        elif link.parent.resolve() not in resolved.parents:
            problems.append(f"symlink: {change.new_path} -> {target} (points outside its own folder)")
    return problems
