"""Read-only git plumbing for the gate. Every failure is a GateError naming the command and revision."""

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from gate.check import GateError


@dataclass(frozen=True)
class FileChange:
    """One file a patch touches; a rename or copy has both sides, an addition has no old path."""

    status: str  # added | deleted | modified | renamed | copied
    old_path: str | None
    new_path: str | None
    binary: bool = False

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p for p in (self.old_path, self.new_path) if p))


def git(repo: Path, *args: str, text: bool = True) -> str:
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
    try:
        done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=text, env=env,
                              check=False)
    except OSError as exc:
        raise GateError(f"cannot run git: {exc}") from None
    if done.returncode != 0:
        err = done.stderr if text else done.stderr.decode(errors="replace")
        raise GateError(f"git {' '.join(args)} failed in {repo}: {err.strip() or 'exit ' + str(done.returncode)}")
    return done.stdout


def repo_root(path: Path) -> Path:
    return Path(git(Path(path), "rev-parse", "--show-toplevel").strip())


def resolve(repo: Path, rev: str) -> str:
    try:
        return git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").strip()
    except GateError:
        raise GateError(f"unknown revision {rev!r} in {repo}: it names no commit") from None


def show(repo: Path, rev: str, path: str) -> str:
    """A file's text at a revision (path relative to the repository root)."""
    resolve(repo, rev)
    return git(repo, "show", f"{rev}:{path}")


def commits_in_range(repo: Path, base: str) -> list[str]:
    resolve(repo, base)
    return git(repo, "rev-list", "--reverse", f"{base}..HEAD").split()


def commit_subject(repo: Path, commit: str) -> str:
    return git(repo, "log", "-1", "--format=%s", commit).strip()
