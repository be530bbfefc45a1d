"""Deny paths against unified/git diffs, and the deny list read from the base revision."""

import pytest

from gate.check import GateError
from gate.writeset import apply_patch

DENY = "oracle/\n**/test_*.py\n**/*_test.py\n**/conftest.py\n**/__snapshots__/\n"
COMPILED = "compiled code, which the gate does not run but an interpreter would"
APP = {"oracle/path_deny.txt": DENY, "oracle/properties/test_invariants.py": "def test_x():\n    assert 1\n",
       "src/shop/billing.py": "A = 1\n", "src/shop/logo.png": b"\x89PNG\x00\x01"}


def test_write_set_is_what_git_apply_changed_in_a_copy(tmp_path, h):
    app = tmp_path / "app"
    h.write(app, {**APP, "src/shop/run.sh": "echo\n"})
    patch = tmp_path / "p.diff"
    patch.write_text(h.make_patch(app, {"src/shop/new.py": "B = 2\n", "src/shop/logo.png": b"\x89PNG\x00\x02",
                                        "src/shop/billing.py": None, "src/shop/money.py": "A = 1\n"}, tmp_path))
    text = patch.read_text() + "diff --git a/src/shop/run.sh b/src/shop/run.sh\nold mode 100644\nnew mode 100755\n"
    patch.write_text(text)
    changes = {(c.status, c.old_path, c.new_path) for c in apply_patch(app, patch, tmp_path / "copy")}
    assert changes == {("added", None, "src/shop/new.py"), ("modified", "src/shop/logo.png", "src/shop/logo.png"),
                       ("deleted", "src/shop/billing.py", None), ("added", None, "src/shop/money.py"),
                       ("modified", "src/shop/run.sh", "src/shop/run.sh")}
    assert (app / "src/shop/billing.py").is_file()  # the app itself is never written


@pytest.mark.parametrize("text", ["", "just words\n", "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n",
                                  "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n?a\n+b\n"])
def test_patches_git_cannot_apply_raise(tmp_path, h, text):
    h.write(tmp_path / "app", APP)
    (tmp_path / "p.diff").write_text(text)
    with pytest.raises(GateError, match="does not apply"):
        apply_patch(tmp_path / "app", tmp_path / "p.diff", tmp_path / "copy")


@pytest.mark.parametrize(("edits", "hit"), [
    ({"oracle/properties/test_invariants.py": "def test_x():\n    assert 0 == 0\n"},
     "denied: oracle/properties/test_invariants.py (modified)"),
    ({"oracle/properties/test_more.py": "def test_y():\n    pass\n"}, "denied: oracle/properties/test_more.py (added)"),
    ({"src/shop/deep/er/conftest.py": "import pytest\n"}, "denied: src/shop/deep/er/conftest.py (added)"),
    ({"oracle/properties/test_invariants.py": None, "src/shop/kept.py": "def test_x():\n    assert 1\n"},
     "denied: oracle/properties/test_invariants.py (deleted)"),
    ({"src/shop/__snapshots__/a.snap": "x\n"}, "denied: src/shop/__snapshots__/a.snap (added)"),
    # Compiled code beside untouched source: a real interpreter would load it, the gate runs the source.
    ({"src/shop/__pycache__/billing.cpython-311.pyc": b"\xa7\r\r\n\x00"},
     f"denied: src/shop/__pycache__/billing.cpython-311.pyc (added): {COMPILED}"),
    ({"src/shop/billing.pyc": b"\xa7\r\r\n\x00"}, f"denied: src/shop/billing.pyc (added): {COMPILED}"),
    ({"src/shop/fast.cpython-311-x86_64-linux-gnu.so": b"\x7fELF"},
     f"denied: src/shop/fast.cpython-311-x86_64-linux-gnu.so (added): {COMPILED}"),
])
def test_patch_touching_a_denied_path_is_blocked(tmp_path, h, edits, hit):
    app = tmp_path / "app"
    h.write(app, APP)
    patch = tmp_path / "p.diff"
    patch.write_text(h.make_patch(app, edits, tmp_path))
    code, data = h.gate_json("deny", "--deny", app / "oracle/path_deny.txt", "--patch", patch, "--app", app)
    assert code == 2 and hit in data["denied"]

    benign = tmp_path / "ok.diff"
    benign.write_text(h.make_patch(app, {"src/shop/billing.py": "A = 2\n"}, tmp_path))
    code, data = h.gate_json("deny", "--deny", app / "oracle/path_deny.txt", "--patch", benign, "--app", app)
    assert (code, data["denied"], data["touched"]) == (0, [], ["src/shop/billing.py"])


