"""Which files of SRC and of the corpus folders are read: regular files inside the tree, of bounded size, with
names both the OS and UTF-8 can carry. Anything else is skipped with a reason, never a crash or a hang, and every
folder or module the walk passes over on purpose (tests, vendored code, environments) is listed with why.

Private modules (`_x.py`, `_impl/`) are read: what the package re-exports from them is its public API."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

from drafter.data import ExtractError
from drafter.errors import SourceError
from drafter.limits import MAX_SOURCE_BYTES

# Folders that hold generated, vendored, test or run-time material rather than the code under test.
SKIPPED_DIRS = {
    **dict.fromkeys(("venv", "site-packages", "node_modules"), "installed packages, not the code under test"),
    **dict.fromkeys(("build", "dist", "__pycache__"), "build output"),
    **dict.fromkeys(("vendor", "third_party", "_vendor"), "vendored third-party code"),
    "oracle": "the oracle's own tests", "workspace": "drafter's staging area",
    **dict.fromkeys(("tests", "test"), "a test folder"),
}
SKIPPED_FILES = {"setup.py": "a packaging script", "__main__.py": "a command-line entry point",
                 "conftest.py": "pytest configuration"}


def printable(name: str) -> str:
    """A file name as text that any console and UTF-8 file can hold (undecodable bytes become \\x escapes)."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def iter_modules(
    src: Path, skipped: list[ExtractError] | None = None, passed_over: list[ExtractError] | None = None
) -> Iterator[tuple[str, str]]:
    """(posix path relative to SRC, dotted module name) of every non-test module, in sorted order.

    Files that cannot be read as a module (see `unreadable`) are appended to `skipped` with why; folders and
    Python files left out on purpose (tests, vendored code, environments, scripts) to `passed_over` with why."""
    root_real = os.path.realpath(src)
    passed_over = [] if passed_over is None else passed_over
    for root, dirnames, filenames in os.walk(src):  # never follows folder symlinks, so loops cannot hang it
        here = Path(root)
        reasons = {d: _unwanted_dir(here / d) for d in dirnames}
        passed_over += [ExtractError(printable((here / d).relative_to(src).as_posix()) + "/", why)
                        for d, why in sorted(reasons.items()) if why]
        dirnames[:] = sorted(d for d, why in reasons.items() if not why)
        for name in sorted(filenames):
            rel = (here / name).relative_to(src)
            module, why = _module_name(rel)
            if module is None and not (name.endswith(".py") and _undecodable(name)):
                if why:
                    passed_over.append(ExtractError(printable(rel.as_posix()), why))
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


def is_private(module: str) -> bool:
    """`pkg._impl.core`, `pkg._filename`: a module users are not meant to import by that name."""
    return any(part.startswith("_") for part in module.split("."))


def _unwanted_dir(path: Path) -> str:
    """Why a folder is not walked, or ""."""
    name = path.name
    if name.startswith("."):
        return "a hidden folder"
    if name in SKIPPED_DIRS:
        return SKIPPED_DIRS[name]
    if name.endswith(".egg-info"):
        return "packaging metadata"
    if (path / "pyvenv.cfg").exists():
        return "a virtual environment"
    return ""


def _module_name(rel: Path) -> tuple[str | None, str]:
    """The dotted module name of a file, or None and why a Python file is left out ("" for other files)."""
    name = rel.name
    if not name.endswith(".py"):
        return None, ""
    if name in SKIPPED_FILES:
        return None, SKIPPED_FILES[name]
    stem = name[:-3]
    if stem.startswith("test_") or stem.endswith("_test"):
        return None, "a test module"
    parts = list(rel.parent.parts) + ([] if stem == "__init__" else [stem])
    if not parts:
        return None, ""  # SRC's own __init__.py: SRC is the folder holding packages
    if not all(p.isidentifier() for p in parts):
        return None, "its path is not an importable module name"
    return ".".join(parts), ""
