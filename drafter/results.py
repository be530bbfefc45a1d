"""Results already known: the result cache of the workspace and the journal of a run folder (for --resume).

A unit of work is a soundness check of one candidate, or the kill matrix of one target (its sound candidates
against its mutants, forced-fail proof included). Each is stored as one JSON file named by the sha256 of what
decides it: the rendered test file's bytes, the SRC tree the run copied (the target module and everything it may
import), the mutants' bytes, the settings that shape results and the engine's own code. The same result is
written twice, atomically, as soon as its unit finishes: into the run folder's results/ (what `drafter run
--resume` reads back) and into workspace/cache/results/ (what any later run reads). Both are untrusted: an entry
that does not hold what its key promises is ignored with a warning and replaced.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

from drafter import __version__
from drafter.errors import ConfigError
from drafter.data import KILL_OUTCOMES, KillMatrix, KillResult, Mutant, Rendered, Soundness
from drafter.killmatrix import build_kill_matrix
from drafter.runfolder import INCOMPLETE_NOTE, INCOMPLETE_SUFFIX, write_json, write_json_atomic
from drafter.soundness import check_soundness

RESULTS_VERSION = 1
JOURNAL = "results"  # the run folder's own copy
# Outcomes a rerun would give again; a timeout or a crashed worker may not repeat, so it is run again.
STORED_SOUNDNESS = ("sound", "unsound")


@functools.lru_cache(maxsize=1)
def engine_version() -> str:
    """drafter's version and the sha256 of the code that decides results (drafter's modules and the wall)."""
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256(__version__.encode() + b"\0")
    for path in sorted([*root.glob("*.py"), *(root.parent / "wall").rglob("*.py")]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _digest(fields: list) -> str:
    return hashlib.sha256(json.dumps([RESULTS_VERSION, engine_version(), *fields]).encode("utf-8", "surrogatepass")).hexdigest()


class ResultStore:
    """Read from the run's journal, then the workspace cache; write to both."""

    def __init__(self, journal: Path | None, cache: Path | None, tree: str, *, seeds: int, max_examples: int,
                 budget: float):
        self.folders = [f for f in (journal, cache) if f is not None]
        self.tree = tree
        self.seeds, self.max_examples, self.budget = seeds, max_examples, budget
        self.reused = {"soundness": 0, "kill": 0}
        self.warnings: list[str] = []

    # ------------------------------------------------------------ keys

    def soundness_key(self, item: Rendered) -> str:
        return _digest(["soundness", self.tree, self.seeds, self.max_examples, self.budget, item.target,
                        item.test_name, item.source])

    def kill_key(self, target: str, sound: Sequence[tuple[Rendered, Soundness]], mutants: Sequence[Mutant]) -> str:
        candidates = sorted([r.candidate_id, r.test_name, r.source, c.examples, c.traced_examples,
                             list(c.lines) if c.lines is not None else None] for r, c in sound)
        made = sorted([m.id, m.module, m.file, m.source, m.body_only, list(m.reach)] for m in mutants)
        return _digest(["kill", self.tree, self.max_examples, target, candidates, made])

    # ------------------------------------------------------------ files

    def _read(self, kind: str, key: str, parse: Callable[[dict], object]):
        for folder in self.folders:
            path = folder / kind / key[:2] / f"{key}.json"
            try:
                entry = json.loads(path.read_text(encoding="utf-8"))
                if not isinstance(entry, dict) or entry.get("key") != key:
                    raise ValueError("its key does not match its name")
                value = parse(entry["value"])
            except FileNotFoundError:
                continue
            except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
                self.warnings.append(f"result cache entry {path} is unusable ({type(exc).__name__}: {exc}); "
                                     "ignored, the work is done again and the entry replaced")
                continue
            self.reused[kind] += 1
            return value
        return None

    def _write(self, kind: str, key: str, value) -> None:
        for folder in self.folders:
            try:
                write_json_atomic(folder / kind / key[:2] / f"{key}.json", {"key": key, "value": value})
            except (OSError, UnicodeEncodeError) as exc:
                self.warnings.append(f"result cache: cannot store under {folder} ({exc})")

    # ------------------------------------------------------------ soundness

    def soundness(self, items: Sequence[Rendered], run: Callable[[list[Rendered], Callable[[int, Soundness], None]],
                                                             list[Soundness]],
                  on_result: Callable[[Soundness], None] | None = None) -> list[Soundness]:
        """One Soundness per item, in order: known ones read (and told to `on_result` first), the others run, each
        stored and told as soon as its verdict is final."""
        known: dict[str, Soundness] = {}
        for item in items:
            found = self._read("soundness", self.soundness_key(item), lambda v, i=item: _soundness(i.candidate_id, v))
            if found is not None:
                known[item.candidate_id] = found
                if on_result:
                    on_result(found)
        missing = [i for i in items if i.candidate_id not in known]

        def finished(index: int, result: Soundness) -> None:
            if result.status in STORED_SOUNDNESS:
                self._write("soundness", self.soundness_key(missing[index]), _soundness_value(result))
            if on_result:
                on_result(result)

        for item, result in zip(missing, run(missing, finished)):
            known[item.candidate_id] = result
        return [known[i.candidate_id] for i in items]

    # ------------------------------------------------------------ kill matrix

    def kill_matrix(self, sound: Sequence[tuple[Rendered, Soundness]], mutants: Sequence[Mutant],
                    run: Callable[[list, list], KillMatrix]) -> KillMatrix:
        """The matrix target by target (each stored as it ends); a known-bad patch, which may span targets,
        runs against every candidate at the end, unstored."""
        by_target: dict[str, list] = {}
        for pair in sound:
            by_target.setdefault(pair[0].target, []).append(pair)
        parts: list[KillMatrix] = []
        for target in sorted(by_target):
            pairs = by_target[target]
            own = [m for m in mutants if m.target == target]
            key = self.kill_key(target, pairs, own)
            ids = ({r.candidate_id for r, _ in pairs}, {m.id for m in own})
            found = self._read("kill", key, lambda v: _matrix(v, *ids))
            if found is None:
                found = run(pairs, own)
                self._write("kill", key, _matrix_value(found))
            parts.append(found)
        patches = [m for m in mutants if not m.target]
        if patches:
            parts.append(run(list(sound), patches))
        return _joined(parts)

    def summary(self, checks: int, targets: int) -> str | None:
        if not any(self.reused.values()):
            return None
        return (f"result cache: {self.reused['soundness']} of {checks} soundness checks and the kill matrices of "
                f"{self.reused['kill']} of {targets} targets reused (same test files, SRC, mutants and settings)")


