"""Regression tests for the wrong inputs and families the offline proposer drew on untyped code (issue 24): each
shows the bad candidate gone and a good candidate for the same function beside it; the slow test runs them
through soundness and sabotage and shows the good ones kept and nothing unsound."""

from __future__ import annotations

import textwrap

import pytest

from .test_proposer_type_errors import drafts

# Untyped helpers in the style of string-utility modules: the evidence is in doctests, defaults, calls and bodies.
STRINGS = '''
import re

_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_ANSI = re.compile(r"\\x1b\\[[0-9;]*m")
_WORDS = re.compile(r"[\\W_]+")


def camel2under(camel_string):
    """Convert a CamelCase name to under_score words, in lower case.

    >>> camel2under('BasicParseTest')
    'basic_parse_test'
    """
    return _CAMEL.sub(r"\\1_\\2", camel_string).lower()


def words(text):
    return [w for w in _WORDS.split(text) if w]


def slugify(text, delim="_"):
    """Words of the text joined by delim; a normaliser.

    >>> slugify('First post! Hi!!!!~1    ')
    'First_post_Hi_1'
    """
    return delim.join(words(text)) if text else ""


def strip_ansi(text):
    """Strip ANSI escape codes (bytes are decoded first and encoded back)."""
    target_type = None
    if isinstance(text, (bytes, bytearray)):
        target_type = type(text)
        text = text.decode("utf-8")
    cleaned = _ANSI.sub("", text)
    return target_type(cleaned, "utf-8") if target_type else cleaned


def count_label(text):
    """How many words the text has, as a label in lower case."""
    return "%d words" % len(words(text))


def count_words(text):
    """How many words the text has."""
    return len(words(text))
'''


def inputs(candidates: list[dict], param: str) -> set[str]:
    return {c["inputs"][param] for c in candidates if param in c["inputs"]}


def test_a_text_parameter_the_body_only_tests_for_truth_never_gets_a_bool(tmp_path):
    found = drafts(tmp_path, STRINGS)
    slug = found["slugify"]
    assert slug and "st.booleans()" not in inputs(slug, "text")  # it once drew slugify(text=True)
    assert inputs(slug, "text") == {"st.text(max_size=20)"}
    assert any(c["name"] == "slugify_is_idempotent" for c in slug)
    assert "doctest" in next(c for c in slug if c["name"] == "slugify_is_idempotent")["rationale"]


def test_text_whose_bytes_branch_is_an_isinstance_alternative_never_gets_bytes(tmp_path):
    found = drafts(tmp_path, STRINGS)
    (idempotent,) = [c for c in found["strip_ansi"] if c["name"] == "strip_ansi_is_idempotent"]
    assert idempotent["inputs"]["text"] == "st.text(max_size=20)"  # it once drew strip_ansi(text=b'\x80')
    assert "over body usage of text (calls .decode())" in idempotent["rationale"]


def test_a_numeric_bound_only_for_a_numeric_result(tmp_path):
    found = drafts(tmp_path, STRINGS)
    label = {c["name"] for c in found["count_label"]}
    assert "result_is_non_negative" not in label  # a str result once got `assert out >= 0`
    assert "result_is_lower_case" in label  # the text law its docstring gives, for its text result
    assert "result_is_non_negative" in {c["name"] for c in found["count_words"]}  # len(): a number


def test_doctest_arguments_feed_an_unannotated_parameter(tmp_path):
    found = drafts(tmp_path, STRINGS)
    (lower,) = [c for c in found["camel2under"] if c["name"] == "result_is_lower_case"]
    assert lower["inputs"] == {"camel_string": "st.text(max_size=20)"}  # once: no strategy for camel_string
    assert "doctest passes camel_string='BasicParseTest'" in lower["rationale"]


def test_calls_in_the_module_are_evidence_and_a_bool_default_stays_a_bool(tmp_path):
    found = drafts(tmp_path, '''
        def loud(v, plain=False):
            """The value, in upper case."""
            if plain:
                return "%s" % (v,)
            return ("%s!" % (v,)).upper()

        def banner():
            return loud(3) + loud(4, plain=True)

        def quiet(v):
            """The value, in upper case."""
            return ("%s!" % (v,)).upper()
    ''')
    (upper,) = [c for c in found["loud"] if c["name"] == "result_is_upper_case"]
    assert upper["inputs"]["v"].startswith("st.integers(")  # as banner() calls it: loud(3)
    assert "a call in its module passes v=3, 4" in upper["rationale"]
    assert upper["inputs"]["plain"] == "st.booleans()"  # a bool default with only a truth test is a bool
    assert found["quiet"] == []  # the same body with nobody calling it: nothing to go on


