"""Which files of SRC and of the corpus folders are read: regular files inside the tree, of bounded size, with
names both the OS and UTF-8 can carry. Anything else is skipped with a reason, never a crash or a hang."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

from drafter.data import ExtractError
from drafter.errors import SourceError
from drafter.limits import MAX_SOURCE_BYTES

# Folders that hold generated, vendored, test or run-time material rather than the code under test.
SKIPPED_DIRS = frozenset(
    {
        "venv", "site-packages", "build", "dist", "node_modules", "vendor", "third_party", "_vendor",
        "__pycache__", "oracle", "workspace", "tests", "test",
    }
)
SKIPPED_FILES = frozenset({"setup.py", "__main__.py", "conftest.py"})


def printable(name: str) -> str:
    """A file name as text that any console and UTF-8 file can hold (undecodable bytes become \\x escapes)."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def iter_modules(src: Path, skipped: list[ExtractError] | None = None) -> Iterator[tuple[str, str]]:
    """(posix path relative to SRC, dotted module name) of every public, non-test module, in sorted order.

    Files that cannot be read as a module (see `unreadable`) are appended to `skipped` with why."""
    root_real = os.path.realpath(src)
    for root, dirnames, filenames in os.walk(src):  # never follows folder symlinks, so loops cannot hang it
        here = Path(root)
        dirnames[:] = sorted(d for d in dirnames if _wanted_dir(here / d))
        for name in sorted(filenames):
            rel = (here / name).relative_to(src)
            module = _module_name(rel)
            if module is None and not (name.endswith(".py") and _undecodable(name)):
                continue
            why = unreadable(here / name, root_real)
            if why is None:
                yield rel.as_posix(), module
            elif skipped is not None:
                skipped.append(ExtractError(printable(rel.as_posix()), why))


def unreadable(path: Path, root_real: str) -> str | None:
    """Why `path` is not read as source, or None: not a regular file (FIFO, device, socket), a symlink that
    loops or leaves SRC, a file over the size limit, a name UTF-8 cannot carry."""
    if _undecodable(os.fsdecode(path)):
        return "its name is not valid UTF-8"
    if path.is_symlink():
        try:
            target = os.path.realpath(path, strict=True)
        except (OSError, RuntimeError):
            return "a symlink that loops or points nowhere"
        if not (target == root_real or target.startswith(root_real + os.sep)):
            return "a symlink that points outside SRC"
    try:
        info = os.stat(path)
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file (a FIFO, device or socket is never opened)"
    if info.st_size > MAX_SOURCE_BYTES:
        return f"{info.st_size:,} bytes, over the limit of {MAX_SOURCE_BYTES:,} for one module"
    return None


def _undecodable(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def list_corpus(dirs: Sequence[Path]) -> tuple[str, ...]:
    """Relative posix names of the files under each corpus folder, sorted and deduplicated; never contents."""
    names: set[str] = set()
    for folder in map(Path, dirs):
        if not folder.is_dir():
            raise SourceError(f"--corpus {folder}: {'not a folder' if folder.exists() else 'no such folder'}")
        for root, dirnames, filenames in os.walk(folder):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            base = Path(root).relative_to(folder)
            names.update(printable((base / f).as_posix()) for f in filenames if not f.startswith("."))
    return tuple(sorted(names))


def _wanted_dir(path: Path) -> bool:
    name = path.name
    if name.startswith((".", "_")) or name in SKIPPED_DIRS or name.endswith(".egg-info"):
        return False
    return not (path / "pyvenv.cfg").exists()  # a virtual environment under any name


def _module_name(rel: Path) -> str | None:
    name = rel.name
    if not name.endswith(".py") or name in SKIPPED_FILES:
        return None
    stem = name[:-3]
    if stem.startswith("test_") or stem.endswith("_test") or (stem.startswith("_") and stem != "__init__"):
        return None
    parts = list(rel.parent.parts) + ([] if stem == "__init__" else [stem])
    if not parts or not all(p.isidentifier() for p in parts):
        return None  # SRC's own __init__.py, or a path Python cannot import
    return ".".join(parts)