def stored_soundness(store: ResultStore | None, rendered: Sequence[Rendered], run_dir: Path, source_dir: Path, *,
                     jobs: int, on_result: Callable[[Soundness], None] | None = None, **options) -> list[Soundness]:
    """check_soundness through the store: each verdict stored as it is final, so a kill loses little."""
    def told(_index: int, result: Soundness) -> None:
        if on_result:
            on_result(result)

    def run(items, finished=told):
        return check_soundness(items, run_dir, source_dir, jobs=jobs, on_result=finished, **options) if items else []

    if store is None:
        return run(list(rendered))
    return store.soundness(rendered, run, on_result)


def stored_kill_matrix(store: ResultStore | None, sound, mutants, run_dir: Path, source_dir: Path,
                       on_progress: Callable[[int, int], None] | None = None, **options) -> KillMatrix:
    """build_kill_matrix through the store, target by target; progress counts pairs over the whole stage."""
    total = sum(1 for rendered, _ in sound for m in mutants if not m.target or m.target == rendered.target)
    finished = [0]  # pairs of the targets already built

    def run(pairs, muts):
        def progress(done: int, _of_this_target: int) -> None:
            if on_progress:
                on_progress(finished[0] + done, total)

        matrix = build_kill_matrix(pairs, muts, run_dir, source_dir, on_progress=progress, **options)
        finished[0] += len(matrix.results)
        return matrix

    if store is None:
        return run(list(sound), list(mutants))
    return store.kill_matrix(sound, mutants, run)


# ------------------------------------------------------------ entries: written plainly, read suspiciously


def _soundness_value(result: Soundness) -> dict:
    return {"status": result.status, "seconds": result.seconds, "detail": result.detail,
            "counterexample": result.counterexample, "lines": list(result.lines) if result.lines is not None else None,
            "traced_examples": result.traced_examples, "examples": result.examples}


def _soundness(candidate_id: str, value: dict) -> Soundness:
    _check(value["status"] in STORED_SOUNDNESS, "status")
    _check(_number(value["seconds"]) and value["seconds"] >= 0, "seconds")
    _check(isinstance(value["detail"], str) and isinstance(value["examples"], str), "detail/examples")
    _check(value["counterexample"] is None or isinstance(value["counterexample"], str), "counterexample")
    lines = value["lines"]
    _check(lines is None or (isinstance(lines, list) and all(type(n) is int for n in lines)), "lines")
    _check(type(value["traced_examples"]) is int, "traced_examples")
    return Soundness(candidate_id, value["status"], float(value["seconds"]), value["detail"], value["counterexample"],
                     tuple(lines) if lines is not None else None, value["traced_examples"], value["examples"])


def _matrix_value(matrix: KillMatrix) -> dict:
    return {"results": [[r.candidate_id, r.mutant_id, r.outcome, r.seconds, r.detail] for r in matrix.results],
            "invalid": list(matrix.invalid), "fresh_process": matrix.fresh_process, "vacuous": matrix.vacuous,
            "notes": list(matrix.notes), "seconds": matrix.seconds, "test_seconds": matrix.test_seconds,
            "timeout_seconds": matrix.timeout_seconds}


