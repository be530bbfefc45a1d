"""The shape of report.json as every reader of it needs it (the views, `promote`, `refresh`'s carry-forward):
a report.json read back is untrusted, so it is checked against this before any view touches it."""

from __future__ import annotations

import functools

from drafter.jsonfile import Either, MapOf, OptionalKey, shape_of

MUTANT_COUNTS = {k: int for k in ("killed", "timeout", "survived", "not_reached", "not_evaluated", "invalid",
                                  "dropped_equivalent", "dropped_duplicate")}
FRACTION = Either(None, {"killed": int, "mutants": int})
ROUND_ROW = {"round": int, "asked": [str], "not_asked": [str], "tokens": int, "candidates": int, "kept": int,
             "newly_caught": int, "killed": int, "mutants": int, "by_target": MapOf(FRACTION), "stopped": MapOf(str)}
SUMMARY = {
    "targets": int, "targets_with_candidates": int, "candidates": int, "kept": int, "rejected": int,
    "by_reason": MapOf(int), "mutants": MUTANT_COUNTS, "seconds": MapOf(float),
    "matrix": {"evaluations": int, "seconds": float}, "tokens": {"total_tokens": int},
    "carried": OptionalKey(Either(None, {"from": str, "targets": int})),
    "rounds": OptionalKey(Either(None, [ROUND_ROW])),
    "cpu_seconds": OptionalKey(MapOf(float)),  # absent from reports written before it was measured
}
SOURCE = {"path": str, "tree_hash": str, "git_commit": OptionalKey(Either(str, None))}
SETTINGS = {"rounds": OptionalKey(Either(int, None))}


@functools.cache
def report_shape() -> dict:
    from drafter.report.entries import RunReport  # the entries' shapes follow their dataclasses

    return {**shape_of(RunReport), "source": SOURCE, "settings": SETTINGS, "summary": SUMMARY}
