"""Replies past a bound are rejected by name; a good candidate beside a hostile one is still read."""

import json

import pytest

from drafter.candidates import parse_reply
from drafter.data import Reply
from drafter.lint import lint
from drafter.limits import MAX_CANDIDATES_PER_REPLY
from drafter.runfolder import write_text

def good_candidate(target):
    function = target.id.split(":")[1]
    return {"name": "never_below_the_amount", "kind": "bound",
            "inputs": {"amount": "st.decimals(0, 1000, places=2)", "rate": "st.decimals(0, 1, places=2)"},
            "body": f"assert {function}(amount, rate) >= amount", "counterexample": "tax that lowers the amount"}


@pytest.fixture
def target(shop_extraction):
    return shop_extraction.targets[0]


@pytest.mark.parametrize("text, limit", [
    ("[" * 100_000 + "]" * 100_000, "nested 100000 deep"),
    ('{"candidates": [{"name": "n", "inputs": {"x": ' + "9" * 5000 + "}}]}", "an integer of 5000 digits"),
    ("{" * 3_000_000, "3,000,000 characters"),
    ('Here you are:\n```json\n' + '{"a":' * 80 + "1" + "}" * 80 + "\n```", "nested 80 deep"),
])
def test_a_reply_over_a_bound_is_bad_json_naming_the_bound(target, text, limit):
    [item] = parse_reply(Reply(target.id, text), target)
    assert item.verdict.reason == "bad_json"
    assert limit in item.verdict.detail


def test_too_many_candidates_keeps_the_first_ones_and_says_so(target):
    items = [dict(good_candidate(target), name=f"never_below_the_amount_{i}") for i in range(MAX_CANDIDATES_PER_REPLY + 7)]
    drafted = parse_reply(Reply(target.id, json.dumps({"candidates": items})), target)
    assert sum(d.verdict.accepted for d in drafted) == MAX_CANDIDATES_PER_REPLY
    [over] = [d for d in drafted if not d.verdict.accepted]
    assert over.verdict.reason == "bad_schema" and f"{MAX_CANDIDATES_PER_REPLY + 7} candidates" in over.verdict.detail


def test_lone_surrogates_in_a_reply_neither_crash_parse_nor_the_run_folder(target, shop_extraction, tmp_path):
    bad = dict(good_candidate(target), name="with_surrogate", rationale="\ud800 odd")
    text = json.dumps({"candidates": [bad]}) + "\udfff"
    [drafted] = lint(parse_reply(Reply(target.id, text), target), target, shop_extraction)
    assert drafted.verdict.accepted, drafted.verdict
    write_text(tmp_path / "reply.txt", text)
    assert (tmp_path / "reply.txt").read_text(encoding="utf-8").endswith("\\udfff")


def test_a_name_longer_than_a_file_name_may_be_still_gets_a_file(target, shop_extraction, tmp_path):
    from drafter.render import render

    long_one = dict(good_candidate(target), name="n" * 400)
    short_one = good_candidate(target)
    drafted = lint(parse_reply(Reply(target.id, json.dumps({"candidates": [long_one, short_one]})), target),
                   target, shop_extraction)
    paths = [render(d.candidate, target, shop_extraction, max_examples=10).path for d in drafted]
    assert paths[1].endswith("/test_never_below_the_amount.py")  # a normal name is kept as it is
    assert len(set(paths)) == 2 and all(len(part) <= 255 for p in paths for part in p.split("/"))
    for path in paths:
        write_text(tmp_path / path, "pass\n")  # ENAMETOOLONG before names were bounded


@pytest.mark.parametrize("body, why", [
    ("assert apply_tax(amount, rate) " + "+ amount " * 30_000 + ">= 0", "characters (the limit is 20,000)"),
    ("assert apply_tax(amount, rate) " + "+ amount " * 1_500 + ">= 0", "nests more than 100 levels deep"),
    ("assert " + "(lambda: " * 500 + "apply_tax(amount, rate)" + ")()" * 500 + " >= 0", "nested too deeply"),
])
def test_a_body_the_parser_cannot_survive_is_rejected_beside_a_good_one(target, shop_extraction, body, why):
    assert target.id.endswith(":apply_tax")
    hostile = dict(good_candidate(target), name="hostile", body=body)
    drafted = lint(parse_reply(Reply(target.id, json.dumps({"candidates": [hostile, good_candidate(target)]})), target),
                   target, shop_extraction)
    bad, good = (d.verdict for d in drafted)
    assert (bad.reason, why in bad.detail) == ("syntax", True), bad
    assert good.accepted
