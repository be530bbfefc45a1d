"""`drafter refresh`: the scheduled job's command. Redraft only what changed since the newest complete run.

Exit codes a job can branch on are REFRESH_EXIT: nothing changed (no new run, `latest` untouched), or a new
complete run with changed targets drafted and unchanged ones carried forward.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from drafter.config import Settings
from drafter.extract import extract
from drafter.pipeline import Reporter, RunResult, earlier_fingerprints, resolve_src, run
from drafter.report.model import Carry
from drafter.runfolder import check_separate, complete_runs, read_run_meta
from drafter.shard import SHARD_RECORD, Shard, partition

NOTHING_CHANGED = 0
REFRESHED = 1
REFRESH_EXIT = {NOTHING_CHANGED: "nothing changed since the baseline: no model call, no new run",
                REFRESHED: "a new run: new or changed targets drafted, unchanged ones carried forward",
                2: "an error in the options, the configuration or SRC (nothing written)"}


@dataclass(frozen=True)
class Plan:
    baseline: Path | None
    changed: tuple[str, ...]  # new or with a changed fingerprint
    unchanged: tuple[str, ...]
    removed: tuple[str, ...]
    all_targets: tuple = ()  # every current target, in SRC order (a shard's part is taken of them)

    @property
    def nothing_to_do(self) -> bool:
        return self.baseline is not None and not self.changed and not self.removed


@dataclass(frozen=True)
class RefreshResult:
    plan: Plan
    run: RunResult | None  # None when nothing changed

    @property
    def warnings(self) -> tuple[str, ...]:
        return self.run.warnings if self.run else ()

    @property
    def exit_code(self) -> int:
        return NOTHING_CHANGED if self.run is None else REFRESHED


def find_baseline(workspace: Path, src: Path) -> Path | None:
    """The newest complete run of the workspace for the same SRC that has a report (incomplete runs never count,
    nor does one shard of a run: its merge does)."""
    for run_dir in complete_runs(workspace):
        if read_run_meta(run_dir).get("src") == str(src) and (run_dir / "report.json").is_file() \
                and not (run_dir / SHARD_RECORD).exists():
            return run_dir
    return None


def plan(src: Path, settings: Settings) -> Plan:
    src = resolve_src(src)
    check_separate(src, settings.workspace)
    baseline = find_baseline(settings.workspace, src)
    targets = extract(src, settings.corpus, settings.select, settings.include_private).targets
    current = {t.id: t.fingerprint for t in targets}
    earlier = earlier_fingerprints(baseline) if baseline else {}
    if settings.select:
        # Targets outside the selection are neither drafted nor called removed.
        earlier = {k: v for k, v in earlier.items() if k in current or _selected(k, settings.select)}
    changed = tuple(sorted(t for t, fp in current.items() if earlier.get(t) != fp))
    unchanged = tuple(sorted(t for t, fp in current.items() if earlier.get(t) == fp))
    removed = tuple(sorted(set(earlier) - set(current)))
    return Plan(baseline, changed, unchanged, removed, targets)


def _selected(target_id: str, patterns: tuple[str, ...]) -> bool:
    from fnmatch import fnmatchcase

    return any(fnmatchcase(target_id, p) for p in patterns)


def refresh(src: Path, settings: Settings, reporter: Reporter | None = None, shard: Shard | None = None) -> RefreshResult:
    the_plan = plan(src, settings)
    if the_plan.nothing_to_do:
        return RefreshResult(the_plan, None)
    carry = None
    if the_plan.baseline is not None:
        settings = replace(settings, changed_since=the_plan.baseline)
        carried = set(the_plan.unchanged)
        if shard is not None:  # a shard carries its own part of the unchanged targets, so the merge has each once
            carried &= set(partition(the_plan.all_targets, shard.n)[shard.k - 1])
        carry = Carry.from_run(the_plan.baseline, carried, the_plan.removed)
    return RefreshResult(the_plan, run(src, settings, reporter, carry=carry, command="refresh", shard=shard))
