"""Families read from the target's own body with `ast`: the closed set of literal results it can return, and the
sign symmetry of a parameter it replaces by its absolute value first.

Both are facts of the code as written, not guesses: `ordinal` returns only "st", "nd", "rd" or "th", and a function
that starts with `n = abs(n)` cannot tell `n` from `-n`. A mutant that changes a returned literal, or drops the
`abs`, breaks them.
"""

from __future__ import annotations

from collections.abc import Callable

from drafter.data import Target
from drafter.models.source_facts import absolute_params, literal_results
from drafter.models.textforms import Proposal

SIGNED_KINDS = ("int", "float", "decimal", "fraction")


def body_law_proposals(target: Target, root: str, inputs: dict[str, str], kinds: dict[str, str], call: str,
                       negated: Callable[[str], str], guarded: Callable[[str], str]) -> list[Proposal]:
    """`kinds` maps each quantified input to its strategy's kind; `negated(name)` is the call with `-name`."""
    out = []
    results = literal_results(root, target.file, target.line)
    if results is not None:
        shown = ", ".join(repr(v) for v in results)
        out.append(Proposal(
            "result_is_one_of_its_literals", "invariant", guarded(f"out = {call}") + f"\nassert out in ({shown},)",
            "a version that returns a value none of its branches names",
            f"every return of {target.name} gives a literal, so its result is one of {shown}", dict(inputs)))
    for name in sorted(absolute_params(root, target.file, target.line)):
        if kinds.get(name) not in SIGNED_KINDS:
            continue
        body = guarded(f"out = {call}") + "\n" + guarded(f"mirrored = {negated(name)}") + "\nassert mirrored == out"
        out.append(Proposal(
            f"sign_of_{name}_does_not_matter", "metamorphic", body,
            f"a version that lets the sign of {name} through",
            f"{target.name} replaces {name} by its absolute value before any other use, so {name} and -{name} "
            f"give the same result", dict(inputs)))
    return out
