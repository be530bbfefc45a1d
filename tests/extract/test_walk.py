"""Which files extraction reads, what it reports for bad ones, select globs, corpus names, read-only SRC."""

import shutil
import time

import pytest

from drafter.errors import SourceError
from drafter.extract import extract
from drafter.walk import list_corpus

GOOD = "def kept(x: int) -> int:\n    return x\n"


def test_tests_vendored_and_generated_files_are_skipped_and_listed_with_why(write_tree):
    skipped = [
        "app/test_app.py", "app/app_test.py", "app/conftest.py", "app/tests/helpers.py", "test/x.py",
        "setup.py", "app/__main__.py",
        "venv/lib/mod.py", ".venv/lib/mod.py", "env2/lib/mod.py", "lib/site-packages/mod.py", "build/lib/mod.py",
        "dist/mod.py", "node_modules/mod.py", "vendor/mod.py", "third_party/mod.py", "app/_vendor/mod.py",
        "app/__pycache__/mod.py", ".git/mod.py", ".tox/mod.py", ".hidden/mod.py", "oracle/mod.py",
        "workspace/runs/mod.py", "pkg.egg-info/mod.py",
    ]
    files = {rel: GOOD for rel in skipped}
    files["env2/pyvenv.cfg"] = "home = /usr\n"  # a virtual environment under an unusual name
    files |= {"app/__init__.py": GOOD, "app/core.py": GOOD, "app/sub/deep.py": GOOD, "top.py": GOOD}
    files |= {"app/_internal.py": GOOD, "_private_pkg/mod.py": GOOD}  # private and re-exported by nobody
    extraction = extract(write_tree(files))
    assert [t.id for t in extraction.targets] == ["app:kept", "app.core:kept", "app.sub.deep:kept", "top:kept"]
    assert [t.file for t in extraction.targets] == ["app/__init__.py", "app/core.py", "app/sub/deep.py", "top.py"]
    listed = {e.file: e.reason for e in extraction.passed_over}
    expected = {"app/test_app.py": "test module", "app/conftest.py": "pytest", "app/tests/": "test folder",
                "setup.py": "packaging", "app/__main__.py": "entry point", "env2/": "virtual environment",
                ".venv/": "hidden", "lib/site-packages/": "installed", "app/_vendor/": "vendored",
                "pkg.egg-info/": "metadata", "app/_internal.py": "private module", "_private_pkg/mod.py": "kept not"}
    for path, why in expected.items():
        assert all(word in listed[path] for word in why.split()), (path, listed.get(path))
    assert "--include-private" in listed["app/_internal.py"]
    everything = extract(write_tree(files), include_private=True)
    assert {"app._internal:kept", "_private_pkg.mod:kept"} <= {t.id for t in everything.targets}


def test_bad_files_are_reported_and_their_siblings_still_extracted(write_tree):
    src = write_tree({
        "pkg/__init__.py": "",
        "pkg/a_before.py": GOOD,
        "pkg/broken.py": "def ok():\n    return 1\n\ndef broken(:\n    pass\n",
        "pkg/z_after.py": GOOD,
    })
    (src / "pkg" / "latin.py").write_bytes(b"def bad():\n    return '\xff\xfe'\n")  # not UTF-8, no coding line
    extraction = extract(src)
    assert [t.id for t in extraction.targets] == ["pkg.a_before:kept", "pkg.z_after:kept"]
    errors = {e.file: e.reason for e in extraction.errors}
    assert set(errors) == {"pkg/broken.py", "pkg/latin.py"}
    assert "syntax error at line" in errors["pkg/broken.py"] and "column" in errors["pkg/broken.py"]
    assert "utf-8" in errors["pkg/latin.py"]
    assert "pkg.broken" not in extraction.module_names and "pkg.a_before" in extraction.module_names


def test_declared_encoding_is_honoured(write_tree):
    src = write_tree({})
    (src / "legacy.py").write_bytes(b"# -*- coding: latin-1 -*-\ndef caf\xe9_name():\n    '''Caf\xe9.'''\n")
    extraction = extract(src)
    assert [t.id for t in extraction.targets] == ["legacy:café_name"]
    assert extraction.targets[0].docstring == "Café." and not extraction.errors


def test_missing_or_non_folder_src_raises_source_error(tmp_path, write_tree):
    with pytest.raises(SourceError, match="nowhere"):
        extract(tmp_path / "nowhere")
    (tmp_path / "file.py").write_text(GOOD)
    with pytest.raises(SourceError, match="file.py"):
        extract(tmp_path / "file.py")
    assert [t.id for t in extract(write_tree({"m.py": GOOD})).targets] == ["m:kept"]  # a real folder is fine


def test_select_globs_keep_only_matching_targets(shop_src):
    everything = extract(shop_src)
    billing = extract(shop_src, select=["shop.billing:*"])
    assert billing.targets and {t.module for t in billing.targets} == {"shop.billing"}
    assert [t for t in everything.targets if t.module == "shop.billing"] == list(billing.targets)
    assert [t.id for t in extract(shop_src, select=["*:apply_tax"]).targets] == ["shop.billing:apply_tax"]
    both = extract(shop_src, select=["*:apply_tax", "*.to_dict"])
    assert [t.id for t in both.targets] == ["shop.billing:apply_tax", "shop.envelope:Envelope.to_dict"]
    assert extract(shop_src, select=["nothing:*"]).targets == ()
    # Only modules a glob can match are parsed (and what they import from): the rest of SRC is never read.
    assert set(billing.module_names) == {"shop.billing"} and len(everything.module_names) > 1
    assert billing.module_names["shop.billing"] == everything.module_names["shop.billing"]


