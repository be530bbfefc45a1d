"""Heuristic families from static evidence, one regression test per proposer bug found on real packages.

Each candidate goes through the real parse, lint and render stages and the rendered file is run here: on the
module as written it must pass, and on a deliberately broken copy it must fail by its own assertion.
"""

from __future__ import annotations

import ast
import importlib
import json
import sys
from pathlib import Path

import pytest

from drafter.candidates import parse_reply
from drafter.data import Prompt
from drafter.extract import extract
from drafter.lint import lint
from drafter.models import load_backend
from drafter.render import render

MODULE = '''
from typing import Iterator, SupportsInt, Union

String = Union[str, bytes]


def windows(items: list[int], n: int) -> Iterator[list[int]]:
    """Consecutive windows of n items.

    >>> list(windows([1, 2, 3], 2))
    [[1, 2], [2, 3]]
    """
    if n < 1:
        raise ValueError("n must be at least 1")
    for start in range(len(items) - n + 1):
        yield items[start:start + n]


def sort_unique(items: list[int]) -> Iterator[int]:
    yield from sorted(set(items))


def clamp_to(value: int, low: int, high: int) -> int:
    """Clamp value into [low, high]."""
    return max(low, min(high, value))


def pad(text: str, width: int) -> str:
    """Pad to width.

    >>> pad("ab", 4)
    [2, 3]
    """
    return text.ljust(width)


def once(text: str) -> str:
    return text


def normalize(text: str) -> str:
    return " ".join(text.split())


def halve(x: int) -> int:
    """Half of x."""
    return x // 2


def score(n: int) -> int:
    """The score is non-decreasing in n."""
    return n * 3


def width_of(value: String) -> int:
    """Raises ValueError for a negative count."""
    return len(value)


def as_int(value: SupportsInt) -> int:
    if value < 0:
        raise ValueError("negative")
    return int(value)


def repeat_word(word, times):
    """Repeat a word.

    >>> repeat_word("ab", 3)
    'ababab'
    """
    return word * times


def compare(a: int, b: int) -> int:
    return (a > b) - (a < b)


class Version:
    def __init__(self, major: int, minor: int = 0):
        if major < 0 or minor < 0:
            raise ValueError("negative")
        self.major = major
        self.minor = minor

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    def __eq__(self, other):
        return isinstance(other, Version) and (self.major, self.minor) == (other.major, other.minor)

    @classmethod
    def parse(cls, text: str) -> "Version":
        major, minor = text.split(".")
        return cls(int(major), int(minor))
'''


@pytest.fixture(scope="module")
def drafted(tmp_path_factory):
    root = tmp_path_factory.mktemp("src")
    (root / "evmod.py").write_text(MODULE)
    extraction = extract(root)
    replies = load_backend("heuristic").propose([Prompt(t.id, "s", "u") for t in extraction.targets], extraction)
    by_target = {}
    for reply in replies:
        target = extraction.target(reply.target)
        items = lint(parse_reply(reply, target), target, extraction)
        assert all(d.verdict.accepted for d in items), [(d.id, d.verdict) for d in items if not d.verdict.accepted]
        by_target[target.qualname] = {d.candidate.name: d for d in items}
    return root, extraction, by_target, {r.target.split(":")[1]: json.loads(r.text) for r in replies}


def run_rendered(root: Path, extraction, item, module_text: str, tmp_path: Path) -> Exception | None:
    """Run one candidate's rendered file against `module_text` (as module evmod); the failure, or None."""
    target = extraction.target(item.target)
    rendered = render(item.candidate, target, extraction, max_examples=60)
    case = tmp_path / f"case_{abs(hash((item.id, module_text))) % 10**8}"
    case.mkdir()
    (case / "evmod.py").write_text(module_text)
    sys.path.insert(0, str(case))
    sys.modules.pop("evmod", None)
    try:
        namespace: dict = {"__name__": "rendered"}
        exec(compile(rendered.source, rendered.path, "exec"), namespace)  # noqa: S102 - our own rendered test
        try:
            namespace[rendered.test_name]()
        except Exception as error:  # noqa: BLE001 - the failure is the result
            return error
        return None
    finally:
        sys.path.remove(str(case))
        sys.modules.pop("evmod", None)
        importlib.invalidate_caches()


def broken(replace: str, by: str) -> str:
    assert replace in MODULE
    return MODULE.replace(replace, by, 1)


