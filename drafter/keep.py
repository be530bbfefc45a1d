"""The keep rule: a sound candidate is an oracle only if its own assertion catches sabotage."""

from __future__ import annotations

from collections.abc import Sequence

from drafter.data import KillResult, Verdict


def decide(results: Sequence[KillResult], vacuous: str = "") -> Verdict:
    """Kept when at least one kill is the candidate's assertion failing; crashes and hangs alone add nothing a fuzz test would not.

    `vacuous`: why the forced-fail proof rejected the candidate before it met any mutant.
    """
    if vacuous:
        return Verdict("sabotage", False, "vacuous", vacuous)
    kills = [r for r in results if r.killed]
    if not kills:
        unreached = sum(1 for r in results if r.outcome == "not_reached")
        return Verdict("sabotage", False, "survives_sabotage", f"survived all {len(results)} mutant(s) of its target"
                       + (f" ({unreached} of them on lines its inputs never execute)" if unreached else ""))
    assertion_kills = [r for r in kills if r.outcome == "assertion"]
    if not assertion_kills:
        return Verdict(
            "sabotage",
            False,
            "only_crash_kills",
            f"all {len(kills)} kill(s) are the target crashing or hanging, never this candidate's assertion",
        )
    return Verdict("kept", True, None, f"kills {len(kills)} mutant(s), {len(assertion_kills)} by its own assertion")
