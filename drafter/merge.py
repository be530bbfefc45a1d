"""`drafter merge`: the run folders of N shards (`--shard K/N`) -> one complete run, as if one machine had run it.

Shard folders come from other machines (CI artifacts): every file of them is untrusted input. The merge refuses,
naming the problem, shards that do not belong together, and copies only regular files.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

from drafter.errors import ConfigError
from drafter.report import RunReport, load_report, write_reports
from drafter.report.model import told_apart_scores, triage_summary
from drafter.runfolder import (
    INCOMPLETE_NOTE,
    INCOMPLETE_SUFFIX,
    RUN_META,
    abandon_run,
    finish_run,
    new_run_dir,
    read_run_meta,
    write_json,
)
from drafter.shard import SHARD_RECORD

MERGE_RECORD = "merged.json"
# Settings a shard may choose for itself: they change how fast, not what.
LOCAL_SETTINGS = {"jobs"}
# Folders of a shard that hold per-target files, joined as they are.
PER_TARGET_FOLDERS = ("prompts", "replies", "staged", "kept")


class MergeError(ConfigError):
    """Shards that cannot make one run."""


@dataclass(frozen=True)
class ShardRun:
    path: Path
    meta: dict
    record: dict
    report: RunReport

    @property
    def label(self) -> str:
        return f"shard {self.record['k']}/{self.record['n']} ({self.path})"


def read_shard(path: Path) -> ShardRun:
    path = Path(path)
    if not path.is_dir():
        raise MergeError(f"{path}: not a run folder")
    if path.name.endswith(INCOMPLETE_SUFFIX) or (path / INCOMPLETE_NOTE).exists():
        raise MergeError(f"{path}: an incomplete run (it was interrupted or is still running); finish it with "
                         f"`drafter run --resume {path}` or run that shard again")
    meta = read_run_meta(path)
    if meta.get("complete") is not True:
        raise MergeError(f"{path}: no {RUN_META} saying the run is complete")
    try:
        record = json.loads((path / SHARD_RECORD).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MergeError(f"{path}: not a shard (no {SHARD_RECORD}); only runs made with --shard K/N merge") from None
    except (OSError, ValueError) as exc:
        raise MergeError(f"{path / SHARD_RECORD}: unreadable ({exc})") from exc
    if not _valid_record(record):
        raise MergeError(f"{path / SHARD_RECORD}: not a shard record (k, n, targets, all_targets)")
    return ShardRun(path, meta, record, load_report(path))


def _valid_record(record) -> bool:
    return (isinstance(record, dict) and all(type(record.get(key)) is int for key in ("k", "n"))
            and 1 <= record["k"] <= record["n"]
            and all(isinstance(record.get(key), list) and all(isinstance(t, str) for t in record[key])
                    for key in ("targets", "all_targets")))


def check_shards(shards: list[ShardRun]) -> None:
    """Refuse shards that do not make exactly one run: other SRC trees, settings, model or plan; a shard missing,
    given twice, or holding targets that are not its own."""
    if not shards:
        raise MergeError("name the shards' run folders to merge")
    first = shards[0]
    for other in shards[1:]:
        for what, mine, theirs in (
            ("SRC trees (source tree_hash)", first.report.source.get("tree_hash"), other.report.source.get("tree_hash")),
            ("models", first.report.model, other.report.model),
            ("settings", _shared_settings(first.report.settings), _shared_settings(other.report.settings)),
            ("numbers of shards", first.record["n"], other.record["n"]),
            ("target lists (same SRC, --select and --corpus?)", first.record["all_targets"], other.record["all_targets"]),
            ("report versions", first.report.version, other.report.version),
            ("commands", first.meta.get("command"), other.meta.get("command")),
        ):
            if mine != theirs:
                raise MergeError(f"{other.label} and {first.label} have different {what}: {theirs!r} vs {mine!r}")
    n = first.record["n"]
    seen: dict[int, ShardRun] = {}
    for shard in shards:
        k = shard.record["k"]
        if k in seen:
            raise MergeError(f"shard {k}/{n} given twice: {seen[k].path} and {shard.path}")
        seen[k] = shard
    missing = [f"{k}/{n}" for k in range(1, n + 1) if k not in seen]
    if missing:
        raise MergeError(f"missing shard {', '.join(missing)} of {n}: every shard's run folder is needed")
    owner: dict[str, str] = {}
    for shard in shards:
        for target in shard.record["targets"]:
            if target in owner:
                raise MergeError(f"{target} belongs to both {owner[target]} and {shard.label}")
            owner[target] = shard.label
        stray = {t.id for t in shard.report.targets} - set(shard.record["targets"])
        if stray:
            raise MergeError(f"{shard.label}: its report has targets outside its part: {', '.join(sorted(stray))}")
    if set(owner) != set(first.record["all_targets"]):
        raise MergeError("the shards' parts do not cover the targets: "
                         + ", ".join(sorted(set(first.record["all_targets"]) ^ set(owner))))


def _shared_settings(settings: dict) -> dict:
    return {k: v for k, v in settings.items() if k not in LOCAL_SETTINGS}


def merge_reports(shards: list[ShardRun], run_id: str) -> RunReport:
    """One report over every shard's targets, in SRC order, with the summary counted over all of them."""
    shards = sorted(shards, key=lambda s: s.record["k"])
    order = {t: i for i, t in enumerate(shards[0].record["all_targets"])}
    summaries = [s.report.summary for s in shards]
    carried = [s["carried"] for s in summaries if s.get("carried")]
    by_order = (lambda t: t.id) if carried else (lambda t: order.get(t.id, len(order)))
    targets = sorted((t for s in shards for t in s.report.targets), key=by_order)
    # Candidates in round order, then SRC order, as one run lists them; mutants by target.
    candidates = sorted((c for s in shards for c in s.report.candidates), key=lambda c: (c.round, order.get(c.target, -1)))
    mutants = sorted((m for s in shards for m in s.report.mutants), key=lambda m: order.get(m.target, -1))
    notes = {t.id: t.note for t in targets if t.note}
    status = Counter(m.status for m in mutants)
    first = summaries[0]
    summary = {
        "targets": len(targets),
        "targets_with_candidates": sum(1 for t in targets if t.id not in notes),
        "targets_without_candidates": dict(sorted(notes.items())),
        "carried": {"from": carried[0]["from"], "targets": sum(c["targets"] for c in carried),
                    "removed": sorted({r for c in carried for r in c["removed"]})} if carried else None,
        "candidates": len(candidates),
        "kept": sum(1 for c in candidates if c.status == "kept"),
        "rejected": sum(1 for c in candidates if c.status == "rejected"),
        "by_stage": dict(sorted(Counter(c.stage for c in candidates).items())),
        "by_reason": dict(sorted(Counter(f"{c.stage}:{c.reason}" for c in candidates if c.reason).items())),
        "mutants": {"total": len(mutants), **{k: status.get(k, 0) for k in first["mutants"]
                                            if k not in _SUMMED_MUTANTS and k != "total"},
                    **{k: sum(s["mutants"][k] for s in summaries) for k in _SUMMED_MUTANTS}},
        "mutation_score": {t.id: round(t.killed / t.mutants, 3) if t.mutants else None for t in targets},
        "mutation_score_without_no_difference": told_apart_scores(targets),
        "triage": triage_summary(mutants),
        "matrix": {**{k: _sum(s["matrix"][k] for s in summaries) for k in ("evaluations", "not_reached_pairs",
                                                                              "seconds", "test_seconds")},
                   # absent from shards reported before it was measured
                   "timeout_seconds": _sum(s["matrix"].get("timeout_seconds", 0.0) for s in summaries),
                   "notes": [n for s in summaries for n in s["matrix"]["notes"]]},
        "seconds": _summed_dicts([s["seconds"] for s in summaries]),
        "cpu_seconds": _summed_dicts([s.get("cpu_seconds", {}) for s in summaries]),
        "tokens": _summed_dicts([s["tokens"] for s in summaries]),
        "rounds": _merged_rounds([s["rounds"] for s in summaries], order),
    }
    warnings = list(dict.fromkeys(w for s in shards for w in s.report.warnings))
    return replace(shards[0].report, run_id=run_id, targets=tuple(targets), candidates=tuple(candidates),
                   mutants=tuple(mutants), summary=summary, warnings=tuple(warnings))