def test_a_case_said_of_the_first_letters_is_no_law_of_the_whole_result(tmp_path):
    found = drafts(tmp_path, '''
        def capital(string):
            """Convert string into capital case.
            First letters will be uppercase.
            """
            return upper(string[0]) + string[1:] if string else string

        def upper(string):
            """Convert string into upper case."""
            return str(string).upper()
    ''')
    assert "result_is_upper_case" not in {c["name"] for c in found["capital"]}  # stringcase's capitalcase
    assert "result_is_upper_case" in {c["name"] for c in found["upper"]}


def test_a_round_trip_keeps_the_encoders_options_at_their_defaults(tmp_path):
    found = drafts(tmp_path, '''
        SYMBOLS = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

        def encode(number, checksum=False, split=0):
            """Encode an integer into a symbol string."""
            number = int(number)
            if number < 0:
                raise ValueError("negative")
            out = SYMBOLS[number % 32] + ("*" if checksum else "")
            return "-".join(out) if split else out

        def decode(symbol_string, checksum=False):
            """Decode an encoded symbol string; the inverse of encode."""
            text = symbol_string.replace("-", "")
            return SYMBOLS.index(text[:-1] if checksum else text)
    ''')
    (trip,) = [c for c in found["encode"] if c["name"] == "decode_inverts_encode"]
    assert set(trip["inputs"]) == {"number"}  # once also checksum=st.booleans(), which decode(...) cannot undo
    assert "encoded = encode(number)" in trip["body"]


def test_the_type_every_return_computes_is_checked_and_a_mixed_one_is_not(tmp_path):
    found = drafts(tmp_path, '''
        def shout(word):
            if not word:
                return word.upper()
            return f"{word.upper()}!"

        def maybe(word):
            if word:
                return word.upper()
            return None
    ''')
    (typed,) = [c for c in found["shout"] if c["name"] == "returns_str"]
    assert typed["body"].endswith("assert isinstance(out, str)")
    assert "every return of shout computes text" in typed["rationale"]
    assert "returns_str" not in {c["name"] for c in found.get("maybe", [])}  # None on one path


def test_max_of_two_values_is_no_number(tmp_path):
    found = drafts(tmp_path, '''
        def bigger(a, b):
            """The greater of two versions.

            >>> bigger("1.0.0", "2.0.0")
            '2.0.0'
            """
            return str(max(a, b))

        def unknown(a, b):
            return str(max(a, b))
    ''')
    (typed,) = [c for c in found["bigger"] if c["name"] == "returns_str"]
    # semver's max_ver once drew integers: max() with other values orders strings too.
    assert typed["inputs"] == {"a": "st.text(max_size=20)", "b": "st.text(max_size=20)"}
    assert "doctest passes a='1.0.0'" in typed["rationale"]
    assert found["unknown"] == []  # no evidence left: nothing drawn, rather than integers


@pytest.mark.slow
def test_the_good_candidates_are_kept_and_none_is_unsound(tmp_path):
    from drafter.config import Settings
    from drafter.pipeline import run

    src = tmp_path / "src"
    src.mkdir()
    (src / "strutil.py").write_text(textwrap.dedent(STRINGS))
    (src / "test_strutil.py").write_text("def test_nothing():\n    pass\n")
    settings = Settings(model="heuristic", workspace=tmp_path / "ws", jobs=1, seeds=2, max_examples=30)
    result = run(src, settings)
    # What the walk passed over is in the report, with why.
    assert {"path": "test_strutil.py", "reason": "a test module"} in result.report.passed_over
    outcome = result.outcome
    verdicts = {d.id: d.verdict for d in outcome.drafted if d.candidate is not None}
    statuses = {i: outcome.soundness[i].status for i in verdicts if i in outcome.soundness}
    assert "unsound" not in statuses.values(), statuses
    kept = {i for i, v in verdicts.items() if v.stage == "kept"}
    assert {"strutil:slugify::slugify_is_idempotent", "strutil:camel2under::result_is_lower_case",
            "strutil:count_label::result_is_lower_case", "strutil:count_words::result_is_non_negative"} <= kept, verdicts
    # Sound on text; no mutant of its body is told apart by idempotence alone, so it is not kept (and says so).
    assert statuses["strutil:strip_ansi::strip_ansi_is_idempotent"] == "sound"
