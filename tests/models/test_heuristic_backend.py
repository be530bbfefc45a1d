"""The offline heuristic: valid bounded strategies, evidence in rationales, relations detected, deterministic."""

from __future__ import annotations

import enum
import json
import math
import string
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drafter.candidates import parse_reply
from drafter.data import ClassInfo, Extraction, Param, Usage
from drafter.extract import extract
from drafter.lint import lint
from drafter.models import load_backend

SHOP = Path(__file__).resolve().parents[2] / "examples" / "shop"


class Color(enum.Enum):
    RED = 1
    BLUE = 2


@dataclass(frozen=True)
class Point:
    x: int
    label: str = ""


CLASSES = (ClassInfo("pkg.mod", "Color", "enum", members=("RED", "BLUE")),
           ClassInfo("pkg.mod", "Point", "dataclass",
                     fields=(Param("x", "positional_or_keyword", "int"),
                             Param("label", "positional_or_keyword", "str", '""'))))
NAMESPACE = {"st": st, "Decimal": Decimal, "Fraction": Fraction, "string": string, "math": math,
             "Color": Color, "Point": Point}


def reply_for(target, extraction) -> dict:
    (reply,) = load_backend("heuristic").propose([_prompt(target.id)], extraction)
    assert reply.error is None
    return json.loads(reply.text)


def _prompt(target_id):
    from drafter.data import Prompt

    return Prompt(target_id, "s", "u")


def draw(expr: str, n: int = 25, **names) -> list:
    """Values a strategy expression really generates (evaluated with the names a rendered test has)."""
    strategy = eval(expr, {**NAMESPACE, **names})  # noqa: S307 - our own generated expression, in a test
    values = []

    @settings(max_examples=n, database=None, deadline=None)
    @given(strategy)
    def collect(value):
        values.append(value)

    collect()
    return values


def assert_bounded(value):
    if isinstance(value, (str, bytes, list, tuple, set, frozenset, dict)):
        assert len(value) <= 50
        items = value.items() if isinstance(value, dict) else ([] if isinstance(value, (str, bytes)) else value)
        for item in items:
            assert_bounded(item)
    elif isinstance(value, (int, float, Decimal, Fraction)) and not isinstance(value, bool):
        assert math.isfinite(value) and abs(value) <= 10**6


@pytest.mark.parametrize("annotation, expected_type", [
    ("int", int), ("float", float), ("str", str), ("bytes", bytes), ("bool", bool), ("Decimal", Decimal),
    ("Fraction", Fraction), ("list[int]", list), ("tuple[str, ...]", tuple), ("tuple[int, str]", tuple),
    ("dict[str, int]", dict), ("set[int]", set), ("frozenset[str]", frozenset), ("Optional[int]", (int, type(None))),
    ("int | None", (int, type(None))), ("Literal['a', 'b']", str), ("Color", Color), ("Point", Point),
    ("list[Point]", list),
])
def test_annotation_strategies_are_valid_and_bounded(annotation, expected_type, build_target, extraction_of):
    target = build_target("probe", (Param("value", "positional_or_keyword", annotation),), returns="bool")
    reply = reply_for(target, extraction_of([target], CLASSES))
    assert reply["candidates"], reply
    for candidate in reply["candidates"]:
        for expr in candidate["inputs"].values():
            values = draw(expr)
            assert values and all(isinstance(v, expected_type) for v in values)
            for v in values:
                assert_bounded(v)
        assert f"annotation {annotation}" in candidate["rationale"]
    # An annotation naming a class the module does not have gets no guess, and the note says so.
    unknown = build_target("probe2", (Param("value", "positional_or_keyword", "Mystery"),))
    empty = reply_for(unknown, extraction_of([unknown], CLASSES))
    assert empty["candidates"] == [] and "value" in empty["note"] and "Mystery" in empty["note"]


@pytest.mark.parametrize("kind, evidence, expected_type", [
    ("text", "calls .split()", str), ("number", "compared with 0", int), ("sequence", "passed to len()", list),
    ("mapping", "calls .items()", dict), ("bytes", "calls .decode()", bytes), ("bool", "used as a condition", bool),
])
def test_unannotated_params_follow_usage_evidence(kind, evidence, expected_type, build_target, extraction_of):
    # A return annotation gives it a family (no "same inputs, same result" filler for a bare function).
    target = build_target("probe", (Param("thing", "positional_or_keyword", usage=(Usage(kind, evidence),)),),
                          returns="str")
    reply = reply_for(target, extraction_of([target]))
    assert reply["candidates"]
    for candidate in reply["candidates"]:
        assert evidence in candidate["rationale"]
        for name, expr in candidate["inputs"].items():  # "thing", or "thing_a"/"thing_b" for a monotonic pair
            assert name.startswith("thing")
            values = draw(expr)
            assert all(isinstance(v, expected_type) for v in values)
            for v in values:
                assert_bounded(v)
    bare = build_target("bare", (Param("thing", "positional_or_keyword", usage=(Usage(kind, evidence),)),))
    assert "same_inputs_same_result" not in {c["name"] for c in reply_for(bare, extraction_of([bare]))["candidates"]}