_SUMMED_MUTANTS = ("dropped_equivalent", "dropped_duplicate", "fresh_process")


def _sum(values):
    total = sum(values)
    return round(total, 3) if isinstance(total, float) else total


def _summed_dicts(dicts: list[dict]) -> dict:
    keys = list(dict.fromkeys(k for d in dicts for k in d))
    return {k: _sum(d.get(k, 0) for d in dicts) for k in keys}


def _merged_rounds(per_shard: list[list[dict]], order: dict[str, int]) -> list[dict]:
    rows: dict[int, list[dict]] = {}
    for shard_rows in per_shard:
        for row in shard_rows:
            rows.setdefault(row["round"], []).append(row)
    merged = []
    for number in sorted(rows):
        parts = rows[number]
        killed, mutants = sum(r["killed"] for r in parts), sum(r["mutants"] for r in parts)
        by_target = {t: v for r in parts for t, v in r["by_target"].items()}
        merged.append({
            "round": number,
            "asked": sorted((t for r in parts for t in r["asked"]), key=lambda t: order.get(t, -1)),
            "not_asked": sorted((t for r in parts for t in r["not_asked"]), key=lambda t: order.get(t, -1)),
            **{k: sum(r[k] for r in parts) for k in ("tokens", "candidates", "kept", "newly_caught")},
            "killed": killed,
            "mutants": mutants,
            "mutation_score": round(killed / mutants, 3) if mutants else None,
            "by_target": dict(sorted(by_target.items(), key=lambda item: order.get(item[0], -1))),
            "stopped": dict(sorted((t, why) for r in parts for t, why in r["stopped"].items())),
        })
    return merged