def test_select_parses_the_modules_a_selection_imports_from(write_tree):
    src = write_tree({
        "pkg/__init__.py": "",
        "pkg/kinds.py": "import enum\nclass Colour(enum.Enum):\n    RED = 1\n    BLUE = 2\n",
        "pkg/paint.py": "from pkg.kinds import Colour\ndef paint(c: Colour) -> str:\n    return c.name\n",
        "pkg/other.py": GOOD,
    })
    paint = extract(src, select=["pkg.paint:*"])
    assert [t.id for t in paint.targets] == ["pkg.paint:paint"]
    assert [c.name for c in paint.classes] == ["Colour"]  # the annotation's enum can still be drawn
    assert "pkg.other" not in paint.module_names


def test_corpus_names_relative_sorted_deduplicated(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    for folder, names in ((one, ["b.txt", "a.json", "sub/c.diff", ".hidden"]), (two, ["a.json", "z.txt"])):
        for name in names:
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text("SECRET CONTENT")
    assert list_corpus([one, two]) == ("a.json", "b.txt", "sub/c.diff", "z.txt")
    assert list_corpus([]) == ()
    with pytest.raises(SourceError, match="missing"):
        list_corpus([one, tmp_path / "missing"])


def test_missing_corpus_dir_is_an_error_for_extract_too(shop_src, tmp_path):
    with pytest.raises(SourceError, match="no-corpus"):
        extract(shop_src, corpus_dirs=[tmp_path / "no-corpus"])
    assert "SECRET" not in str(extract(shop_src, corpus_dirs=[shop_src / "corpus"]).corpus)


def test_src_is_left_untouched(shop_src, tmp_path, tree_digest):
    src = tmp_path / "shop"
    shutil.copytree(shop_src, src, ignore=shutil.ignore_patterns("__pycache__"))
    before = tree_digest(src)
    time.sleep(0.01)  # so that a rewrite would show in the modification times
    extraction = extract(src, corpus_dirs=[src / "corpus"])
    assert extraction.targets
    assert tree_digest(src) == before
    assert not list(src.rglob("__pycache__"))


def test_hostile_files_are_skipped_with_a_reason_and_the_rest_extracted(write_tree, tmp_path, monkeypatch):
    import os

    from drafter import walk

    monkeypatch.setattr(walk, "MAX_SOURCE_BYTES", 10_000)
    src = write_tree({"pkg/__init__.py": "", "pkg/good.py": GOOD, "pkg/huge.py": GOOD + "#" * 20_000 + "\n"})
    os.mkfifo(src / "pkg" / "fifo.py")  # opening it would block for ever
    (src / "pkg" / "loop.py").symlink_to(src / "pkg" / "loop.py")
    (tmp_path / "outside.py").write_text(GOOD)
    (src / "pkg" / "escape.py").symlink_to(tmp_path / "outside.py")
    (src / "pkg" / "alias.py").symlink_to(src / "pkg" / "good.py")  # inside SRC: read like any module
    (src / "pkg" / "sub").mkdir()
    (src / "pkg" / "sub" / "again").symlink_to(src / "pkg", target_is_directory=True)  # a folder loop
    os.close(os.open(os.path.join(os.fsencode(src / "pkg"), b"bad\xffname.py"), os.O_CREAT | os.O_WRONLY))

    extraction = extract(src)
    assert [t.id for t in extraction.targets] == ["pkg.alias:kept", "pkg.good:kept"]
    reasons = {e.file: e.reason for e in extraction.errors}
    assert "FIFO" in reasons["pkg/fifo.py"]
    assert "loops" in reasons["pkg/loop.py"]
    assert "outside SRC" in reasons["pkg/escape.py"]
    assert "over the limit" in reasons["pkg/huge.py"]
    assert "not valid UTF-8" in reasons["pkg/bad\\xffname.py"]


def test_corpus_names_that_utf8_cannot_carry_are_escaped(tmp_path):
    import os

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "plain.txt").write_text("x")
    os.close(os.open(os.path.join(os.fsencode(corpus), b"odd\xfe.bin"), os.O_CREAT | os.O_WRONLY))
    (corpus / "loop").symlink_to(corpus, target_is_directory=True)
    assert list_corpus([corpus]) == ("odd\\xfe.bin", "plain.txt")  # a folder symlink is not followed


def test_the_reports_tree_hash_never_opens_a_fifo_or_chokes_on_loops_and_odd_names(write_tree, tmp_path):
    import os

    from drafter.runfolder import tree_hash

    src = write_tree({"pkg/__init__.py": "", "pkg/good.py": GOOD})
    clean = tree_hash(src)
    os.mkfifo(src / "pkg" / "fifo.py")  # opening it would block for ever
    (src / "pkg" / "loop.py").symlink_to(src / "pkg" / "loop.py")
    (src / "pkg" / "ring").symlink_to(src / "pkg" / "ring", target_is_directory=True)
    assert tree_hash(src) == clean  # neither is a file a run reads
    os.close(os.open(os.path.join(os.fsencode(src / "pkg"), b"caf\xe9.py"), os.O_CREAT | os.O_WRONLY))
    with_odd_name = tree_hash(src)
    assert with_odd_name != clean  # a real file, hashed under the bytes of its name
    (src / "pkg" / "good.py").write_text(GOOD + "\n# changed\n")
    assert tree_hash(src) not in (clean, with_odd_name)
