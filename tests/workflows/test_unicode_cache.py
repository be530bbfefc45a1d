"""Hypothesis's Unicode tables: one validated copy per user, shared by every workspace and run."""

import gzip
import json
import os
import subprocess
import sys

from hypothesis.internal.charmap import charmap

from drafter import unicodecache
from drafter.runfolder import hypothesis_storage_in


def _table(value) -> bytes:
    return gzip.compress(json.dumps(value).encode(), mtime=1)


def test_an_empty_cache_folder_is_filled_with_tables_hypothesis_reads_back(tmp_path):
    folder = tmp_path / "cache"
    unicodecache.warm(folder)
    stored = unicodecache.read_valid(folder / "charmap.json.gz", "charmap")
    assert stored is not None and unicodecache.read_valid(folder / "codec-v2-utf-8.json.gz", "codec-v2-utf-8")
    assert dict((k, tuple(map(tuple, v))) for k, v in json.loads(gzip.decompress(stored))) == charmap()
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]  # no temporary file left behind


def test_damaged_copies_are_refused_and_replaced(tmp_path):
    folder = tmp_path / "cache"
    folder.mkdir()
    damaged = {
        "not gzip": b"tables",
        "not json": gzip.compress(b"{"),
        "gap at 0x100": _table([["Lu", [[0, 0xFF]]], ["Ll", [[0x101, sys.maxunicode]]]]),
        "overlap": _table([["Lu", [[0, 0x100]]], ["Ll", [[0x100, sys.maxunicode]]]]),
        "string bound": _table([["Lu", [[0, "9"]]]]),
    }
    for reason, data in damaged.items():
        (folder / "charmap.json.gz").write_bytes(data)
        assert unicodecache.read_valid(folder / "charmap.json.gz", "charmap") is None, reason
    whole = _table([["Co", [[0, sys.maxunicode]]]])
    (folder / "charmap.json.gz").write_bytes(whole)
    assert unicodecache.read_valid(folder / "charmap.json.gz", "charmap") == whole  # well-formed is accepted
    (folder / "charmap.json.gz").write_bytes(b"tables")
    (folder / "codec-v2-utf-8.json.gz").write_bytes(_table([[[5, 3]], []]))  # start after end
    unicodecache.warm(folder)
    assert unicodecache.read_valid(folder / "charmap.json.gz", "charmap") is not None
    assert unicodecache.read_valid(folder / "codec-v2-utf-8.json.gz", "codec-v2-utf-8") is not None


def test_a_fresh_process_in_a_new_run_folder_reads_the_shared_copy_instead_of_building_it(tmp_path):
    folder = tmp_path / "user-cache"
    # A well-formed table unlike the real one: a process that shows it read the copy rather than building its own.
    planted = _table([["Co", [[0, sys.maxunicode]]]])
    cache = unicodecache.cache_folder().relative_to(unicodecache.cache_folder().parents[2])
    (folder / cache).mkdir(parents=True)
    (folder / cache / "charmap.json.gz").write_bytes(planted)
    probe = ("import pathlib, sys\n"
             "from drafter.runfolder import hypothesis_storage_in\n"
             "from hypothesis.internal.charmap import charmap\n"
             "with hypothesis_storage_in(pathlib.Path(sys.argv[1])):\n"
             "    print(sorted(charmap()))\n")
    env = {**os.environ, "DRAFTER_CACHE_DIR": str(folder)}
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "run")], env=env, capture_output=True,
                          text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['Co']"
    assert unicodecache.read_valid(folder / cache / "codec-v2-utf-8.json.gz", "codec-v2-utf-8")  # filled in


def test_the_run_folder_context_leaves_hypothesis_where_it_was(tmp_path, monkeypatch):
    from hypothesis.configuration import storage_directory

    monkeypatch.setenv("DRAFTER_CACHE_DIR", str(tmp_path / "user-cache"))
    before = storage_directory(intent_to_write=False).home_directory
    with hypothesis_storage_in(tmp_path / "run"):
        assert os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] == str(tmp_path / "run" / "hypothesis")
    assert storage_directory(intent_to_write=False).home_directory == before
    assert (tmp_path / "user-cache").is_dir()
