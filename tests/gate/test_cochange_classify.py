"""Commit-scoped co-change and the write-set x import-graph voting classifier."""

import json

BASE = {
    "src/shop/__init__.py": "",
    "src/shop/core.py": "def total(xs):\n    return sum(xs)\n",
    "src/shop/middle.py": "from shop import core\n\ndef twice(xs):\n    return 2 * core.total(xs)\n",
    "src/shop/top.py": "from .middle import twice\n",
    "src/shop/other.py": "def one():\n    return 1\n",
    "oracle/properties/test_p.py": "from shop.other import one\n\ndef test_one():\n    assert one() == 1\n",
    "tests/test_chain.py": "from shop.top import twice\n\ndef test_twice():\n    assert twice([1]) == 2\n",
    "tests/test_other.py": "import shop.other\n\ndef test_other():\n    assert shop.other.one() == 1\n",
    "tests/test_dynamic.py": "import importlib\n\ndef test_dyn():\n    importlib.import_module('shop.other')\n",
    "tests/test_dunder.py": "def test_dunder():\n    __import__('shop.other')\n",
}


def test_a_commit_touching_src_and_oracle_together_blocks(tmp_path, h):
    repo = h.new_repo(tmp_path / "repo", BASE)
    h.commit(repo, "fix core", {"src/shop/core.py": "def total(xs):\n    return sum(list(xs))\n"})
    h.commit(repo, "new property", {"oracle/properties/test_q.py": "def test_q():\n    assert True\n"})
    code, data = h.gate_json("cochange", "--base", "main~2", cwd=repo)
    assert (code, data["cochange"]) == (0, [])
    assert [line.split(" ", 1)[1] for line in data["oracle_commits"]] == ["new property"]

    h.commit(repo, "sneaky", {"src/shop/other.py": "def one():\n    return 2\n",
                              "oracle/properties/test_p.py": "def test_one():\n    pass\n"})
    code, data = h.gate_json("cochange", "--base", "main~3", cwd=repo)
    assert code == 2 and len(data["cochange"]) == 1 and "sneaky" in data["cochange"][0]


def test_rename_across_trees_counts_on_both_sides(tmp_path, h):
    repo = h.new_repo(tmp_path / "repo", BASE)
    h.git(repo, "mv", "src/shop/other.py", "oracle/other.py")
    h.git(repo, "commit", "-q", "-m", "move")
    code, data = h.gate_json("cochange", "--base", "main~1", cwd=repo)
    assert code == 2 and "move" in data["cochange"][0]


def test_classifier_follows_the_import_chain_and_distrusts_dynamic_imports(tmp_path, h):
    repo = h.new_repo(tmp_path / "repo", BASE)
    h.write(repo, {"src/shop/core.py": "def total(xs):\n    return sum(xs) + 0\n"})
    code, data = h.gate_json("classify", "--base", "HEAD", "--tests", "tests,oracle", "--prod", "src", cwd=repo)
    assert code == 0
    assert data["tests"] == {"oracle/properties/test_p.py": "vote", "tests/test_chain.py": "non_voting",
                             "tests/test_dunder.py": "non_voting", "tests/test_dynamic.py": "non_voting",
                             "tests/test_other.py": "vote"}
    # test_chain -> shop.top -> shop.middle -> shop.core: two modules between the test and the change.
    assert data["reasons"]["tests/test_chain.py"] == (
        "imports changed code: tests/test_chain.py -> src/shop/top.py -> src/shop/middle.py -> src/shop/core.py")
    assert "importlib" in data["reasons"]["tests/test_dynamic.py"]
    assert "__import__" in data["reasons"]["tests/test_dunder.py"]
    assert data["vote_count"] == 2 and data["blocked"] is False


def test_test_in_write_set_and_zero_votes_block(tmp_path, h):
    repo = h.new_repo(tmp_path / "repo", {k: v for k, v in BASE.items() if not k.startswith("oracle/")})
    h.write(repo, {"src/shop/other.py": "def one():\n    return 1 if True else 0\n",
                   "tests/test_chain.py": BASE["tests/test_chain.py"] + "\n"})
    code, data = h.gate_json("classify", "--base", "HEAD", cwd=repo)
    assert code == 2 and data["blocked"] is True and data["vote_count"] == 0
    assert data["reasons"]["tests/test_chain.py"] == "the test file itself is in the write-set"
    assert data["reasons"]["tests/test_other.py"].endswith("src/shop/other.py")


def test_frozen_tests_in_the_ledger_are_witnesses(tmp_path, h):
    repo = h.new_repo(tmp_path / "repo", BASE)
    ledger = tmp_path / "ledger.json"
    ledger.write_text(json.dumps({"version": 1, "policy": "hysteresis",
                                  "tests": {"tests/test_other.py::test_other": {"admitted_by": "owner"}}}))
    code, data = h.gate_json("classify", "--base", "HEAD", "--ledger", ledger, cwd=repo)
    assert code == 0
    assert data["tests"]["tests/test_other.py::test_other"] == "witness"
    assert data["tests"]["tests/test_chain.py"] == "vote"
    ledger.write_text('{"version": 1, "policy": "sometimes"}')
    done = h.gate("classify", "--base", "HEAD", "--ledger", ledger, cwd=repo)
    assert done.returncode == 3 and "policy" in done.stderr


