"""Regression tests for candidates the heuristic once wrote that were unsound by its own mistake (issue 12 item 3),
and for the evidence that replaced the mistake. Each shows the bad candidate gone and a good one beside it kept."""

from __future__ import annotations

import json
import textwrap

from drafter.data import Param
from drafter.extract import extract
from drafter.models import load_backend
from drafter.models.examples import doc_examples, text_domain

from .test_heuristic_backend import _prompt, draw, reply_for


def drafts(tmp_path, source: str) -> dict[str, list[dict]]:
    (tmp_path / "mod.py").write_text(textwrap.dedent(source))
    extraction = extract(tmp_path)
    replies = load_backend("heuristic").propose([_prompt(t.id) for t in extraction.targets], extraction)
    return {r.target.split(":", 1)[1]: json.loads(r.text)["candidates"] for r in replies}


def names(candidates: list[dict]) -> set[str]:
    return {c["name"] for c in candidates}


def test_case_words_inside_an_identifier_promise_nothing(build_target, extraction_of):
    flag = Param("uppercase_first_letter", "positional_or_keyword", "bool", "True")
    text = Param("string", "positional_or_keyword", "str")
    camel = build_target("camelize", (text, flag), returns="str",
                         docstring=":param uppercase_first_letter: if set, converts to UpperCamelCase.")
    shout = build_target("shout", (text,), returns="str", docstring="Return the text in upper case.")
    extraction = extraction_of([camel, shout])
    assert "result_is_upper_case" not in names(reply_for(camel, extraction)["candidates"])
    assert "result_is_upper_case" in names(reply_for(shout, extraction)["candidates"])


def test_doctest_outputs_are_not_the_set_of_possible_results(build_target, extraction_of):
    value = Param("value", "positional_or_keyword", "int")
    ordinal = build_target("ordinal", (value,), returns="str",
                           docstring="Ordinal of value.\n\n>>> ordinal(1)\n'1st'\n>>> ordinal(2)\n'2nd'\n"
                                     "Or 'x' for zero.")
    yes_no = build_target("yes_no", (value,), returns="str", docstring="Return 'yes' or 'no'.")
    # humanize's naturaldelta: quoted values in a sentence about the input, not a list of results.
    delta = build_target("delta", (value,), returns="str",
                         docstring="A natural representation unless `value` cannot be converted to int (cannot "
                                   "be float due to 'inf' or 'nan'). In that case, `value` is returned unchanged.")
    extraction = extraction_of([ordinal, yes_no, delta])
    assert "result_is_a_documented_value" not in names(reply_for(ordinal, extraction)["candidates"])
    assert "result_is_a_documented_value" not in names(reply_for(delta, extraction)["candidates"])
    (documented,) = [c for c in reply_for(yes_no, extraction)["candidates"] if c["name"] == "result_is_a_documented_value"]
    assert documented["body"].endswith("assert out in ('yes', 'no',)")


def test_typevar_results_are_never_isinstance_targets(tmp_path):
    found = drafts(tmp_path, '''
        from typing import Type, TypeVar
        T = TypeVar("T", bound="Box")

        class Box:
            def __init__(self, size: int):
                self.size = size

            @classmethod
            def parse(cls: Type[T], text: str) -> T:
                return cls(int(text or 0))

        def first(items: list[int], default: T) -> T:
            return items[0] if items else default

        def total(items: list[int]) -> int:
            return sum(items)
    ''')
    bodies = [c["body"] for items in found.values() for c in items]
    assert not [b for b in bodies if "isinstance(out, T)" in b]
    assert any("isinstance(out, Box)" in c["body"] for c in found["Box.parse"])  # a classmethod's T is its class
    assert any("isinstance(out, int)" in c["body"] for c in found["total"])


def test_format_templates_keep_their_default(tmp_path):
    found = drafts(tmp_path, '''
        def intword(value: int, format: str = "%.1f") -> str:
            return format % value

        def greet(value: int, name: str = "you") -> str:
            return f"{value} {name}"
    ''')
    assert all("format" not in c["inputs"] and c["body"].count("intword(value)") for c in found["intword"])
    assert any("name" in c["inputs"] for c in found["greet"])  # an ordinary text default is still quantified


