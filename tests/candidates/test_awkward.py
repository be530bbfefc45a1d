"""The awkward example's replay file: lint keeps what a strong model writes and rejects only the certainly wrong."""

import ast
import json
from pathlib import Path

import pytest

from drafter.candidates import parse_reply
from drafter.data import Candidate, Reply
from drafter.extract import extract
from drafter.lint import lint
from drafter.render import render

AWKWARD = Path(__file__).resolve().parents[2] / "examples" / "awkward"


@pytest.fixture(scope="module")
def awkward_extraction():
    return extract(AWKWARD, [])


@pytest.fixture(scope="module")
def drafted(awkward_extraction):
    replies = json.loads((AWKWARD / "replies.json").read_text())
    out = {}
    for target_id, reply in replies.items():
        target = awkward_extraction.target(target_id)
        text = reply if isinstance(reply, str) else json.dumps(reply)
        out.update({d.id: d for d in lint(parse_reply(Reply(target_id, text), target), target, awkward_extraction)})
    return out


def test_front_half_verdicts_match_expected(drafted):
    expected = {k: v for k, v in json.loads((AWKWARD / "replies.expected.json").read_text()).items() if k[0] != "#"}
    assert set(drafted) == set(expected)
    for candidate_id, (stage, reason) in expected.items():
        verdict = drafted[candidate_id].verdict
        if stage == "lint":
            assert (verdict.accepted, verdict.reason) == (False, reason), candidate_id
        else:
            assert verdict.accepted, (candidate_id, verdict)


def test_the_shapes_a_strong_model_writes_pass_lint(drafted):
    for name in ("format::commas_every_three_digits",  # free name `n`, builtin-named target
                 "decode::encode_inverts_decode_on_its_own_output",  # round trip quantifying the encoder's input
                 "dedupe::keeps_first_occurrences_in_order",  # in-place: copy, mutate, compare
                 "count_runs::runs_are_boundaries_plus_one",  # loop-derived counter
                 "share::returns_a_pair_that_divides"):  # shape check beside a bound
        assert drafted[f"awkward.tools:{name}"].verdict.accepted, name


def test_target_named_like_a_builtin_is_imported_from_its_module(awkward_extraction):
    candidate = Candidate("awkward.tools:format", "p", "invariant", {"n": "st.integers(min_value=0, max_value=99)"},
                          "s = format(n)\nassert sum(c.isdigit() for c in s) == len(str(n))", "drops digits")
    source = render(candidate, awkward_extraction.target(candidate.target), awkward_extraction, max_examples=5).source
    imports = [node for node in ast.parse(source).body if isinstance(node, ast.ImportFrom)]
    assert any(node.module == "awkward.tools" and [a.name for a in node.names] == ["format"] for node in imports)
    # `sum` is a builtin the module does not define, so it stays the builtin
    assert not any(a.name == "sum" for node in imports for a in node.names)
