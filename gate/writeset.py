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

from gate import gitutil
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


def _kind(mode: str) -> str:
    return {"100755": "executable", "120000": "symlink", "160000": "submodule"}.get(mode, "file")


def _ls_tree(repo: Path, rev: str) -> dict[str, tuple[str, str]]:
    """(mode, object id) per path of a revision's tree."""
    listing = gitutil.git(repo, "ls-tree", "-r", "-z", "--full-tree", gitutil.resolve(repo, rev)).split("\0")
    out = {}
    for line in filter(None, listing):
        meta, path = line.split("\t", 1)
        mode, _, oid = meta.split()
        out[path] = (mode, oid)
    return out


def rev_entries(repo: Path, rev: str) -> dict[str, tuple[str, str]]:
    """(kind, digest) per path of a revision's tree, in the form `entries` gives for a folder on disk: blob bytes
    are read with `git cat-file` (no attributes, filters or export rules: what the tree holds, not what an
    archive of it would show)."""
    rows = _ls_tree(repo, rev)
    contents = _blobs(repo, [oid for mode, oid in rows.values() if mode != "160000"])
    out: dict[str, tuple[str, str]] = {}
    for path, (mode, oid) in rows.items():
        if mode == "160000":
            out[path] = ("submodule", oid)
        elif mode == "120000":
            out[path] = ("symlink", os.fsdecode(contents[oid]))
        else:
            out[path] = (_kind(mode), hashlib.sha256(contents[oid]).hexdigest())
    return out


def _blobs(repo: Path, oids: list[str]) -> dict[str, bytes]:
    """Raw blob contents by object id, in one `git cat-file --batch` (read-only)."""
    wanted = list(dict.fromkeys(oids))
    if not wanted:
        return {}
    done = subprocess.run(["git", "-C", str(repo), "cat-file", "--batch"], input="\n".join(wanted).encode() + b"\n",
                          capture_output=True, env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"})
    if done.returncode != 0:
        raise GateError(f"git cat-file --batch failed in {repo}: {done.stderr.decode(errors='replace').strip()}")
    out, data, at = {}, done.stdout, 0
    for oid in wanted:
        end = data.index(b"\n", at)
        header = data[at:end].split()
        if len(header) != 3 or header[1] != b"blob":
            raise GateError(f"git cat-file gave no blob for {oid} in {repo}")
        size = int(header[2])
        out[oid] = data[end + 1:end + 1 + size]
        at = end + 1 + size + 1
    return out


def worktree_entries(repo: Path) -> dict[str, tuple[str, str]]:
    """`entries` of a repository's working tree: tracked files and untracked ones that are not ignored."""
    root = gitutil.repo_root(repo)
    paths = gitutil.git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    out: dict[str, tuple[str, str]] = {}
    for rel in dict.fromkeys(filter(None, paths)):
        path = root / rel
        if path.is_symlink():
            out[rel] = ("symlink", os.readlink(path))
        elif path.is_dir():  # a submodule's folder
            out[rel] = ("submodule", gitutil.git(path, "rev-parse", "HEAD").strip())
        elif path.is_file():
            kind = "executable" if os.access(path, os.X_OK) else "file"
            out[rel] = (kind, hashlib.sha256(path.read_bytes()).hexdigest())
    return out


def changes_since(repo: Path, base: str) -> list[FileChange]:
    """The branch's write-set: everything that differs between the base revision's tree and the working tree
    (content, exec bit, symlink targets; untracked files count as added), compared as `apply_patch` compares."""
    root = gitutil.repo_root(repo)
    return tree_changes(rev_entries(root, base), worktree_entries(root))


def commit_changes(repo: Path, commit: str) -> list[FileChange]:
    """What one commit writes: its tree against its parent's (nothing for a root commit's parent). A merge writes
    a path only where it differs from every parent, so merging main in is not a change of main's paths."""
    parents = gitutil.git(repo, "rev-list", "--parents", "-n", "1", commit).split()[1:]
    mine = _modes(repo, commit)
    per_parent = [tree_changes(_modes(repo, p), mine) for p in parents] or [tree_changes({}, mine)]
    common = set.intersection(*({c.paths for c in changes} for changes in per_parent))
    return [c for c in per_parent[0] if c.paths in common]


def _modes(repo: Path, rev: str) -> dict[str, tuple[str, str]]:
    return {path: (_kind(mode), oid) for path, (mode, oid) in _ls_tree(repo, rev).items()}