def test_errors_the_body_raises_guard_the_floor(tmp_path):
    found = drafts(tmp_path, '''
        class Box:
            def __init__(self, size: int):
                self.size = size

            def _check(self, token: str) -> None:
                if not token.isalnum():
                    raise ValueError(token)

            def tag(self, token: str) -> str:
                self._check(token)
                return token + str(self.size)

        def width(text: str) -> int:
            return len(text)
    ''')
    (tag,) = [c for c in found["Box.tag"] if c["name"] == "returns_str"]
    assert "except ValueError:\n    assume(False)" in tag["body"]  # raised by a validator of its class
    (plain,) = [c for c in found["width"] if c["name"] == "returns_int"]
    assert "except" not in plain["body"]


def test_errors_of_the_module_functions_it_calls_guard_the_call_and_an_indexed_text_is_long_enough(tmp_path):
    # humanize's naturaltime passed its unit to naturaldelta, which raised ValueError for some units; inflection's
    # camelize indexed `string[0]`: both were unsound by the heuristic's own inputs.
    found = drafts(tmp_path, '''
        def delta(seconds: int, unit: str = "s") -> str:
            if unit != "s":
                raise ValueError(unit)
            return str(seconds) + unit

        def later(seconds: int, unit: str = "s") -> str:
            return "in " + delta(seconds, unit)

        def initial(name: str) -> str:
            return name[0].upper()

        def ends(code: str) -> str:
            return code[-2] + code[-1]

        def shout(text: str) -> str:
            return text.upper()
    ''')
    for function in ("delta", "later"):
        (candidate,) = [c for c in found[function] if c["name"] == "returns_str"]
        assert "except ValueError:\n    assume(False)" in candidate["body"], function
    lengths = {name: [c for c in found[name] if c["name"] == "returns_str"][0]["inputs"] for name in
               ("initial", "ends", "shout")}
    assert lengths["initial"]["name"] == "st.text(min_size=1, max_size=20)"
    assert lengths["ends"]["code"] == "st.text(min_size=2, max_size=20)"
    assert lengths["shout"]["text"] == "st.text(max_size=20)"


def test_instances_from_aliases_supports_int_and_a_constructor_that_rejects_negatives(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "_types.py").write_text("from typing import Union\nString = Union[str, bytes]\n")
    (tmp_path / "pkg" / "ver.py").write_text(textwrap.dedent('''
        from typing import Optional, SupportsInt
        from ._types import String

        class Ver:
            def __init__(self, major: SupportsInt, tag: Optional[String] = None):
                if int(major) < 0:
                    raise ValueError("negative")
                self.major = int(major)
                self.tag = None if tag is None else str(tag)

            def bump_major(self) -> "Ver":
                return Ver(self.major + 1)

        class Loose:
            def __init__(self, major: SupportsInt):
                self.major = int(major)

            def twice(self) -> int:
                return 2 * self.major
    '''))
    extraction = extract(tmp_path)
    replies = load_backend("heuristic").propose([_prompt(t.id) for t in extraction.targets], extraction)
    found = {r.target: json.loads(r.text)["candidates"] for r in replies}
    (step,) = [c for c in found["pkg.ver:Ver.bump_major"] if c["name"] == "bump_major_adds_one_to_major"]
    assert "major=st.integers(min_value=0, max_value=1000)" in step["inputs"]["self"]
    assert "st.binary(" in step["inputs"]["self"]  # String resolved from the sibling module _types
    (loose, *_) = found["pkg.ver:Loose.twice"]
    assert "major=st.integers(min_value=-1000, max_value=1000)" in loose["inputs"]["self"]  # no rejection seen


def test_doctest_examples_give_the_documented_domain():
    doc = '>>> camelize("device_type")\n\'DeviceType\'\n>>> camelize("device_type", False)\n\'deviceType\'\n'
    examples = doc_examples(doc, "camelize")
    assert [e.args for e in examples] == [("device_type",), ("device_type", False)]
    domain = text_domain([e.args[0] for e in examples])
    assert domain.regular and "snake_case" in domain.basis
    values = draw(domain.expr, 30)
    assert values and all(v.replace("_", "").isalpha() and v == v.lower() and "__" not in v for v in values)
    mixed = text_domain(["posts", "CamelOctopus"])  # no one word shape: only the alphabet
    assert not mixed.regular and all(v.isalpha() for v in draw(mixed.expr, 20))
    assert text_domain(["älämölö"]) is None  # non-ASCII examples: no domain is guessed


