"""Evidence from a docstring's doctest examples: literal calls of the target, and the input domain they show.

Examples are read, never run: `>>> f("device_type")` followed by `'DeviceType'` is parsed with `doctest` and
`ast.literal_eval`. Only calls of the target itself with literal arguments count. An example documents the
domain a function is meant for, so relations that only hold there (round trips between case conversions) are
quantified over strings of the examples' shape, not over arbitrary text.
"""

from __future__ import annotations

import ast
import doctest
import re
import string
from dataclasses import dataclass

MAX_WORD = 8
MAX_WORDS = 4


@dataclass(frozen=True)
class DocExample:
    args: tuple  # literal positional arguments
    kwargs: tuple[tuple[str, object], ...]
    output: object  # the literal the example shows; `NOT_LITERAL` when it is not one


NOT_LITERAL = object()


def doc_examples(docstring: str | None, name: str) -> list[DocExample]:
    """Every `>>> name(<literals>)` example of the docstring, with its expected output when it is a literal.

    Not `>>> module.name(...)`: semver's deprecated functions show well-formed versions that way, and drawing any
    text for them (what the values' type alone says) made 9 more candidates unsound."""
    try:
        parsed = doctest.DocTestParser().get_examples(docstring or "")
    except ValueError:  # inconsistent indentation and the like: no usable examples
        return []
    found = []
    for example in parsed:
        try:
            node = ast.parse(example.source.strip(), mode="eval").body
        except SyntaxError:
            continue
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name):
            continue
        try:
            args = tuple(ast.literal_eval(a) for a in node.args)
            kwargs = tuple((k.arg, ast.literal_eval(k.value)) for k in node.keywords if k.arg)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if len(kwargs) != len(node.keywords):
            continue
        try:
            output = ast.literal_eval(example.want.strip()) if example.want.strip() else NOT_LITERAL
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            output = NOT_LITERAL
        found.append(DocExample(args, kwargs, output))
    return found


def example_values(examples: list[DocExample], position: int, name: str) -> list:
    """The values the examples pass for one parameter (by position or by keyword)."""
    values = []
    for example in examples:
        keyword = dict(example.kwargs)
        if name in keyword:
            values.append(keyword[name])
        elif position < len(example.args):
            values.append(example.args[position])
    return values


# (name, first letter of a word, separator between words): regular shapes identifiers and phrases are written in.
SHAPES = (
    ("snake_case words", "", "_"),
    ("kebab-case words", "", "-"),
    ("lower-case words separated by spaces", "", " "),
    ("CamelCase words", "[A-Z]", ""),
)


@dataclass(frozen=True)
class TextDomain:
    expr: str  # a Hypothesis strategy expression
    basis: str
    regular: bool  # a word shape (not only an alphabet): round trips between conversions may hold on it


def text_domain(values: list) -> TextDomain | None:
    """The shape every example string has, as a bounded strategy; None without ASCII string examples."""
    texts = [v for v in values if isinstance(v, str)]
    if not texts or len(texts) != len(values) or not all(t and t.isascii() for t in texts):
        return None
    shown = ", ".join(repr(t) for t in texts[:3])
    for label, head, sep in SHAPES:
        words = [w for t in texts for w in (t.split(sep) if sep else re.findall("[A-Z][a-z]*", t))]
        # Words are at least two letters unless an example shows a shorter one (single letters merge: "a_b" -> "AB").
        least = min([len(w) for w in words] + [2]) - (1 if head else 0)
        longest = max([len(w) for w in words] + [MAX_WORD])
        word = f"{head}[a-z]{{{least},{longest}}}"
        pattern = f"{word}(?:{re.escape(sep)}{word}){{0,{MAX_WORDS - 1}}}"
        if all(re.fullmatch(pattern, t) for t in texts):
            return TextDomain(f"st.from_regex(r{pattern!r}, fullmatch=True)",
                              f"doctest examples ({shown}) are {label}", True)
    alphabet = _alphabet(texts)
    return TextDomain(f"st.text(alphabet={alphabet}, min_size=1, max_size=20)",
                      f"doctest examples ({shown}) use only these characters", False)


def _alphabet(texts: list[str]) -> str:
    chars = set("".join(texts))
    parts = [name for name, group in (("string.ascii_lowercase", string.ascii_lowercase),
                                      ("string.ascii_uppercase", string.ascii_uppercase),
                                      ("string.digits", string.digits)) if chars & set(group)]
    others = "".join(sorted(c for c in chars if c not in string.ascii_letters + string.digits))
    if others:
        parts.append(repr(others))
    return " + ".join(parts)
