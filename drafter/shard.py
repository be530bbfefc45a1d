"""`--shard K/N`: a deterministic partition of a run's targets over N machines, balanced by estimated cost.

Every shard extracts the same targets from the same SRC and computes the same partition, so the shards need no
coordination (as with cargo-mutants' `--shard`); each records the whole plan in its run folder (shard.json) so that
`drafter merge` can check that the shards agree and that none is missing or repeated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from drafter.data import Extraction, Target
from drafter.errors import ConfigError

SHARD_RECORD = "shard.json"
_SHARD_TEXT = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True)
class Shard:
    """Shard `k` of `n`, 1-based: 1/3, 2/3 and 3/3 together are the whole run."""

    k: int
    n: int

    def __str__(self) -> str:
        return f"{self.k}/{self.n}"


def parse_shard(text: str) -> Shard:
    match = _SHARD_TEXT.match(text or "")
    if not match:
        raise ConfigError(f"--shard {text!r}: expected K/N with whole numbers, e.g. 2/4 (shard 2 of 4)")
    k, n = int(match.group(1)), int(match.group(2))
    if n < 1:
        raise ConfigError(f"--shard {text}: N must be at least 1")
    if not 1 <= k <= n:
        raise ConfigError(f"--shard {text}: K counts from 1 to N={n} (shards are 1/{n} .. {n}/{n})")
    return Shard(k, n)


def target_cost(target: Target) -> int:
    """A cheap proxy for a target's share of the work: the lines of its function. Mutants grow with the body,
    and so, roughly, does the time of each candidate run."""
    return max(1, target.end_line - target.line + 1)


def partition(targets: tuple[Target, ...] | list[Target], n: int) -> list[list[str]]:
    """Target ids of each of `n` shards: the costliest first, each to the shard with the least cost so far (the
    lowest-numbered on a tie). Unlike contiguous slices, neighbours in one module spread over shards; unlike plain
    round robin, shard 1 does not get the largest target of every round. Each shard lists ids in SRC order."""
    order = {t.id: i for i, t in enumerate(targets)}
    loads = [0] * n
    shards: list[list[str]] = [[] for _ in range(n)]
    for target in sorted(targets, key=lambda t: (-target_cost(t), t.id)):
        lightest = min(range(n), key=lambda i: (loads[i], i))
        loads[lightest] += target_cost(target)
        shards[lightest].append(target.id)
    return [sorted(ids, key=order.__getitem__) for ids in shards]


def select_shard(extraction: Extraction, shard: Shard) -> tuple[Extraction, dict]:
    """This shard's part of `extraction` (classes, module names and constants stay whole: prompts and lint see
    the same context as an unsharded run), and the record shard.json keeps."""
    shards = partition(extraction.targets, shard.n)
    mine = set(shards[shard.k - 1])
    costs = [sum(target_cost(extraction.target(t)) for t in ids) for ids in shards]
    record = {"k": shard.k, "n": shard.n, "targets": shards[shard.k - 1],
              "all_targets": [t.id for t in extraction.targets], "costs": costs, "cost": "function lines"}
    return replace(extraction, targets=tuple(t for t in extraction.targets if t.id in mine)), record


class WholeSource:
    """A backend that proposes for a shard's targets while seeing every target of SRC, as an unsharded run's
    backend does (the offline proposer pairs a function with its siblings; replay names replies for all)."""

    def __init__(self, backend, whole: Extraction):
        self._backend = backend
        self._whole = whole

    def propose(self, prompts, _extraction, on_reply=None):
        return self._backend.propose(prompts, self._whole, on_reply=on_reply)

    def __getattr__(self, name):
        return getattr(self._backend, name)