def test_a_closed_set_of_literal_results_and_a_sign_the_body_discards_are_read_from_the_body(tmp_path):
    found = drafts(tmp_path, '''
        def suffix(n: int) -> str:
            n = abs(n)
            if n % 100 in (11, 12, 13):
                return "th"
            return {1: "st", 2: "nd"}.get(n % 10, "th")

        def size(n: int):
            if n > 3:
                return "big"
            elif n > 1:
                return "medium"

        def stars(n: int) -> str:
            if n < 0:
                raise ValueError(n)
            n = abs(n)
            return "small" if n < 2 else "*" * n

        def positive(n: int) -> bool:
            return True if n > 0 else False
    ''')
    (closed,) = [c for c in found["suffix"] if c["name"] == "result_is_one_of_its_literals"]
    assert closed["body"].endswith("assert out in ('th', 'st', 'nd',)")
    (mirrored,) = [c for c in found["suffix"] if c["name"] == "sign_of_n_does_not_matter"]
    assert "mirrored = suffix(-n)" in mirrored["body"]
    # Falling off the end returns None: it belongs to the set.
    (fall_through,) = [c for c in found["size"] if c["name"] == "result_is_one_of_its_literals"]
    assert fall_through["body"].endswith("assert out in ('big', 'medium', None,)")
    # A computed result, a sign used before abs(), a set of booleans: nothing to claim.
    assert not {"result_is_one_of_its_literals", "sign_of_n_does_not_matter"} & names(found["stars"])
    assert "result_is_one_of_its_literals" not in names(found["positive"])


def test_capitals_and_url_safety_are_read_from_what_the_docstring_promises(tmp_path):
    found = drafts(tmp_path, '''
        def headline(text: str) -> str:
            """Capitalize all the words of a headline."""
            return text.title()

        def sentence(text: str) -> str:
            """Capitalize the first word, so that it may be used as part of a 'pretty' URL."""
            return text.capitalize()

        def link(text: str) -> str:
            """Return the URL of the page named by text, with its first word in capitals."""
            return "https://example.org/" + text
    ''')
    (every,) = [c for c in found["headline"] if c["name"] == "every_word_starts_with_a_capital"]
    assert every["body"].endswith("assert all(each[:1] == each[:1].upper() for each in out.split())")
    assert "result_starts_with_a_capital" in names(found["sentence"])
    (url,) = [c for c in found["sentence"] if c["name"] == "result_is_url_safe"]
    assert "string." not in url["body"]  # an input may be called `string`
    # "the URL of the page" says nothing of which characters the result holds; "first word in capitals" is not
    # "capitalize the first word".
    assert not {"result_is_url_safe", "result_starts_with_a_capital"} & names(found["link"])


def test_monotonicity_only_where_the_docstring_says_so_and_iterators_are_compared_as_lists(tmp_path):
    # more-itertools: `tail`, `totient`, `is_prime` got "non-decreasing in n" for no reason; `unique_everseen`'s
    # idempotence compared two generator objects; `flatten` read an example's `[0, 1]` as a bound on its result.
    found = drafts(tmp_path, '''
        import itertools

        def totient(n: int) -> int:
            """Return the count of natural numbers up to n that are coprime with n."""
            return sum(1 for k in range(1, n + 1) if n % k == 0)

        def fee(amount: int) -> int:
            """The fee, non-decreasing in amount."""
            return amount // 10

        def unique_everseen(iterable):
            """Yield unique elements, preserving order.

            >>> list(unique_everseen([0, 1, 0]))
            [0, 1]
            """
            seen = set()
            for element in iterable:
                if element not in seen:
                    seen.add(element)
                    yield element

        def tail(n: int, iterable):
            """Return the last n items: the result lies in [0, 1] of nothing."""
            return itertools.islice(iterable, n)
    ''')
    assert "non_decreasing_in_n" not in names(found["totient"])
    assert "non_decreasing_in_amount" in names(found["fee"])
    (idempotent,) = [c for c in found["unique_everseen"] if c["name"] == "unique_everseen_is_idempotent"]
    assert "once = list(itertools.islice(unique_everseen(iterable), 200))" in idempotent["body"]
    assert idempotent["body"].endswith("assert list(itertools.islice(unique_everseen(once), 200)) == once")
    assert not {"non_decreasing_in_n", "result_within_documented_interval"} & names(found.get("tail", []))