def test_unknown_base_revision_is_an_error_naming_it(tmp_path, h):
    repo = h.new_repo(tmp_path / "repo", BASE)
    for command in ("cochange", "classify"):
        done = h.gate(command, "--base", "no-such-rev", cwd=repo)
        assert done.returncode == 3 and "unknown revision 'no-such-rev'" in done.stderr, done.stderr
        assert h.gate(command, "--base", "HEAD", cwd=repo).returncode == 0


def test_a_version_bump_every_test_imports_passes_because_the_oracle_votes(tmp_path, h):
    repo = h.new_repo(tmp_path / "repo", {**BASE, "src/shop/__init__.py": "__version__ = '1.0'\n"})
    h.write(repo, {"src/shop/__init__.py": "__version__ = '1.1'\n"})
    code, data = h.gate_json("classify", "--base", "HEAD", "--tests", "tests", "--prod", "src", cwd=repo)
    assert data["vote_count"] == 0 and code == 0, data  # every test imports the package that changed
    assert data["evidence"] == ["1 oracle property files under oracle/ (outside the write-set)"]
    code, data = h.gate_json("classify", "--base", "HEAD", "--tests", "tests", "--prod", "src", "--oracle",
                             "no-oracle", cwd=repo)
    assert (code, data["blocked"]) == (2, True)  # without an oracle, zero votes still blocks


def test_merges_and_export_rules_cannot_hide_a_commit_that_touches_both_trees(tmp_path, h):
    repo = h.new_repo(tmp_path / "repo", BASE)
    # An archive-based view would miss files an export-ignore rule hides; the tree comparison does not.
    h.commit(repo, "attributes", {".gitattributes": "oracle/** export-ignore\n"})
    h.commit(repo, "hidden", {"src/shop/other.py": "def one():\n    return 2\n",
                              "oracle/properties/test_p.py": "def test_one():\n    pass\n"})
    code, data = h.gate_json("cochange", "--base", "main~2", cwd=repo)
    assert code == 2 and [c.split(" ", 2)[2].split(" touches")[0] for c in data["cochange"]] == ["hidden"]
    # A merge commit whose own resolution touches both trees (diff-tree shows merges as nothing).
    repo = h.new_repo(tmp_path / "merged", BASE)
    h.git(repo, "checkout", "-q", "-b", "side")
    h.commit(repo, "side work", {"src/shop/core.py": "def total(xs):\n    return sum(list(xs))\n"})
    h.git(repo, "checkout", "-q", "main")
    h.commit(repo, "main work", {"tests/test_new.py": "def test_n():\n    pass\n"})
    h.git(repo, "merge", "-q", "--no-commit", "side")
    h.commit(repo, "merge with a twist", {"src/shop/other.py": "def one():\n    return 3\n",
                                          "oracle/properties/test_p.py": "def test_one():\n    pass\n"})
    code, data = h.gate_json("cochange", "--base", "main~2", cwd=repo)
    assert code == 2 and "merge with a twist" in data["cochange"][0], data
    # The honest merge beside it: bringing one side's work in writes nothing of its own.
    repo = h.new_repo(tmp_path / "honest", BASE)
    h.git(repo, "checkout", "-q", "-b", "side")
    h.commit(repo, "side work", {"src/shop/core.py": "def total(xs):\n    return sum(list(xs))\n"})
    h.git(repo, "checkout", "-q", "main")
    h.commit(repo, "oracle work", {"oracle/properties/test_q.py": "def test_q():\n    assert True\n"})
    h.git(repo, "merge", "-q", "-m", "merge side", "side")
    code, data = h.gate_json("cochange", "--base", "main~2", cwd=repo)
    assert (code, data["cochange"]) == (0, []), data


def test_branch_write_set_sees_modes_symlinks_and_untracked_files(tmp_path, h):
    import os

    repo = h.new_repo(tmp_path / "repo", BASE)
    os.chmod(repo / "tests/test_other.py", 0o755)  # a mode-only change
    os.symlink("../oracle/properties", repo / "src/shop/props")
    h.write(repo, {"notes.txt": "untracked\n"})
    code, data = h.gate_json("classify", "--base", "HEAD", "--tests", "tests", "--prod", "src", cwd=repo)
    assert data["reasons"]["tests/test_other.py"] == "the test file itself is in the write-set", data
    assert data["tests"]["tests/test_chain.py"] == "vote"  # nothing it imports changed
    h.write(repo, {"deny.txt": "src/shop/props\ntests/test_other.py\n"})
    h.git(repo, "add", "deny.txt")
    h.git(repo, "commit", "-q", "-m", "deny list")
    code, data = h.gate_json("deny", "--deny", repo / "deny.txt", "--base", "HEAD", "--repo", repo, cwd=repo)
    assert code == 2 and data["denied"] == ["denied: src/shop/props (added)", "denied: tests/test_other.py (modified)"]
    assert "notes.txt" in data["touched"] and "tests/test_chain.py" not in data["touched"]
