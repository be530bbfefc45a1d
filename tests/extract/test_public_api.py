"""A package's API defined in private modules: re-exported names are targets under their public id, the rest is
listed as passed over, and mutants of a re-exported function are seen by the test the renderer writes for it."""

import uuid

from drafter.data import Candidate
from drafter.extract import extract
from drafter.prompt import build_prompts

FILENAME = '''
def sanitize(name):
    """Drop slashes."""
    return name.replace("/", "")


def helper(name):
    return name.strip()


class Checker:
    def check(self, name):
        return "/" not in name
'''


def package(write_tree, name="pv"):
    return write_tree({
        f"{name}/__init__.py": f"from ._filename import sanitize, Checker\nfrom ._path import *\n"
                               f"from ._renamed import original as renamed\n",
        f"{name}/_filename.py": FILENAME,
        f"{name}/_path.py": "from ._impl import join_all\n__all__ = ['join_all']\n",
        f"{name}/_impl/__init__.py": "from ._core import join_all\n",
        f"{name}/_impl/_core.py": "def join_all(parts):\n    return '/'.join(parts)\n\ndef unused(x):\n    return x\n",
        f"{name}/_renamed.py": "def original(x):\n    return x + 1\n",
        f"{name}/api.py": "from ._filename import helper\n__all__ = ['helper']\n",
        f"{name}/util.py": "from ._impl._core import unused\n",  # imported for its own use, not re-exported
    })


def test_re_exported_definitions_are_targets_under_the_public_id_and_the_rest_are_listed(write_tree):
    extraction = extract(package(write_tree))
    by_id = {t.id: t for t in extraction.targets}
    assert set(by_id) == {"pv:sanitize", "pv:Checker.check", "pv:join_all", "pv.api:helper",
                          "pv._renamed:original"}
    assert (by_id["pv:sanitize"].module, by_id["pv:sanitize"].file) == ("pv._filename", "pv/_filename.py")
    assert by_id["pv:join_all"].module == "pv._impl._core"  # through `*`, `__all__` and a private package
    listed = {e.file: e.reason for e in extraction.passed_over}
    assert "unused" in listed["pv/_impl/_core.py"] and "--include-private" in listed["pv/_impl/_core.py"]
    assert "pv/_filename.py" not in listed  # everything of it is re-exported somewhere
    # The prompt names the public path and where it is defined.
    prompt = next(p for p in build_prompts(extraction) if p.target == "pv:sanitize")
    assert "pv._filename" in prompt.user and "pv.sanitize" in prompt.user


def test_include_private_drafts_what_nobody_re_exports_and_select_reaches_both_ids(write_tree):
    src = package(write_tree)
    assert "pv._impl._core:unused" in {t.id for t in extract(src, include_private=True).targets}
    assert "pv._impl._core:unused" not in {t.id for t in extract(src).targets}
    # The public id, and where it is defined: both select it, even when the package itself is not selected.
    assert [t.id for t in extract(src, select=["pv:sanitize"]).targets] == ["pv:sanitize"]
    assert sorted(t.id for t in extract(src, select=["pv._filename:*"]).targets) == [
        "pv.api:helper", "pv:Checker.check", "pv:sanitize"]


def test_a_mutant_of_a_re_exported_function_is_killed_by_the_rendered_test(write_tree, tmp_path):
    from drafter.killmatrix import build_kill_matrix
    from drafter.render import render
    from drafter.soundness import check_soundness
    from sabotage.mutants import mutants_for

    name = f"pv_{uuid.uuid4().hex[:8]}"
    src = package(write_tree, name)
    extraction = extract(src, select=[f"{name}:sanitize"])
    target = extraction.target(f"{name}:sanitize")
    candidate = Candidate(target.id, "no_slash_left", "property", {"name": "st.text()"},
                          'assert "/" not in sanitize(name)', "")
    rendered = render(candidate, target, extraction, max_examples=30)
    assert f"from {name}._filename import sanitize" in rendered.source
    run = tmp_path / "run"
    (run / rendered.path).parent.mkdir(parents=True)
    (run / rendered.path).write_text(rendered.source)
    checks = check_soundness([rendered], run, src, seeds=1, max_examples=30, jobs=1)
    assert [c.status for c in checks] == ["sound"]
    mutants = list(mutants_for(target, src).mutants)
    matrix = build_kill_matrix(list(zip([rendered], checks)), mutants, run, src, jobs=1, max_examples=30)
    outcomes = {r.mutant_id: r.outcome for r in matrix.results}
    assert mutants and any(o == "assertion" for o in outcomes.values()), outcomes
    assert not matrix.invalid
