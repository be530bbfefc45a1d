"""Helpers for the extraction tests: write a source tree into tmp_path, and fingerprint a whole folder."""

import hashlib
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture
def write_tree(tmp_path: Path) -> Callable[[dict[str, str]], Path]:
    """Write {relative path: source} under tmp_path/src (sources are dedented) and return that folder."""

    def write(files: dict[str, str]) -> Path:
        root = tmp_path / "src"
        for rel, text in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text))
        root.mkdir(exist_ok=True)
        return root

    return write


@pytest.fixture
def tree_digest() -> Callable[[Path], str]:
    """sha256 over every path, file content and mtime under a folder: any write inside it changes the digest."""

    def digest(root: Path) -> str:
        h = hashlib.sha256()
        for path in sorted(root.rglob("*")):
            stat = path.stat()
            h.update(path.relative_to(root).as_posix().encode() + b"\0")
            h.update(str(stat.st_mtime_ns).encode() + b"\0")
            if path.is_file():
                h.update(path.read_bytes())
        return h.hexdigest()

    return digest