def merge(run_dirs: list[Path], workspace: Path) -> tuple[Path, RunReport]:
    """A new complete run in `workspace` joining the shards; `latest` moves to it."""
    shards = [read_shard(Path(p)) for p in run_dirs]
    check_shards(shards)
    shards.sort(key=lambda s: s.record["k"])
    run_dir = new_run_dir(workspace)
    try:
        report = merge_reports(shards, run_dir.name.removesuffix(INCOMPLETE_SUFFIX))
        _join_files(shards, run_dir)
        write_reports(report, run_dir)
        meta = {"command": "merge", "src": shards[0].meta.get("src"), "model": report.model,
                "baseline": shards[0].meta.get("baseline")}
        final = finish_run(run_dir, meta)
    except BaseException as exc:
        abandon_run(run_dir, f"merge stopped: {exc}")
        raise
    return final, replace(report, run_id=final.name)


def _join_files(shards: list[ShardRun], run_dir: Path) -> None:
    first = shards[0]
    order = {t: i for i, t in enumerate(first.record["all_targets"])}
    for shard in shards:
        for folder in PER_TARGET_FOLDERS:
            _copy_regular_files(shard.path / folder, run_dir / folder)
    _copy_regular_files(first.path / "source", run_dir / "source")
    write_json(run_dir / MERGE_RECORD, {"n": first.record["n"], "shards": [
        {"k": s.record["k"], "run": s.path.name, "targets": s.record["targets"], "costs": s.record.get("costs")}
        for s in shards]})
    targets = [_read_json(s.path / "targets.json") for s in shards]
    if all(isinstance(t, dict) and isinstance(t.get("targets"), list) for t in targets):
        joined = [t for part in targets for t in part["targets"] if isinstance(t, dict)]
        write_json(run_dir / "targets.json", {**targets[0], "targets": sorted(joined, key=lambda t: order.get(t.get("id"), -1))})
    fingerprints = {}
    for shard in shards:
        part = _read_json(shard.path / "fingerprints.json")
        if isinstance(part, dict):
            fingerprints.update({k: v for k, v in part.items() if isinstance(v, str)})
    write_json(run_dir / "fingerprints.json", dict(sorted(fingerprints.items(), key=lambda kv: order.get(kv[0], -1))))
    calls = [_read_json(s.path / "model_calls.json") for s in shards]
    write_json(run_dir / "model_calls.json", [row for part in calls if isinstance(part, list) for row in part])
    candidates = [_read_json(s.path / "candidates.json") for s in shards]
    if all(isinstance(c, dict) and isinstance(c.get("candidates"), list) for c in candidates):
        write_json(run_dir / "candidates.json", {**candidates[0], "candidates": [
            row for part in candidates for row in part["candidates"]]})


def _read_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _copy_regular_files(source: Path, destination: Path) -> None:
    """Regular files only: a symlink in a downloaded shard could point anywhere on the merging machine."""
    if not source.is_dir() or source.is_symlink():
        return
    for root, dirs, names in os.walk(source):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]
        for name in names:
            path = Path(root) / name
            if not stat.S_ISREG(os.lstat(path).st_mode):
                continue
            target = destination / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
