"""parse_reply: forgiving about the envelope, strict about each item, siblings survive a bad item."""

import json

import pytest

from drafter.candidates import parse_reply
from drafter.data import Reply

TARGET = "shop.billing:apply_tax"
INPUTS = {
    "amount": "st.decimals(min_value=Decimal('0'), max_value=Decimal('1000'), places=2)",
    "rate": "st.decimals(min_value=Decimal('0'), max_value=Decimal('0.25'), places=4)",
}


def candidate(name, body):
    return {"name": name, "kind": "bound", "inputs": INPUTS, "assume": [], "body": body, "counterexample": "a sign error"}


def reply_text(*items):
    return json.dumps({"candidates": list(items)})

GOOD = candidate("tax_never_lowers_amount", "out = apply_tax(amount, rate)\nassert out >= amount")
OTHER = candidate("zero_rate_is_identity", "assert apply_tax(amount, Decimal('0')) == amount")


def parsed(extraction, text):
    return parse_reply(Reply(TARGET, text), extraction.target(TARGET))


@pytest.mark.parametrize(
    "text",
    [
        reply_text(GOOD, OTHER),
        "Here you go:\n\n```json\n" + reply_text(GOOD, OTHER) + "\n```\nHope this helps.",
        "```\n" + reply_text(GOOD, OTHER) + "\n```",
        "```python\nx = {1: 2}\n```\nThe answer: " + reply_text(GOOD, OTHER) + " -- done {really}",
        json.dumps([GOOD, OTHER]),
        "Sure, as a list: " + json.dumps([GOOD, OTHER], indent=2),
    ],
    ids=["bare", "json-fence-with-prose", "plain-fence", "prose-with-braces", "bare-list", "list-in-prose"],
)
def test_envelope_forms_all_give_both_candidates(shop_extraction, text):
    drafted = parsed(shop_extraction, text)
    assert [d.id for d in drafted] == [f"{TARGET}::tax_never_lowers_amount", f"{TARGET}::zero_rate_is_identity"]
    assert all(d.verdict.accepted and d.verdict.stage == "parse" for d in drafted)
    assert drafted[0].candidate.body == GOOD["body"]
    assert drafted[0].candidate.inputs == GOOD["inputs"]
    assert drafted[1].index == 1


@pytest.mark.parametrize(
    "text, reason, words",
    [
        (reply_text(GOOD)[:-30], "bad_json", "truncated"),
        ("```json\n" + reply_text(GOOD)[:-30] + "\n```", "bad_json", "does not parse"),
        ("I could not think of any invariants.", "bad_json", "no JSON"),
        ("   ", "bad_json", "empty"),
        (json.dumps({"items": [GOOD]}), "bad_schema", "candidates"),
        (json.dumps({"candidates": {"a": GOOD}}), "bad_schema", "not a list"),
        ("42", "bad_schema", "int"),
    ],
)
def test_bad_envelope_is_one_rejected_reply_item(shop_extraction, text, reason, words):
    [drafted] = parsed(shop_extraction, text)
    assert drafted.id == f"{TARGET}::#reply"
    assert drafted.index == -1 and drafted.candidate is None and drafted.raw == text
    assert (drafted.verdict.stage, drafted.verdict.accepted, drafted.verdict.reason) == ("parse", False, reason)
    assert words in drafted.verdict.detail and TARGET in drafted.verdict.detail


def test_no_reply_text_gives_nothing(shop_extraction):
    assert parse_reply(Reply(TARGET, None, error="timeout"), shop_extraction.target(TARGET)) == []


def broken(**changes):
    item = dict(GOOD, name="broken_item")
    for key, value in changes.items():
        if value is KeyError:
            del item[key]
        else:
            item[key] = value
    return item


@pytest.mark.parametrize(
    "bad, key",
    [
        (broken(body=KeyError), "'body'"),
        (broken(counterexample=KeyError), "'counterexample'"),
        (broken(kind="bounds"), "'kind'"),
        (broken(kind=3), "'kind'"),
        (broken(inputs=["amount"]), "'inputs'"),
        (broken(inputs={"amount": 3}), "'inputs'"),
        (broken(inputs={}), "'inputs'"),
        (broken(assume="amount > 0"), "'assume'"),
        (broken(assume=[1]), "'assume'"),
        (broken(counterexample="  "), "'counterexample'"),
        (broken(description="extra"), "'description'"),
        (broken(name="TaxIsFine"), "'name'"),
        (broken(name="tax-is-fine"), "'name'"),
        (broken(name="class"), "'name'"),
        (broken(rationale=["why"]), "'rationale'"),
        ("just a string", "object"),
    ],
)
def test_schema_error_rejects_the_item_and_keeps_its_siblings(shop_extraction, bad, key):
    drafted = parsed(shop_extraction, reply_text(GOOD, bad, OTHER))
    assert [d.verdict.accepted for d in drafted] == [True, False, True]
    rejected = drafted[1]
    assert (rejected.verdict.stage, rejected.verdict.reason) == ("parse", "bad_schema")
    assert key in rejected.verdict.detail and "#1" in rejected.verdict.detail
    assert rejected.candidate is None and rejected.raw == bad
    assert rejected.index == 1


def test_repeated_name_is_rejected_and_the_first_kept(shop_extraction):
    again = dict(OTHER, name=GOOD["name"])
    drafted = parsed(shop_extraction, reply_text(GOOD, again, OTHER))
    assert [d.verdict.reason for d in drafted] == [None, "bad_schema", None]
    assert "duplicate name" in drafted[1].verdict.detail
    assert len({d.id for d in drafted}) == 3
    assert drafted[1].id == f"{TARGET}::#1"


def test_optional_fields_default(shop_extraction):
    item = {k: v for k, v in GOOD.items() if k != "assume"}
    [drafted] = parsed(shop_extraction, reply_text(dict(item, rationale="from the docstring")))
    assert drafted.candidate.assume == () and drafted.candidate.rationale == "from the docstring"