def test_generators_are_materialised_before_any_comparison(drafted, tmp_path):
    root, extraction, by_target, _ = drafted
    for qualname in ("windows", "sort_unique"):
        for name, item in by_target[qualname].items():
            calls = [n for n in ast.walk(ast.parse(item.candidate.body)) if isinstance(n, ast.Call)
                     and getattr(n.func, "id", "") == qualname]
            assert calls and all(_wrapped_in_list(item.candidate.body, call) for call in calls), name
            assert run_rendered(root, extraction, item, MODULE, tmp_path) is None, name
    sorted_check = by_target["sort_unique"]["result_is_sorted"]
    failure = run_rendered(root, extraction, sorted_check, broken("sorted(set(items))", "set(items)"), tmp_path)
    assert isinstance(failure, AssertionError)


def _wrapped_in_list(body: str, call: ast.Call) -> bool:
    for node in ast.walk(ast.parse(body)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "list" and node.args and \
                ast.dump(node.args[0]) == ast.dump(call):
            return True
    return False


def test_leading_raise_guard_gives_an_error_contract_that_catches_its_removal(drafted, tmp_path):
    root, extraction, by_target, _ = drafted
    (name,) = [n for n in by_target["windows"] if n.startswith("raises_value_error_when_n")]
    item = by_target["windows"][name]
    assert run_rendered(root, extraction, item, MODULE, tmp_path) is None
    failure = run_rendered(root, extraction, item, broken("if n < 1:", "if n < 0:"), tmp_path)
    assert isinstance(failure, AssertionError)


def test_intervals_come_from_prose_never_from_example_output(drafted):
    _, _, by_target, replies = drafted
    assert "result_within_documented_interval" in by_target["clamp_to"]  # "into [low, high]" in prose
    # pad's example prints `[2, 3]`: an output, not a documented interval (it once gave `2 <= out <= 3` on a str)
    assert not [c for c in replies["pad"]["candidates"] if c["name"] == "result_within_documented_interval"]


def test_body_locals_never_shadow_a_module_name(drafted, tmp_path):
    root, extraction, by_target, _ = drafted
    item = by_target["normalize"]["normalize_is_idempotent"]
    stored = {n.id for n in ast.walk(ast.parse(item.candidate.body)) if isinstance(n, ast.Name)
              and isinstance(n.ctx, ast.Store)}
    assert stored and "once" not in stored  # `once` is a function of the module
    assert run_rendered(root, extraction, item, MODULE, tmp_path) is None


def test_monotonicity_only_where_the_docstring_says_so(drafted, tmp_path):
    root, extraction, by_target, replies = drafted
    assert replies["halve"]["candidates"] == [] and "no property the evidence supports" in replies["halve"]["note"]
    item = by_target["score"]["non_decreasing_in_n"]
    assert run_rendered(root, extraction, item, MODULE, tmp_path) is None
    assert isinstance(run_rendered(root, extraction, item, broken("n * 3", "-n * 3"), tmp_path), AssertionError)


def test_aliases_protocols_and_docstring_examples_give_strategies(drafted):
    _, _, by_target, replies = drafted
    (contract,) = by_target["as_int"].values()  # SupportsInt is an int; `if value < 0: raise ValueError`
    assert "max_value=-1" in contract.candidate.inputs["value"]
    assert "width_of" in replies and "no strategy" not in replies["width_of"].get("note", "")  # String = Union[...]
    note = replies["repeat_word"].get("note", "")
    assert "no strategy" not in note  # word and times typed by the example `repeat_word("ab", 3)`


def test_class_text_form_round_trips_through_its_parser(drafted, tmp_path):
    root, extraction, by_target, _ = drafted
    item = by_target["Version.parse"]["parse_reads_back_str"]
    assert run_rendered(root, extraction, item, MODULE, tmp_path) is None
    lossy = broken('return f"{self.major}.{self.minor}"', 'return f"{self.major}.0"')
    assert isinstance(run_rendered(root, extraction, item, lossy, tmp_path), AssertionError)


def test_comparison_is_antisymmetric_and_zero_on_equal_values(drafted, tmp_path):
    root, extraction, by_target, _ = drafted
    for name in ("comparison_is_antisymmetric", "comparison_of_equal_values_is_zero"):
        assert run_rendered(root, extraction, by_target["compare"][name], MODULE, tmp_path) is None
    one_sided = broken("return (a > b) - (a < b)", "return int(a >= b)")
    for name in ("comparison_is_antisymmetric", "comparison_of_equal_values_is_zero"):
        failure = run_rendered(root, extraction, by_target["compare"][name], one_sided, tmp_path)
        assert isinstance(failure, AssertionError), name


def test_no_filler_families_by_default(drafted):
    *_, replies = drafted
    names = {c["name"] for reply in replies.values() for c in reply["candidates"]}
    assert names and not {n for n in names if n.startswith("returns_") or n == "same_inputs_same_result"}
