"""The run folder: where a run may write, and nowhere else."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock

from drafter.data import to_jsonable
from drafter.errors import ConfigError, SourceError, WorkspaceError
from drafter.jsonfile import OptionalKey, read_json
from drafter.limits import MAX_SOURCE_BYTES

# Folders never copied out of SRC: they are not source, and copying a venv would be slow.
IGNORED_DIRS = {".git", "__pycache__", ".venv", "venv", "node_modules", ".tox", ".mypy_cache", ".pytest_cache", ".hypothesis"}


MAX_NAME_CHARS = 100  # of one path component; file systems refuse names over 255 bytes
MAX_NAME_BYTES = 200


def bounded_name(name: str) -> str:
    """`name` if short enough for a file name, else its start and a hash of the whole (still unique)."""
    encoded = name.encode("utf-8", "surrogatepass")
    if len(name) <= MAX_NAME_CHARS and len(encoded) <= MAX_NAME_BYTES:
        return name
    digest = hashlib.sha256(encoded).hexdigest()[:16]
    start = name[:MAX_NAME_CHARS - 17]
    while len(start.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES - 17:
        start = start[:-1]
    return f"{start}_{digest}"


def target_slug(target_id: str) -> str:
    """A target's name in run-folder file names (prompts/, replies/, staged/): never too long for the OS."""
    return bounded_name(target_id.replace(":", "."))


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


def check_workspace(workspace: Path) -> None:
    """Refuse, before any work, a workspace that cannot hold runs; never repair or delete what is there."""
    workspace = workspace.resolve()
    if workspace.exists() and not workspace.is_dir():
        raise WorkspaceError(f"--workspace {workspace}: is a file, not a folder")
    runs, latest = workspace / "runs", workspace / "latest"
    if runs.exists() and not runs.is_dir():
        raise WorkspaceError(f"workspace {workspace}: runs is a file; drafter keeps its run folders there")
    if (latest.exists() or latest.is_symlink()) and not latest.is_symlink():
        raise WorkspaceError(f"workspace {workspace}: latest is a {'folder' if latest.is_dir() else 'file'}, not the "
                             "link drafter keeps to the newest complete run; move it away")
    existing = next((p for p in (runs, workspace, *workspace.parents) if p.exists()), None)
    if existing is not None and not os.access(existing, os.W_OK | os.X_OK):
        raise WorkspaceError(f"workspace {workspace}: {existing} is not writable")


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
    check_workspace(workspace)
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


def finish_run(run_dir: Path, meta: dict, move_latest: bool = True) -> Path:
    """Make a complete run visible: write run.json, rename it to runs/<id>, and point `latest` at it
    unless a newer complete run already holds `latest` (or `move_latest` is off: a shard is part of a run)."""
    final = run_dir.with_name(run_id(run_dir))
    write_json(run_dir / RUN_META, {"id": final.name, **meta, "complete": True, "finished": _now()})
    (run_dir / INCOMPLETE_NOTE).unlink(missing_ok=True)
    workspace = run_dir.parent.parent
    with workspace_lock(workspace):
        os.rename(run_dir, final)
        if not move_latest:
            return final
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
    """run.json of a complete run; ConfigError naming the file and key when it is not drafter's."""

    return read_json(run_dir / RUN_META, {"src": OptionalKey(str)},
                     hint="not the run.json drafter writes; move that run folder out of runs/")


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def source_files(src: Path) -> list[Path]:
    files = []
    for root, dirs, names in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d not in IGNORED_DIRS)
        files.extend(Path(root) / n for n in sorted(names) if not n.endswith((".pyc", ".pyo")))
    return files


def tree_hash(src: Path) -> str:
    """sha256 over relative paths and bytes of every regular file of SRC. FIFOs, devices and symlinks that loop
    or point nowhere are left out, never opened; names are hashed as the OS holds them (not always UTF-8)."""
    digest = hashlib.sha256()
    for path in source_files(src):
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):
                continue
            data = path.read_bytes()
        except OSError:
            continue
        digest.update(os.fsencode(path.relative_to(src).as_posix()) + b"\0")
        digest.update(hashlib.sha256(data).digest())
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
        shutil.copytree(src, destination, ignore=_not_copied, symlinks=True)
    except OSError as exc:
        raise SourceError(f"cannot copy SRC {src} into the run folder: {exc}") from exc
    return destination


_IGNORED_NAMES = shutil.ignore_patterns(*IGNORED_DIRS, "oracle", "*.pyc")


def _not_copied(folder: str, names: list[str]) -> set[str]:
    """Besides the ignored folders: FIFOs, devices and sockets (opening one can block) and oversized files."""
    skipped = set(_IGNORED_NAMES(folder, names))
    for name in names:
        try:
            info = os.lstat(os.path.join(folder, name))
        except OSError:
            skipped.add(name)
            continue
        if stat.S_ISLNK(info.st_mode) or stat.S_ISDIR(info.st_mode):
            continue
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_SOURCE_BYTES * 10:
            skipped.add(name)
    return skipped


def write_json(path: Path, value) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(to_jsonable(value), indent=2, sort_keys=False) + "\n", encoding="utf-8")


def write_json_atomic(path: Path, value) -> None:
    """A reader sees the old file, no file, or the whole new one (cache entries shared by concurrent runs)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, suffix=".tmp", delete=False) as tmp:
        json.dump(value, tmp)
    os.replace(tmp.name, path)


def write_text(path: Path, text: str) -> None:
    """UTF-8; what UTF-8 cannot hold (a lone surrogate from a model) is written as a backslash escape."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", errors="backslashreplace")


@contextmanager
def hypothesis_storage_in(run_dir: Path) -> Iterator[None]:
    """Hypothesis keeps its directory (constants cache, any database) in the run folder, never in the cwd.

    Forked workers inherit the setting; fresh processes read the environment variable. Its Unicode tables are
    loaded here, once, before any worker forks, from the user's shared copy (drafter.unicodecache)."""
    from hypothesis.configuration import set_hypothesis_home_dir, storage_directory

    from drafter.onerun import warm_unicode_tables

    folder = str(run_dir / "hypothesis")
    before_env = os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY")
    before_dir = storage_directory(intent_to_write=False).home_directory
    os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = folder
    set_hypothesis_home_dir(folder)
    warm_unicode_tables()
    try:
        yield
    finally:
        set_hypothesis_home_dir(before_dir)
        if before_env is None:
            os.environ.pop("HYPOTHESIS_STORAGE_DIRECTORY", None)
        else:
            os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = before_env