def test_unannotated_params_from_default_docstring_and_name(build_target, extraction_of):
    target = build_target("probe", (Param("limit", "positional_or_keyword", default="50"),
                                    Param("blob", "positional_or_keyword"),
                                    Param("thing", "positional_or_keyword")), returns="str",
                          docstring="Cut things.\n\nArgs:\n    thing (str): what to cut")
    candidates = reply_for(target, extraction_of([target]))["candidates"]
    candidate = next(c for c in candidates if {"blob", "thing"} <= set(c["inputs"]))
    assert "limit: default 50" in candidate["rationale"]
    assert "'blob' suggests bytes" in candidate["rationale"]
    assert "docstring describes thing as str" in candidate["rationale"]
    limit = candidate["inputs"].get("limit") or candidate["inputs"]["limit_a"]
    assert all(0 <= v <= 100 for v in draw(limit))
    assert all(isinstance(v, bytes) for v in draw(candidate["inputs"]["blob"]))
    assert all(isinstance(v, str) for v in draw(candidate["inputs"]["thing"]))


def test_no_evidence_callable_and_varargs_get_a_note(build_target, extraction_of):
    bare = build_target("mystery", (Param("q", "positional_or_keyword"),))
    # `key` would be text by name, but the body calls it: a callable gets no guessed strategy
    func = build_target("apply_fn", (Param("key", "positional_or_keyword", usage=(Usage("callable", "is called"),)),))
    varargs = build_target("anything", (Param("args", "var_positional"), Param("kwargs", "var_keyword")))
    known = build_target("twice", (Param("q", "positional_or_keyword", "int"),), returns="int")
    extraction = extraction_of([bare, func, varargs, known])
    for target, words in ((bare, "q (no annotation and no usage evidence)"), (func, "key (it is called"), (varargs, "*args")):
        reply = reply_for(target, extraction)
        assert reply["candidates"] == [] and words in reply["note"]
    assert reply_for(known, extraction)["candidates"]  # the annotated one beside them gets candidates


@pytest.mark.parametrize("encoder, decoder", [("encode", "decode"), ("dumps", "loads"), ("serialize_doc", "parse_doc"),
                                              ("escape", "unescape"), ("quote", "unquote"), ("c_to_f", "f_to_c")])
def test_inverse_pairs_get_round_trips(encoder, decoder, build_target, extraction_of):
    enc = build_target(encoder, (Param("value", "positional_or_keyword", "str"),), returns="str")
    dec = build_target(decoder, (Param("text", "positional_or_keyword", "str"),), returns="str")
    lonely = build_target("render_page", (Param("value", "positional_or_keyword", "str"),), returns="str")
    extraction = extraction_of([enc, dec, lonely])
    for target, partner in ((enc, decoder), (dec, encoder)):
        trips = [c for c in reply_for(target, extraction)["candidates"] if c["kind"] == "round_trip"]
        assert trips and partner in trips[0]["body"] and target.name in trips[0]["body"]
        for expr in trips[0]["inputs"].values():
            assert all(isinstance(v, str) for v in draw(expr, 5, **{encoder: str.strip}))
    assert not [c for c in reply_for(lonely, extraction)["candidates"] if c["kind"] == "round_trip"]


def test_normalisers_get_idempotence(build_target, extraction_of):
    norm = build_target("normalize_name", (Param("name", "positional_or_keyword", "str"),), returns="str")
    plain = build_target("shout", (Param("name", "positional_or_keyword", "str"),), returns="str")
    extraction = extraction_of([norm, plain])
    (idem,) = [c for c in reply_for(norm, extraction)["candidates"] if c["kind"] == "idempotence"]
    assert idem["body"] == "once = normalize_name(name)\nassert normalize_name(once) == once"
    assert not [c for c in reply_for(plain, extraction)["candidates"] if c["kind"] == "idempotence"]


def test_output_is_deterministic(build_target, extraction_of):
    targets = [build_target(n, (Param("s", "positional_or_keyword", "str"),), returns="str")
               for n in ("encode", "decode", "slugify")]
    first = load_backend("heuristic").propose([_prompt(t.id) for t in targets], extraction_of(targets))
    again = load_backend("heuristic").propose([_prompt(t.id) for t in reversed(targets)],
                                              extraction_of(list(reversed(targets))))
    assert [r.text for r in first] == [r.text for r in reversed(again)]


