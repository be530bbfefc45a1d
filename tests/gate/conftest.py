"""Helpers for the gate's tests: the real CLI in a subprocess, throwaway git repositories, patches."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GATED = REPO / "examples" / "shop"  # the drafting example is also the gated repository
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def cli_env() -> dict[str, str]:
    env = {**os.environ, **GIT_ENV, "PYTHONDONTWRITEBYTECODE": "1"}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    return env


def gate(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run `python -m gate.cli ARGS`; returns the finished process (text output)."""
    return subprocess.run([sys.executable, "-m", "gate.cli", *map(str, args)], cwd=cwd, env=cli_env(),
                          capture_output=True, text=True, timeout=120)


def gate_json(*args: str | Path, cwd: Path | None = None) -> tuple[int, dict]:
    done = gate(*args, "--json", cwd=cwd)
    return done.returncode, json.loads(done.stdout)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], env={**os.environ, **GIT_ENV}, check=True,
                          capture_output=True, text=True).stdout


def write(root: Path, files: dict[str, str | bytes | None]) -> None:
    """Create, overwrite (str/bytes) or delete (None) files under root."""
    for rel, content in files.items():
        path = root / rel
        if content is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content)


def commit(repo: Path, message: str, files: dict[str, str | bytes | None]) -> str:
    write(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def new_repo(path: Path, files: dict[str, str | bytes | None]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    commit(path, "base", files)
    return path


def make_patch(app: Path, edits: dict[str, str | bytes | None], scratch: Path) -> str:
    """A git diff (binary-safe, renames detected) that turns app into app+edits; app itself is untouched."""
    work = scratch / f"patch-work-{len(list(scratch.glob('patch-work-*')))}"
    shutil.copytree(app, work, ignore=shutil.ignore_patterns("__pycache__", "*.lock"))
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "base")
    write(work, edits)
    git(work, "add", "-A")
    return git(work, "diff", "--cached", "--binary", "-M", "HEAD")


@pytest.fixture
def gated(tmp_path: Path) -> Path:
    """A private copy of the worked example (the example itself is never written)."""
    app = tmp_path / "gated"
    shutil.copytree(GATED, app, ignore=shutil.ignore_patterns("__pycache__", "*.lock", ".hypothesis"))
    return app


def run_args(app: Path, patch: Path, *extra: str | Path) -> list[str | Path]:
    oracle = app / "oracle"
    return ["run", "--app", app, "--patch", patch, "--deny", oracle / "path_deny.txt",
            "--manifest", oracle / "fixtures" / "manifest.json", "--ledger", oracle / "ledger.json",
            "--out", app.parent / "verdict.json", *extra]


class Helpers:
    """Test files cannot import each other (importlib import mode), so helpers travel as a fixture."""

    gate = staticmethod(gate)
    gate_json = staticmethod(gate_json)
    git = staticmethod(git)
    write = staticmethod(write)
    commit = staticmethod(commit)
    new_repo = staticmethod(new_repo)
    make_patch = staticmethod(make_patch)
    run_args = staticmethod(run_args)
    cli_env = staticmethod(cli_env)
    repo = REPO


@pytest.fixture
def h() -> type[Helpers]:
    return Helpers