def test_malformed_patch_or_empty_deny_list_exits_3(tmp_path, h):
    app = tmp_path / "app"
    h.write(app, APP)
    bad = tmp_path / "bad.diff"
    bad.write_text("diff --git a/x b/x\n@@ -1,3 +1,3 @@\n a\n")
    done = h.gate("deny", "--deny", app / "oracle/path_deny.txt", "--patch", bad, "--app", app)
    assert done.returncode == 3 and "bad.diff" in done.stderr
    (tmp_path / "empty.txt").write_text("# nothing\n")
    good = tmp_path / "good.diff"
    good.write_text(h.make_patch(app, {"src/shop/billing.py": "A = 3\n"}, tmp_path))
    assert h.gate("deny", "--deny", tmp_path / "empty.txt", "--patch", good, "--app", app).returncode == 3
    assert h.gate("deny", "--deny", app / "oracle/path_deny.txt", "--patch", good, "--app", app).returncode == 0


def test_with_base_the_deny_list_comes_from_the_base_revision(tmp_path, h):
    repo = h.new_repo(tmp_path / "repo", {**APP, "tests/test_unit.py": "def test_u():\n    pass\n"})
    # The patch empties the deny list and edits a test: judged by the base's list it is still denied.
    h.commit(repo, "loosen", {"oracle/path_deny.txt": "nothing/\n", "tests/test_unit.py": "def test_u():\n    1\n"})
    code, data = h.gate_json("deny", "--deny", "oracle/path_deny.txt", "--base", "main~1", cwd=repo)
    assert code == 2
    assert data["denied"] == ["denied: oracle/path_deny.txt (modified)", "denied: tests/test_unit.py (modified)"]
    h.write(repo, {"src/shop/untracked_test.py": "x = 1\n"})  # untracked files count as added
    h.git(repo, "reset", "-q", "--hard", "main~1")
    h.write(repo, {"src/shop/billing.py": "A = 5\n"})
    code, data = h.gate_json("deny", "--deny", "oracle/path_deny.txt", "--base", "HEAD", cwd=repo)
    assert code == 2 and data["denied"] == ["denied: src/shop/untracked_test.py (added)"]
    (repo / "src/shop/untracked_test.py").unlink()
    code, data = h.gate_json("deny", "--deny", "oracle/path_deny.txt", "--base", "HEAD", cwd=repo)
    assert (code, data["touched"]) == (0, ["src/shop/billing.py"])
    assert h.gate("deny", "--deny", "oracle/path_deny.txt", "--base", "no-such-rev", cwd=repo).returncode == 3


def test_files_a_patch_writes_into_cache_folders_are_in_the_write_set(tmp_path, h):
    app = tmp_path / "app"
    h.write(app, APP)
    patch = tmp_path / "p.diff"
    patch.write_text(h.make_patch(app, {"src/shop/__pycache__/billing.cpython-311.pyc": b"\x00stale"}, tmp_path))
    changes = apply_patch(app, patch, tmp_path / "copy")
    assert [(c.status, c.new_path) for c in changes] == [("added", "src/shop/__pycache__/billing.cpython-311.pyc")]