def test_every_shop_target_gets_bounded_candidates():
    extraction = extract(SHOP)
    replies = load_backend("heuristic").propose([_prompt(t.id) for t in extraction.targets], extraction)
    for reply in replies:
        candidates = json.loads(reply.text)["candidates"]
        assert candidates, reply.target
        for candidate in candidates:
            for expr in candidate["inputs"].values():
                for key in ("st.text(", "st.lists(", "st.dictionaries(", "st.binary(", "st.sets("):
                    assert expr.count(key) <= expr.count("max_size=")
    by_target = {r.target: json.loads(r.text)["candidates"] for r in replies}
    apply_tax = {c["name"] for c in by_target["shop.billing:apply_tax"]}
    assert apply_tax >= {"result_is_rounded_to_cents", "positive_rate_changes_amount"}
    assert "non_decreasing_in_rate" not in apply_tax  # its docstring says nothing of monotonicity
    assert any(c["kind"] == "round_trip" for c in by_target["shop.envelope:parse_envelope"])
    assert any(c["kind"] == "idempotence" for c in by_target["shop.hunks:apply_hunk"])


AWKWARD = """
import functools

TAGS = (" ", "-", "+")
FORBIDDEN_WORDS = frozenset({"secret", "token"})


class Box:
    def __init__(self, size: int, blob: bytes = b""):
        self.size = size

    @classmethod
    def empty(cls) -> "Box":
        return cls(0)

    def grow(self, by: int) -> "Box":
        return Box(self.size + by)


def nothing():
    return 1


def retag(tag, word, text: str) -> str:
    return tag + word + text


def apply(i, values):
    return [i(v) for v in values]


@functools.lru_cache(maxsize=None)
def checksum(blob: bytes, *, seed=0) -> int:
    return sum(blob) + seed


def clamp(value, low=0, high=100):
    \"\"\"Clamp value into [low, high].\"\"\"
    return max(low, min(high, value))


def encode(text: str) -> str:
    \"\"\"Raises ValueError on a NUL.\"\"\"
    return text.replace("%", "%25")


def decode(text: str) -> str:
    return text.replace("%25", "%")
"""


def heuristic_verdicts(extraction: Extraction) -> dict[str, list]:
    replies = load_backend("heuristic").propose([_prompt(t.id) for t in extraction.targets], extraction)
    return {r.target: lint(parse_reply(r, extraction.target(r.target)), extraction.target(r.target), extraction)
            for r in replies}


@pytest.mark.parametrize("source", ["shop", "awkward"])
def test_every_heuristic_candidate_passes_parse_and_lint(source, tmp_path):
    """The heuristic and lint are two halves of one contract: nothing the heuristic drafts is rejected statically."""
    if source == "shop":
        extraction = extract(SHOP)
    else:
        (tmp_path / "awk.py").write_text(AWKWARD)
        extraction = extract(tmp_path)
    verdicts = heuristic_verdicts(extraction)
    drafted = [d for items in verdicts.values() for d in items]
    assert len(drafted) >= 10
    rejected = [(d.id, d.verdict.stage, d.verdict.reason, d.verdict.detail) for d in drafted if not d.verdict.accepted]
    assert rejected == []
    if source == "awkward":  # the targets with nothing to quantify get a note, not a candidate lint must reject
        assert verdicts["awk:nothing"] == [] and verdicts["awk:Box.empty"] == []
        assert verdicts["awk:apply"] == []  # `i` is called: no strategy
        assert verdicts["awk:checksum"] and verdicts["awk:Box.grow"]


def test_module_constants_named_by_the_plural_give_sampled_values(tmp_path):
    (tmp_path / "awk.py").write_text(AWKWARD)
    extraction = extract(tmp_path)
    (candidate, *_) = json.loads(load_backend("heuristic").propose([_prompt("awk:retag")], extraction)[0].text)[
        "candidates"]
    assert candidate["inputs"]["tag"] == "st.sampled_from(sorted(TAGS))"
    assert "module constant TAGS lists the values of tag" in candidate["rationale"]
    assert set(draw(candidate["inputs"]["tag"], TAGS=(" ", "-", "+"))) <= {" ", "-", "+"}
    # FORBIDDEN_WORDS is not the plural of `word`: a constant only constrains a value its name enumerates
    assert "FORBIDDEN_WORDS" not in candidate["inputs"]["word"]
    assert all(isinstance(v, str) for v in draw(candidate["inputs"]["word"]))


def test_tuple_elements_take_the_names_the_code_unpacks_them_into(build_target, extraction_of):
    pairs = Param("lines", "positional_or_keyword", "tuple[tuple[str, str], ...]", unpacked=("tag", "text"))
    unnamed = Param("rows", "positional_or_keyword", "tuple[tuple[str, str], ...]")
    target = build_target("show", (pairs, unnamed), returns="str")
    extraction = extraction_of([target], names={"pkg.mod": ("TAGS", "show")})
    extraction = Extraction(extraction.root, extraction.targets, module_names=extraction.module_names,
                            constants={"pkg.mod": {"TAGS": (" ", "-", "+")}})
    (candidate, *_) = reply_for(target, extraction)["candidates"]
    lines = draw(candidate["inputs"]["lines"], TAGS=(" ", "-", "+"))
    assert any(lines) and all(tag in (" ", "-", "+") for line in lines for tag, _ in line)
    assert "TAGS" not in candidate["inputs"]["rows"]  # no unpacking seen: its elements stay free text