def test_a_stub_beside_the_module_gives_annotations_and_every_raised_error_guards_the_call(tmp_path):
    # more-itertools keeps its annotations in .pyi stubs; nth_combination documents ValueError and raises
    # IndexError too, so "only raises ValueError" was unsound and a ValueError guard alone let IndexError through.
    (tmp_path / "mod.pyi").write_text(textwrap.dedent('''
        from typing import Iterable, Iterator, TypeVar, overload
        _T = TypeVar("_T")
        def take(n: int, iterable: Iterable[_T]) -> list[_T]: ...
        def tail(n: int, iterable: Iterable[_T]) -> Iterator[_T]: ...
        def blanks(n: int) -> Iterator[_T]: ...
        def pick(iterable: Iterable[int], index: int) -> int: ...
        @overload
        def either(x: int) -> int: ...
        @overload
        def either(x: str) -> str: ...
    '''))
    found = drafts(tmp_path, '''
        def take(n, iterable):
            return list(iterable)[:n]

        def pick(iterable, index):
            """Raise ValueError for an empty iterable."""
            pool = list(iterable)
            if not pool:
                raise ValueError("empty")
            if index >= len(pool):
                raise IndexError(index)
            return pool[index]

        def either(x):
            return x

        def tail(n, iterable):
            return iter(list(iterable)[-n:])

        def blanks(n):
            return iter([None] * n)
    ''')
    (typed,) = [c for c in found["take"] if c["name"] == "returns_list_t"]
    assert typed["inputs"]["n"].startswith("st.integers(")
    assert typed["inputs"]["iterable"].startswith("st.lists(st.integers(")
    assert "only_raises_value_error" not in names(found["pick"])
    assert found["pick"] and all("except (ValueError, IndexError):" in c["body"] for c in found["pick"])
    assert not found["either"]  # overloaded: no one signature to trust
    # A lazy result is listed (a bounded prefix) before any check; its items have the type the inputs bind.
    (items,) = [c for c in found["tail"] if c["name"] == "returns_iterator_t"]
    assert items["body"] == ("out = list(itertools.islice(tail(n, iterable), 200))\n"
                             "assert all(isinstance(x, int) for x in out)")
    assert "returns_iterator_t" not in names(found["blanks"])  # _T bound by no input: any type at all


def test_standard_library_errors_literal_choices_and_constrained_type_variables(tmp_path):
    # more-itertools: random_permutation's random.sample raised ValueError for r > len(pool); grouper's `incomplete`
    # drawn as any text was a ValueError every time; running_mean's `_NumberT` (float, Decimal, Fraction) is no int.
    (tmp_path / "mod.pyi").write_text(textwrap.dedent('''
        from decimal import Decimal
        from typing import Iterable, Iterator, TypeVar
        _NumberT = TypeVar("_NumberT", float, Decimal)
        def running_mean(iterable: Iterable[_NumberT]) -> Iterator[_NumberT]: ...
        def shuffled(pool: list[int], r: int) -> tuple[int, ...]: ...
        def pad(items: list[int], mode: str) -> list[int]: ...
        def label(mode: str) -> str: ...
    '''))
    found = drafts(tmp_path, '''
        from random import sample

        def running_mean(iterable):
            total = 0
            for i, x in enumerate(iterable, 1):
                total += x
                yield total / i

        def shuffled(pool, r):
            return tuple(sample(pool, r))

        def pad(items, mode):
            match mode:
                case "fill":
                    return items + [0]
                case "ignore":
                    return items
                case _:
                    raise ValueError(mode)

        def label(mode):
            return "wide" if mode == "w" else "narrow" if mode == "n" else mode
    ''')
    (mean,) = [c for c in found["running_mean"] if c["name"] == "returns_iterator_number_t"]
    assert mean["inputs"]["iterable"].startswith("st.lists(st.floats(")
    assert mean["body"].endswith("assert all(isinstance(x, (int, float)) for x in out)")
    assert all("except ValueError:\n    assume(False)" in c["body"] for c in found["shuffled"]) and found["shuffled"]
    assert found["pad"][0]["inputs"]["mode"] == "st.sampled_from(['fill', 'ignore'])"
    # label compares too, but raises nothing: any text is its input
    assert found["label"][0]["inputs"]["mode"].startswith("st.text(")


def test_a_bytearray_in_a_union_is_drawn_not_a_reason_to_give_up(tmp_path):
    # python-slugify's `text: str | bytes | bytearray` left the whole function without a candidate.
    found = drafts(tmp_path, '''
        def slug(text: str | bytes | bytearray) -> str:
            return text if isinstance(text, str) else bytes(text).decode("utf-8", "ignore")
    ''')
    (typed,) = [c for c in found["slug"] if c["name"] == "returns_str"]
    values = draw(typed["inputs"]["text"])
    assert {type(v) for v in values} <= {str, bytes, bytearray} and bytearray in {type(v) for v in values}
