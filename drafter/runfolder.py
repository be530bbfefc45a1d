"""The run folder: where a run may write, and nowhere else."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from filelock import FileLock

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


INCOMPLETE_SUFFIX = ".incomplete"
INCOMPLETE_NOTE = "INCOMPLETE.txt"
RUN_META = "run.json"


def workspace_lock(workspace: Path) -> FileLock:
    """The lock on the workspace's index (run ids and `latest`): concurrent runs take turns only for that."""
    runs = workspace.resolve() / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    return FileLock(runs / ".index.lock", timeout=60)


def run_id(run_dir: Path) -> str:
    return run_dir.name.removesuffix(INCOMPLETE_SUFFIX)


def _id_order(name: str) -> tuple[str, int]:
    """Run ids sort by stamp, then by the -N added when two runs start in the same second."""
    stamp, _, n = name.removesuffix(INCOMPLETE_SUFFIX).rpartition("-")
    return (stamp, int(n)) if stamp.count("-") == 1 and n.isdigit() else (name, 0)


def new_run_dir(workspace: Path) -> Path:
    """workspace/runs/<run-id>.incomplete/ (absolute: workers and subprocesses run elsewhere).

    The folder keeps that name, and a note saying the run did not finish, until finish_run() renames it:
    a crash or a SIGKILL leaves an incomplete run that no reader takes for a result."""
    workspace = workspace.resolve()
    runs = workspace / "runs"
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    with workspace_lock(workspace):
        for n in range(1000):
            name = stamp if n == 0 else f"{stamp}-{n}"
            if (runs / name).exists() or (runs / (name + INCOMPLETE_SUFFIX)).exists():
                continue
            run_dir = runs / (name + INCOMPLETE_SUFFIX)
            run_dir.mkdir()
            break
        else:
            raise ConfigError(f"cannot create a new run folder under {runs}")
    write_text(
        run_dir / INCOMPLETE_NOTE,
        f"Run {name} started at {_now()} (pid {os.getpid()}) and has not finished.\n"
        "If the run is over, it was interrupted or crashed: what is here is partial, and no command uses it as a "
        "baseline or points `latest` at it.\n",
    )
    return run_dir


def abandon_run(run_dir: Path, reason: str) -> None:
    """Say in the incomplete run's note why it stopped."""
    try:
        with (run_dir / INCOMPLETE_NOTE).open("a", encoding="utf-8") as note:
            note.write(f"Stopped at {_now()}: {reason}\n")
    except OSError:
        pass  # the note from the start still says the run is partial


def finish_run(run_dir: Path, meta: dict) -> Path:
    """Make a complete run visible: write run.json, rename it to runs/<id>, and point `latest` at it
    unless a newer complete run already holds `latest`."""
    final = run_dir.with_name(run_id(run_dir))
    write_json(run_dir / RUN_META, {"id": final.name, **meta, "complete": True, "finished": _now()})
    (run_dir / INCOMPLETE_NOTE).unlink(missing_ok=True)
    workspace = run_dir.parent.parent
    with workspace_lock(workspace):
        os.rename(run_dir, final)
        latest = workspace / "latest"
        current = latest.resolve().name if latest.is_symlink() else None
        if current is None or not (latest.resolve() / RUN_META).is_file() or _id_order(current) <= _id_order(final.name):
            tmp_link = workspace / f".latest-{os.getpid()}"
            tmp_link.unlink(missing_ok=True)
            tmp_link.symlink_to(Path("runs") / final.name)
            os.replace(tmp_link, latest)  # atomic: readers never see a missing `latest`
    return final


def complete_runs(workspace: Path) -> list[Path]:
    """Complete run folders of the workspace, newest first."""
    runs = workspace.resolve() / "runs"
    if not runs.is_dir():
        return []
    found = [p for p in runs.iterdir() if p.is_dir() and (p / RUN_META).is_file() and not p.name.endswith(INCOMPLETE_SUFFIX)]
    return sorted(found, key=lambda p: _id_order(p.name), reverse=True)


def read_run_meta(run_dir: Path) -> dict:
    try:
        return json.loads((run_dir / RUN_META).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


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
