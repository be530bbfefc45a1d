"""Families for functions that convert text to a form (case, separators, slugs, ASCII), from docstring evidence.

A docstring that says a function produces a form ("an underscored, lowercase form", "replace underscores with
dashes", "an ASCII approximation") makes its output a fixed point of the same conversion; one that calls it the
inverse of a sibling gives a round trip on the domain its doctest examples show; siblings whose examples on the
same inputs show one output as the end (or start) of the other give that relation for every input.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from dataclasses import dataclass

from drafter.data import Target
from drafter.models.examples import NOT_LITERAL, DocExample, doc_examples, example_values, text_domain
from drafter.models.annotations import annotation_head

FORM_WORDS = re.compile(r"\b(form|case|camelcase|underscored?|underscores|dash(?:es)?|hyphens?|lowercase|uppercase|"
                        r"title|slug|url|ascii|capitali[sz]e)\b")
INVERSE_OF = re.compile(r"\b(?:inverse|reverse|opposite) of\s+(?::func:)?`+(\w+)`+")
SEPARATOR_WORDS = {"underscores": "_", "dashes": "-", "hyphens": "-", "spaces": " ", "tabs": "\t"}
CAPITAL_FIRST = re.compile(r"\bcapitali[sz]es? the first (?:word|letter|character)\b")
CAPITAL_EVERY = re.compile(r"\bcapitali[sz]es? (?:all|each|every) (?:of )?(?:the )?words?\b")
URL_PART = re.compile(r"\b(?:part of an?\s+(?:\S+\s+){0,2}url|url[- ]safe|slug)\b")
# Spelled out, not `string.ascii_letters`: an input may well be called `string`.
LETTERS_AND_DIGITS = string.ascii_letters + string.digits
URL_SAFE = repr(LETTERS_AND_DIGITS + "-._~")  # RFC 3986's unreserved characters
# Words that start with a lower-case letter often: arbitrary Unicode rarely draws one where a word begins.
WORDS = f"st.text(alphabet={LETTERS_AND_DIGITS + ' _'!r}, max_size=20)"
REPLACED = re.compile(r"\b(?:replace|turn|convert)s?\s+(underscores|dashes|hyphens|spaces|tabs)\s+(?:with|into|to)\s+"
                      r"(underscores|dashes|hyphens|spaces|tabs)\b")


@dataclass(frozen=True)
class Proposal:
    name: str
    kind: str
    body: str
    counterexample: str
    why: str
    inputs: dict[str, str]


def prose(docstring: str | None) -> str:
    """The docstring without its doctest lines and their outputs, lower-cased: what it says, not what it shows."""
    kept, in_example = [], False
    for line in (docstring or "").splitlines():
        stripped = line.strip()
        if stripped.startswith((">>>", "...")):
            in_example = True
            continue
        if in_example and stripped:
            continue  # an example's expected output
        in_example = False
        kept.append(line)
    return "\n".join(kept).lower()


def single_text_param(target: Target) -> str | None:
    """The first parameter of a module-level str -> str function whose other parameters all have defaults."""
    params = [p for p in target.params if p.kind not in ("var_positional", "var_keyword")]
    if target.owner or not params or any(p.default is None for p in params[1:]):
        return None
    first = params[0]
    if annotation_head(first.annotation) != "str" or annotation_head(target.returns) != "str":
        return None
    return first.name


def _domain(target: Target) -> tuple[str, str] | None:
    """(strategy, basis) for the first parameter, from the target's doctest examples."""
    name = single_text_param(target)
    if name is None:
        return None
    domain = text_domain(example_values(doc_examples(target.docstring, target.name), 0, name))
    return (domain.expr, domain.basis) if domain and domain.regular else None