def _matrix(value: dict, candidates: set[str], mutants: set[str]) -> KillMatrix:
    """A stored matrix, only if it answers exactly every pair its key names: each non-vacuous candidate against
    each valid mutant, once."""
    invalid, vacuous, fresh = value["invalid"], value["vacuous"], value["fresh_process"]
    _check(isinstance(invalid, list) and set(invalid) <= mutants, "invalid")
    _check(isinstance(vacuous, dict) and set(vacuous) <= candidates and all(isinstance(v, str) for v in vacuous.values()),
           "vacuous")
    _check(isinstance(fresh, dict) and set(fresh) <= mutants and all(isinstance(v, str) for v in fresh.values()),
           "fresh_process")
    _check(isinstance(value["notes"], list) and all(isinstance(n, str) for n in value["notes"]), "notes")
    results = []
    for row in value["results"]:
        candidate, mutant, outcome, seconds, detail = row
        _check(outcome in KILL_OUTCOMES and _number(seconds) and isinstance(detail, str), "a result")
        results.append(KillResult(candidate, mutant, outcome, float(seconds), detail))
    expected = {(c, m) for c in candidates - set(vacuous) for m in mutants - set(invalid)}
    pairs = [(r.candidate_id, r.mutant_id) for r in results]
    _check(len(pairs) == len(set(pairs)) and set(pairs) == expected, "pair set (not exactly the pairs its key names)")
    timeouts = value.get("timeout_seconds", 0.0)  # absent from entries stored before it was measured
    _check(_number(value["seconds"]) and _number(value["test_seconds"]) and _number(timeouts), "seconds")
    return KillMatrix(tuple(results), tuple(invalid), dict(fresh), float(value["seconds"]),
                      float(value["test_seconds"]), tuple(value["notes"]), dict(vacuous),
                      timeout_seconds=float(timeouts))


def _joined(parts: list[KillMatrix]) -> KillMatrix:
    return KillMatrix(
        results=tuple(r for p in parts for r in p.results),
        invalid=tuple(dict.fromkeys(i for p in parts for i in p.invalid)),
        fresh_process={k: v for p in parts for k, v in p.fresh_process.items()},
        seconds=sum(p.seconds for p in parts),
        test_seconds=sum(p.test_seconds for p in parts),
        timeout_seconds=sum(p.timeout_seconds for p in parts),
        notes=tuple(dict.fromkeys(n for p in parts for n in p.notes)),
        vacuous={k: v for p in parts for k, v in p.vacuous.items()},
    )


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value


def _check(condition: bool, what: str) -> None:
    if not condition:
        raise ValueError(f"bad {what}")


# ------------------------------------------------------------ resume: an interrupted run folder, finished in place

START_RECORD = "started.json"
# Settings that shape a run's results; a resume must be given the same (jobs, timeouts and the cache may change).
RESUME_SETTINGS = ("model", "select", "corpus", "prompts", "known_bad", "changed_since", "max_examples", "seeds",
                   "budget", "rounds", "max_calls", "max_tokens", "temperature", "base_url")


def start_record(src: Path, settings, shard) -> dict:
    values = {name: getattr(settings, name) for name in RESUME_SETTINGS}
    return {"src": str(src), "settings": json.loads(json.dumps(values, default=str)),
            "shard": str(shard) if shard else None, "pid": os.getpid()}


def reopen(run_dir: Path, record: dict) -> Path:
    """The incomplete run folder to finish, after checking it is one, that nothing runs in it, and that it was
    started with this SRC and these settings. Everything but its journal is made again."""
    run_dir = Path(run_dir).resolve()
    if not run_dir.is_dir():
        raise ConfigError(f"--resume {run_dir}: no such run folder")
    if not run_dir.name.endswith(INCOMPLETE_SUFFIX) or not (run_dir / INCOMPLETE_NOTE).is_file():
        raise ConfigError(f"--resume {run_dir}: not an incomplete run (runs/<id>{INCOMPLETE_SUFFIX} with its note)")
    try:
        started = json.loads((run_dir / START_RECORD).read_text(encoding="utf-8"))
        if not isinstance(started, dict):
            raise ValueError("not an object")
    except (OSError, ValueError) as exc:
        raise ConfigError(f"--resume {run_dir}: {START_RECORD} unreadable ({exc}); start a new run") from None
    for key in ("src", "shard"):
        if started.get(key) != record[key]:
            raise ConfigError(f"--resume {run_dir}: it was started with {key} {started.get(key)!r}, not {record[key]!r}")
    before = started.get("settings") if isinstance(started.get("settings"), dict) else {}
    for name in RESUME_SETTINGS:
        if before.get(name) != record["settings"][name]:
            option = "--" + name.replace("_", "-")
            raise ConfigError(f"--resume {run_dir}: it was started with {option} {before.get(name)!r}, not "
                              f"{record['settings'][name]!r}; give the same options")
    pid = started.get("pid")
    if type(pid) is int and pid != os.getpid() and _drafter_alive(pid):
        raise ConfigError(f"--resume {run_dir}: drafter (pid {pid}) is still running it")
    for child in run_dir.iterdir():
        if child.name in (JOURNAL, INCOMPLETE_NOTE):
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
    write_json(run_dir / START_RECORD, record)
    with (run_dir / INCOMPLETE_NOTE).open("a", encoding="utf-8") as note:
        note.write(f"Resumed by pid {os.getpid()}.\n")
    return run_dir


def _drafter_alive(pid: int) -> bool:
    try:
        return "drafter" in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False
