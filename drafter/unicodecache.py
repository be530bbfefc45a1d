"""Hypothesis's Unicode tables, built once per user and machine and shared by every workspace and run.

Hypothesis builds the tables behind `st.text()` (about 2.5 CPU-s) in every process that has them neither in memory
nor in its storage folder, and drafter gives every run a storage folder of its own. So a copy lives in the user's
cache folder (`$DRAFTER_CACHE_DIR`, else the platform's: `$XDG_CACHE_HOME/drafter` or `~/.cache/drafter` on Linux),
keyed by the Hypothesis and Unicode versions. A copy is validated before Hypothesis reads it (another process or
user may have written anything there), and written atomically; one that fails is ignored and replaced.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import sys
import tempfile
import unicodedata
from pathlib import Path

TABLES = ("charmap", "codec-v2-utf-8")
MAX_TABLE_BYTES = 8 << 20  # the real tables are a few kB decompressed; anything this large is not one


def cache_folder() -> Path:
    import hypothesis
    import platformdirs

    base = os.environ.get("DRAFTER_CACHE_DIR") or platformdirs.user_cache_dir("drafter", appauthor=False)
    return Path(base) / "unicode_data" / f"hypothesis-{hypothesis.__version__}" / unicodedata.unidata_version


def warm(folder: Path | None = None) -> None:
    """Hypothesis's tables in memory, from the shared copy when it is valid; a missing or bad copy is rebuilt."""
    from hypothesis.internal.charmap import charmap, charmap_file, intervals_from_codec

    folder = cache_folder() if folder is None else folder
    valid = {}
    for name in TABLES:
        data = read_valid(folder / f"{name}.json.gz", name)
        valid[name] = data is not None
        own = charmap_file(name)
        if data is not None and not own.exists():
            _write_atomic(own, data)  # where Hypothesis looks; it reads it on the calls below
    tables = {"charmap": sorted(charmap().items()), "codec-v2-utf-8": [s.intervals for s in intervals_from_codec("utf-8")]}
    for name, table in tables.items():
        if not valid[name]:
            _write_atomic(folder / f"{name}.json.gz", gzip.compress(json.dumps(table).encode(), mtime=1))


def read_valid(path: Path, name: str) -> bytes | None:
    """The file's bytes when they hold a well-formed table called `name`, else None."""
    try:
        data = path.read_bytes()
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as unzipped:
            text = unzipped.read(MAX_TABLE_BYTES + 1)
        if len(text) > MAX_TABLE_BYTES:
            return None
        table = json.loads(text)
    except (OSError, EOFError, ValueError):
        return None
    return data if (_valid_charmap(table) if name == "charmap" else _valid_codec(table)) else None


def _valid_charmap(table: object) -> bool:
    """[[category, [[start, end], …]], …]: two-letter categories whose intervals tile every code point once."""
    if not isinstance(table, list) or not all(
            isinstance(row, list) and len(row) == 2 and isinstance(row[0], str) and len(row[0]) == 2
            and _intervals(row[1]) for row in table):
        return False
    every = sorted(pair for _, pairs in table for pair in pairs)
    return bool(every) and every[0][0] == 0 and every[-1][1] == sys.maxunicode and all(
        later[0] == earlier[1] + 1 for earlier, later in zip(every, every[1:]))


def _valid_codec(table: object) -> bool:
    """[encodable intervals, intervals that do not round-trip], each sorted and disjoint."""
    return isinstance(table, list) and len(table) == 2 and all(_intervals(part) for part in table) and bool(table[0])


def _intervals(pairs: object) -> bool:
    if not isinstance(pairs, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(type(n) is int for n in p) and 0 <= p[0] <= p[1] <= sys.maxunicode
            for p in pairs):
        return False
    return all(earlier[1] < later[0] for earlier, later in zip(pairs, pairs[1:]))


def _write_atomic(path: Path, data: bytes) -> None:
    """Written whole or not at all; a folder we cannot write only costs the rebuild next time."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", delete=False) as tmp:
            tmp.write(data)
        os.replace(tmp.name, path)
    except OSError:
        try:
            os.unlink(tmp.name)
        except (OSError, UnboundLocalError):
            pass
