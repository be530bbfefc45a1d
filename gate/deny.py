"""Deny paths: gitignore-style patterns matched against every path a patch writes, as git applies it."""

import tempfile
from pathlib import Path

import pathspec

from gate import gitutil
from gate.check import Check, GateError
from gate.gitutil import FileChange
from gate.writeset import apply_patch, changes_since

# conftest.py can rewrite any grade from any depth, so it is denied even if the list forgets it.
ALWAYS_DENIED = ("**/conftest.py",)
# Compiled code: the gate's copies and the sandbox run the source, but an interpreter in production would load a
# planted __pycache__/*.pyc or a new extension module instead, so a patch that writes one never merges.
COMPILED = pathspec.GitIgnoreSpec.from_lines(["*.pyc", "*.pyo", "__pycache__/", "*.so", "*.pyd", "*.dylib"])


def load_patterns(text: str, source: str) -> pathspec.GitIgnoreSpec:
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise GateError(f"deny list {source} has no patterns; an empty deny list would allow any patch")
    try:
        return pathspec.GitIgnoreSpec.from_lines(lines + list(ALWAYS_DENIED))
    except Exception as exc:  # pathspec raises assorted errors on bad patterns
        raise GateError(f"deny list {source}: bad pattern: {exc}") from None


def denied(spec: pathspec.GitIgnoreSpec, changes: list[FileChange]) -> list[str]:
    """`denied: PATH (status)` for every touched path a pattern matches."""
    hits = []
    for change in changes:
        for path in change.paths:
            if spec.match_file(path) or spec.match_file(path + "/"):
                hits.append(f"denied: {path} ({change.status})")
            elif change.status != "deleted" and COMPILED.match_file(path):
                hits.append(f"denied: {path} ({change.status}): compiled code, which the gate does not run but an "
                            "interpreter would")
    return sorted(dict.fromkeys(hits))


def check_deny(deny: Path, patch: Path | None = None, base: str | None = None, repo: Path | None = None,
               app: Path | None = None) -> Check:
    """Deny-path check over what `git apply` writes. With a patch, it is applied in a temporary copy of app
    (default: the repository or working directory) and the trees compared; with base, the deny list is read from
    the base revision and, without a patch file, the changes are everything from base to the working tree."""
    if patch is None and base is None:
        raise GateError("deny needs --patch FILE or --base REV")
    if base is not None:
        root = gitutil.repo_root(repo or Path.cwd())
        try:
            rel = Path(deny).resolve().relative_to(root.resolve())
        except ValueError:
            raise GateError(f"deny list {deny} is not inside the repository {root}") from None
        spec = load_patterns(gitutil.show(root, base, rel.as_posix()), f"{rel.as_posix()} at {base}")
        changes = _patch_changes(patch, app or root) if patch else changes_since(root, base)
    else:
        spec = read_deny_list(deny)
        changes = _patch_changes(patch, app or repo or Path.cwd())
    return deny_changes(spec, changes)


def read_deny_list(deny: Path) -> pathspec.GitIgnoreSpec:
    try:
        text = Path(deny).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GateError(f"cannot read deny list {deny}: {exc}") from None
    return load_patterns(text, str(deny))


def deny_changes(spec: pathspec.GitIgnoreSpec, changes: list[FileChange]) -> Check:
    hits = denied(spec, changes)
    touched = sorted({p for c in changes for p in c.paths})
    return Check("deny", not hits, tuple(hits) or (f"none of {len(touched)} touched paths is denied",),
                 {"denied": hits, "touched": touched})


def _patch_changes(patch: Path, app: Path) -> list[FileChange]:
    with tempfile.TemporaryDirectory(prefix="oracle-gate-deny-") as tmp:
        return apply_patch(Path(app), Path(patch), Path(tmp) / "app")
