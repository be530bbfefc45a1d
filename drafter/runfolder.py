"""The run folder: where a run may write, and nowhere else."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from drafter.data import to_jsonable
from drafter.errors import ConfigError, SourceError

# Folders never copied out of SRC: they are not source, and copying a venv would be slow.
IGNORED_DIRS = {".git", "__pycache__", ".venv", "venv", "node_modules", ".tox", ".mypy_cache", ".pytest_cache", ".hypothesis"}


def target_slug(target_id: str) -> str:
    return target_id.replace(":", ".")


def check_separate(src: Path, workspace: Path) -> None:
    """The workspace must lie outside SRC and outside any oracle/ folder: we never write where we grade."""
    src, workspace = src.resolve(), workspace.resolve()
    if workspace == src or src in workspace.parents:
        raise ConfigError(f"workspace {workspace} is inside SRC {src}: drafter never writes into the source it drafts for")
    if "oracle" in workspace.parts:
        raise ConfigError(f"workspace {workspace} is inside an oracle/ folder: only a human promotes files into oracle/")


def new_run_dir(workspace: Path) -> Path:
    """workspace/runs/<run-id>/ (absolute: workers and subprocesses run elsewhere), with workspace/latest pointing at it."""
    workspace = workspace.resolve()
    runs = workspace / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    for n in range(1000):
        run_dir = runs / (stamp if n == 0 else f"{stamp}-{n}")
        try:
            run_dir.mkdir()
            break
        except FileExistsError:
            continue
    else:
        raise ConfigError(f"cannot create a new run folder under {runs}")
    latest = workspace / "latest"
    tmp_link = workspace / f".latest-{os.getpid()}"
    tmp_link.unlink(missing_ok=True)
    tmp_link.symlink_to(Path("runs") / run_dir.name)
    os.replace(tmp_link, latest)  # atomic: readers never see a missing `latest`
    return run_dir


def source_files(src: Path) -> list[Path]:
    files = []
    for root, dirs, names in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d not in IGNORED_DIRS)
        files.extend(Path(root) / n for n in sorted(names) if not n.endswith((".pyc", ".pyo")))
    return files


def tree_hash(src: Path) -> str:
    """sha256 over relative paths and bytes of every source file of SRC."""
    digest = hashlib.sha256()
    for path in source_files(src):
        digest.update(path.relative_to(src).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def git_commit(src: Path) -> str | None:
    """HEAD of the repository SRC lives in, read-only; None outside git."""
    try:
        out = subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def copy_source(src: Path, destination: Path) -> Path:
    """An untouched copy of SRC for imports: mutants and bytecode never touch the original."""
    try:
        # The oracle is never needed to import targets, and a copy of it is still a folder we must not write.
        shutil.copytree(src, destination, ignore=shutil.ignore_patterns(*IGNORED_DIRS, "oracle", "*.pyc"), symlinks=True)
    except OSError as exc:
        raise SourceError(f"cannot copy SRC {src} into the run folder: {exc}") from exc
    return destination


def write_json(path: Path, value) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(to_jsonable(value), indent=2, sort_keys=False) + "\n", encoding="utf-8")


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