def text_form_proposals(target: Target, siblings: list[Target], public: frozenset[str], plain: dict[str, str],
                        call: str, guarded: Callable[[str], str]) -> list[Proposal]:
    """Every proposal of this module for `target`; `plain` is the floor's strategy per parameter, `call` its call."""
    out: list[Proposal] = []
    name = single_text_param(target)
    said = prose(target.docstring)
    f = target.name
    if name is not None:
        examples = doc_examples(target.docstring, f)
        domain = text_domain(example_values(examples, 0, name))
        strategy = domain.expr if domain else plain.get(name)
        basis = domain.basis if domain else "the floor's text strategy"
        if strategy and FORM_WORDS.search(said):
            out.append(Proposal(
                f"{f}_is_idempotent", "idempotence",
                guarded(f"once = {f}({name})") + f"\nassert {f}(once) == once",
                "a conversion whose output is not yet in the form it promises",
                f"the docstring says {f} produces a form ({FORM_WORDS.search(said).group(0)!r}): converting the "
                f"result again changes nothing. Strategies: {name}: {basis}", {name: strategy}))
        for sibling in siblings:
            partner = sibling.name
            if sibling.owner or partner not in public or single_text_param(sibling) is None:
                continue
            mentioned = {m.group(1) for m in INVERSE_OF.finditer(said)}
            theirs = {m.group(1) for m in INVERSE_OF.finditer(prose(sibling.docstring))}
            if partner not in mentioned and f not in theirs:
                continue
            their_domain = _domain(sibling)
            if their_domain:
                out.append(Proposal(
                    f"{f}_inverts_{partner}", "round_trip", f"assert {f}({partner}({name})) == {name}",
                    f"a {f} that does not undo {partner}",
                    f"the docstrings call {f} and {partner} inverses; on {partner}'s documented domain {f} undoes "
                    f"it. Strategies: {name}: {their_domain[1]}", {name: their_domain[0]}))
            if domain and domain.regular:
                out.append(Proposal(
                    f"{partner}_inverts_{f}", "round_trip", f"assert {partner}({f}({name})) == {name}",
                    f"a {f} whose output {partner} cannot bring back",
                    f"the docstrings call {f} and {partner} inverses; on {f}'s documented domain {partner} undoes "
                    f"it. Strategies: {name}: {domain.basis}", {name: domain.expr}))
        out.extend(_capitals_and_urls(f, name, said, plain, guarded))
    replaced = REPLACED.search(said)
    if replaced and annotation_head(target.returns) in ("str", "") and plain:
        gone = SEPARATOR_WORDS[replaced.group(1)]
        if gone != SEPARATOR_WORDS[replaced.group(2)]:
            if not target.owner and name is not None:
                # Text that contains what is replaced, often: arbitrary Unicode would rarely draw a '_'.
                rich = f"st.text(alphabet=string.ascii_letters + string.digits + {(gone + ' ') if gone != ' ' else ' '!r}, max_size=20)"
                out.append(Proposal(
                    f"result_has_no_{replaced.group(1)}", "invariant", guarded(f"out = {f}({name})") +
                    f"\nassert {gone!r} not in out", f"a version that leaves some {replaced.group(1)} in place",
                    f"the docstring says it replaces {replaced.group(1)} with {replaced.group(2)}. Strategies: "
                    f"{name}: letters, digits and {replaced.group(1)}", {name: rich}))
    if re.search(r"\bascii\b", said) and annotation_head(target.returns) == "str" and plain and not target.owner:
        out.append(Proposal(
            "result_is_ascii", "invariant", guarded(f"out = {call}") + "\nassert out.isascii()",
            "a version that lets non-ASCII characters through", "the docstring promises ASCII output", dict(plain)))
    out.extend(_example_relations(target, siblings, public, plain))
    return out


def _capitals_and_urls(f: str, name: str, said: str, plain: dict[str, str],
                       guarded: Callable[[str], str]) -> list[Proposal]:
    """What the prose promises about capitals ("capitalize the first word", "... all the words") and URLs ("part of
    a 'pretty' URL", "slug")."""
    out = []
    promises = (
        (CAPITAL_FIRST, "result_starts_with_a_capital", "out[:1] == out[:1].upper()", WORDS, "a first letter left small"),
        (CAPITAL_EVERY, "every_word_starts_with_a_capital", "all(each[:1] == each[:1].upper() for each in out.split())",
         WORDS, "a word left uncapitalised"),
        (URL_PART, "result_is_url_safe", f"all(c in {URL_SAFE} for c in out)", plain.get(name),
         "a character a URL would have to escape"),
    )
    for pattern, law, check, strategy, counterexample in promises:
        said_so = pattern.search(said)
        if said_so and strategy:
            out.append(Proposal(
                law, "invariant", guarded(f"out = {f}({name})") + f"\nassert {check}", counterexample,
                f"the docstring says {said_so.group(0)!r}", {name: strategy}))
    return out


def _example_relations(target: Target, siblings: list[Target], public: frozenset[str],
                       plain: dict[str, str]) -> list[Proposal]:
    """`f(x).endswith(g(x))` when every example both functions show for the same input says so."""
    mine = _one_arg_outputs(doc_examples(target.docstring, target.name))
    if len(mine) < 2 or len(plain) != 1 or target.owner:
        return []
    (name,) = plain
    out = []
    for sibling in siblings:
        if sibling.owner or sibling.name not in public:
            continue
        theirs = _one_arg_outputs(doc_examples(sibling.docstring, sibling.name))
        shared = [(mine[a], theirs[a]) for a in mine if a in theirs]
        if len(shared) < 2 or not all(isinstance(m, str) and isinstance(o, str) and o and m != o for m, o in shared):
            continue
        strategy = _widened(plain[name], list(mine))
        g = sibling.name
        for method in ("endswith", "startswith"):
            if all(getattr(m, method)(o) for m, o in shared):
                out.append(Proposal(
                    f"{target.name}_{method}_{g}", "invariant", f"assert {target.name}({name}).{method}({g}({name}))",
                    f"a {target.name} that drops or alters the part {g} computes",
                    f"on each of the {len(shared)} inputs both docstrings show, {target.name}'s result "
                    f"{ {'endswith': 'ends with', 'startswith': 'starts with'}[method]} {g}'s. Strategies: {name}: {strategy}",
                    {name: strategy}))
                break
    return out


def _one_arg_outputs(examples: list[DocExample]) -> dict:
    return {e.args[0]: e.output for e in examples
            if len(e.args) == 1 and not e.kwargs and e.output is not NOT_LITERAL and isinstance(e.args[0], (int, str))
            and not isinstance(e.args[0], bool)}


def _widened(strategy: str, values: list) -> str:
    """An integer strategy widened to cover the examples' arguments (they are the documented domain)."""
    match = re.fullmatch(r"st\.integers\(min_value=(-?\d+), max_value=(-?\d+)\)", strategy)
    ints = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    if not match or not ints:
        return strategy
    low, high = min(int(match.group(1)), *ints), max(int(match.group(2)), *ints)
    return f"st.integers(min_value={low}, max_value={high})"
