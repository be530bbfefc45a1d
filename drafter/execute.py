"""The execution engine: run rendered Hypothesis tests in worker processes, with budgets.

One run = one rendered test function, one fixed seed, overridden settings (database off, deadline off,
max_examples, shrinking on or off; without shrinking Hypothesis stops at the first failing example).
Runs travel in batches; a batch may carry a mutant, which the worker switches into its live target
module once for the whole batch (sabotage.switch), or runs in a fresh interpreter when that cannot be
done safely. Workers are forked where possible (spawned elsewhere), import the target modules once,
and are replaced when they hang past their budget or die.
"""

from __future__ import annotations

import importlib
import json
import multiprocessing
import multiprocessing.connection
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from drafter import sandbox
from drafter.onerun import (RunOutcome, RunSpec, boxed, load_test, pin_hypothesis_constants, run_test,
                            warm_unicode_tables)

HARD_GRACE = 3.0  # seconds past a run's budget before its worker is killed (the soft timer fires first)
FRESH_STARTUP = 30.0  # allowance for a fresh interpreter to start and import Hypothesis


@dataclass(frozen=True)
class MutantSpec:
    """What a worker needs to put a mutant in place (forced=True: the forced-fail stand-in)."""

    id: str
    module: str
    qualname: str  # "" for a patch that is not about one function
    file: str  # relative to the source folder
    source: str
    forced: bool = False
    body_only: bool = False  # the generator proved only the target's body changed
    fresh: str = ""  # when set, why this mutant must run in a fresh interpreter without trying the switch


@dataclass(frozen=True)
class Batch:
    runs: tuple[RunSpec, ...]
    mutant: MutantSpec | None = None
    stop_after_timeout: bool = False  # skip the rest once one run is over budget


@dataclass(frozen=True)
class Event:
    """What the pool reports: a run's outcome, or a fact about a whole batch."""

    kind: str  # "result" | "invalid" | "fresh"
    batch: int
    run: int = -1
    outcome: RunOutcome | None = None
    reason: str = ""


# ---------------------------------------------------------------- the worker side


# What a worker itself runs on; a module of SRC by one of these names is never imported in its place.
RUNTIME_PACKAGES = frozenset({"hypothesis", "drafter", "sabotage", "readback", "wall"})


def _prepare_path(source_dir: str) -> None:
    """Import target code from source_dir only, and never write bytecode next to it."""
    sys.dont_write_bytecode = True
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    import hypothesis  # noqa: F401 - the real one, before SRC goes first on the path (it may hold a hypothesis.py)

    sys.path.insert(0, source_dir)
    importlib.invalidate_caches()
    tops = {p.stem for p in Path(source_dir).iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()}
    tops -= RUNTIME_PACKAGES
    root = str(Path(source_dir).resolve()) + os.sep
    for name in list(sys.modules):  # a forked worker may have inherited same-named modules from elsewhere
        if name.split(".")[0] in tops:
            file = getattr(sys.modules[name], "__file__", None) or ""
            if not os.path.abspath(file).startswith(root):
                del sys.modules[name]


def start_worker(source_dir: str) -> None:
    """Everything a worker process does before it runs any candidate or target code (pool and fresh alike)."""
    _prepare_path(source_dir)
    pin_hypothesis_constants()
    run_folder = Path(source_dir).parent
    sandbox.trust(_run_fresh)
    sandbox.enter_box(run_folder / "scratch", code_roots=(run_folder,))


def _worker_main(conn: multiprocessing.connection.Connection, source_dir: str) -> None:
    _output_to_log(Path(source_dir).parent / "logs")
    start_worker(source_dir)
    conn.send(("ready",))
    while True:
        try:
            message = conn.recv()
        except EOFError:
            return
        if message is None:
            return
        for reply in _run_batch(message, source_dir):
            conn.send(reply)
        conn.send(("done",))


def _output_to_log(folder: Path) -> None:
    """What candidates and targets print, and any traceback of the worker, goes to the run's log, not the console."""
    folder.mkdir(parents=True, exist_ok=True)
    log = os.open(folder / f"worker-{os.getpid()}.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)


def _run_batch(batch: Batch, source_dir: str) -> Iterator[tuple]:
    from sabotage import switch

    if batch.mutant is None:
        yield from _run_runs(batch, source_dir)
        return
    mutant = batch.mutant
    if mutant.fresh:
        yield ("fresh", mutant.fresh)
        yield from _run_fresh(batch, source_dir)
        return
    try:
        module = importlib.import_module(mutant.module)
        if not mutant.qualname:
            raise switch.SwitchUnsafe("the patch is not about one function")
        prepared = (switch.prepare_forced_fail(module, mutant.qualname) if mutant.forced
                    else switch.prepare_switch(module, mutant.qualname, mutant.source, mutant.body_only))
    except switch.MutantInvalid as exc:
        yield ("invalid", str(exc))
        return
    except Exception as exc:  # noqa: BLE001 - SwitchUnsafe, or e.g. the original module does not import here
        unsafe = isinstance(exc, switch.SwitchUnsafe)
        yield ("fresh", str(exc) if unsafe else f"cannot switch in-process: {type(exc).__name__}: {exc}")
        if not mutant.forced:
            yield from _run_fresh(batch, source_dir)
        return
    if not mutant.forced:
        with switch.switched_in(prepared):
            yield from _run_runs(batch, source_dir)
        return
    for kind, index, outcome in _forced_runs(batch, prepared, source_dir):
        yield kind, index, outcome


def _forced_runs(batch: Batch, prepared, source_dir: str) -> Iterator[tuple]:
    """The forced-fail proof: each run with the raising stand-in; one that passes is repeated on clean code
    counting calls of the real target, which tells "never calls it" from "the switch did not take effect"."""
    import sys as _sys

    from sabotage import switch

    for index, spec in enumerate(batch.runs):
        before = switch.PROBE_CALLS[0]
        with switch.switched_in(prepared):
            _, _, outcome = next(_run_runs(replace(batch, runs=(spec,)), source_dir))
        if outcome.status == "passed":
            hook, counter = switch.count_calls(prepared.live.__code__)
            previous = _sys.getprofile()
            _sys.setprofile(hook)
            try:
                next(_run_runs(replace(batch, runs=(spec,)), source_dir))
            finally:
                _sys.setprofile(previous)
            outcome = replace(outcome, probe_calls=switch.PROBE_CALLS[0] - before, clean_calls=counter[0])
        yield "result", index, outcome


def _run_runs(batch: Batch, source_dir: str) -> Iterator[tuple]:
    for index, spec in enumerate(batch.runs):
        sandbox.violations.clear()
        try:
            test = load_test(spec.test_file, spec.test_name)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - a test file that cannot load is an outcome
            # A strategy expression runs when the file loads: what the box refused there makes it "sandbox".
            outcome = boxed(RunOutcome("error", 0.0, type(exc).__name__,
                                       f"cannot load {Path(spec.test_file).name}: {type(exc).__name__}: {exc}"))
        else:
            outcome = run_test(test, spec, source_dir)
        yield ("result", index, outcome)
        if outcome.status == "timeout" and batch.stop_after_timeout:
            return


def _run_fresh(batch: Batch, source_dir: str) -> Iterator[tuple]:
    """Run the batch in new interpreters over a temporary copy of the source with the mutant written in.

    An interpreter that hangs past its limit or dies costs the run it was on (timeout / died); the runs
    after it go to a new interpreter, as the pool does with a lost worker.
    """
    mutant = batch.mutant
    assert mutant is not None
    with tempfile.TemporaryDirectory(prefix="drafter-fresh-") as tmp:
        copy = Path(tmp) / "source"
        shutil.copytree(source_dir, copy, ignore=shutil.ignore_patterns("__pycache__"))
        (copy / mutant.file).write_text(mutant.source, encoding="utf-8")
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1",
                   PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parent.parent),
                                               os.environ.get("PYTHONPATH", "")]))
        first = 0
        while first < len(batch.runs):
            runs = batch.runs[first:]
            request = {"source_dir": str(copy), "module": mutant.module, "runs": [asdict(r) for r in runs]}
            limit = FRESH_STARTUP + sum(r.budget + HARD_GRACE for r in runs)
            try:
                done = subprocess.run([sys.executable, "-m", "drafter.execute"], input=json.dumps(request),
                                      capture_output=True, text=True, env=env, timeout=limit, cwd=tmp)
                output, lost = done.stdout, RunOutcome("died", 0.0, error=(
                    f"the fresh interpreter died (exit code {done.returncode}): {done.stderr.strip()[-300:]}"))
            except subprocess.TimeoutExpired as exc:  # its output arrives as bytes even with text=True
                output = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
                lost = None
            answered = 0
            for line in output.splitlines():
                if line.startswith("{"):
                    data = json.loads(line)
                    if "invalid" in data:
                        yield ("invalid", data["invalid"])
                        return
                    yield ("result", first + answered, RunOutcome(**data["outcome"]))
                    answered += 1
            if answered == len(runs):
                return
            budget = runs[answered].budget
            yield ("result", first + answered, lost or RunOutcome(
                "timeout", budget, error=f"the fresh interpreter was killed after {limit:.1f}s"))
            first += answered + 1


def _fresh_main() -> None:
    """Entry of the fresh interpreter: JSON request on stdin, one JSON line per outcome on stdout."""
    request = json.loads(sys.stdin.read())
    start_worker(request["source_dir"])
    try:
        importlib.import_module(request["module"])
    except BaseException as exc:  # noqa: BLE001 - a mutant that does not import is invalid
        print(json.dumps({"invalid": f"mutated {request['module']} does not import: {type(exc).__name__}: {exc}"}))
        return
    batch = Batch(tuple(RunSpec(**r) for r in request["runs"]))
    for _, _, outcome in _run_runs(batch, request["source_dir"]):
        print(json.dumps({"outcome": asdict(outcome)}), flush=True)


# ---------------------------------------------------------------- the parent side


def default_jobs() -> int:
    """The cores this process may run on (its CPU affinity, which a container or taskset narrows), else the count."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


@dataclass
class _Slot:
    process: multiprocessing.process.BaseProcess
    conn: multiprocessing.connection.Connection
    ready: bool = False
    batch: int = -1  # index into the batches being run, -1 when idle
    offset: int = 0  # index of the batch's first run sent to this worker
    next_run: int = 0  # runs of the current assignment already answered
    deadline: float = 0.0
    fresh: bool = False  # the current batch runs in fresh interpreters, each needing time to start


class WorkerPool:
    """`jobs` worker processes running batches; use as a context manager."""

    def __init__(self, source_dir: str | Path, jobs: int | None = None) -> None:
        self.source_dir = str(Path(source_dir).resolve())
        self.jobs = max(1, jobs or default_jobs())
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        self.context = multiprocessing.get_context(method)
        self.slots: list[_Slot] = []

    def __enter__(self) -> WorkerPool:
        warm_unicode_tables()  # forked workers inherit them instead of building them each
        self.slots = [self._start() for _ in range(self.jobs)]
        return self

    def __exit__(self, *exc: object) -> None:
        for slot in self.slots:
            try:
                slot.conn.send(None)
            except (OSError, ValueError):
                pass
        for slot in self.slots:
            slot.process.join(timeout=2)
            if slot.process.is_alive():
                slot.process.kill()
                slot.process.join()
            slot.conn.close()
        self.slots = []

    def _start(self) -> _Slot:
        parent_end, child_end = self.context.Pipe()
        process = self.context.Process(target=_worker_main, args=(child_end, self.source_dir), daemon=True)
        process.start()
        child_end.close()
        return _Slot(process, parent_end)

    def _replace(self, slot: _Slot) -> None:
        slot.process.kill()
        slot.process.join()
        slot.conn.close()
        self.slots[self.slots.index(slot)] = self._start()

    def run(self, batches: Sequence[Batch]) -> Iterator[Event]:
        """Yield events as they arrive; every run of every batch gets exactly one result or its batch an
        "invalid" event (a batch that stops after a timeout leaves the rest of its runs without results)."""
        pending: deque[tuple[int, int]] = deque((i, 0) for i, b in enumerate(batches) if b.runs)
        while pending or any(s.batch >= 0 for s in self.slots):
            for slot in self.slots:
                if slot.ready and slot.batch < 0 and pending:
                    index, offset = pending.popleft()
                    batch = batches[index]
                    slot.batch, slot.offset, slot.next_run, slot.fresh = index, offset, 0, False
                    slot.conn.send(replace(batch, runs=batch.runs[offset:]))
                    slot.deadline = time.monotonic() + batch.runs[offset].budget + HARD_GRACE
            waiting = {slot.conn: slot for slot in self.slots if slot.batch >= 0 or not slot.ready}
            busy = [s for s in self.slots if s.batch >= 0]
            timeout = max(0.0, min(s.deadline for s in busy) - time.monotonic()) if busy else 1.0
            for conn in multiprocessing.connection.wait(list(waiting), timeout=timeout):
                slot = waiting[conn]
                try:
                    message = conn.recv()
                except (EOFError, OSError):
                    yield from self._lost(slot, batches, pending, "died")
                    continue
                yield from self._receive(slot, message, batches)
            now = time.monotonic()
            for slot in list(self.slots):
                if slot.batch >= 0 and now > slot.deadline:
                    yield from self._lost(slot, batches, pending, "timeout")

    def _receive(self, slot: _Slot, message: tuple, batches: Sequence[Batch]) -> Iterator[Event]:
        kind = message[0]
        if kind == "ready":
            slot.ready = True
            return
        batch = batches[slot.batch]
        if kind == "done":
            slot.batch = -1
        elif kind == "invalid":
            yield Event("invalid", slot.batch, reason=message[1])
        elif kind == "fresh":
            slot.fresh = True
            remaining = batch.runs[slot.offset:]
            slot.deadline = time.monotonic() + FRESH_STARTUP + 2 * sum(r.budget + HARD_GRACE for r in remaining)
            yield Event("fresh", slot.batch, reason=message[1])
        elif kind == "result":
            run = slot.offset + message[1]
            slot.next_run = message[1] + 1
            yield Event("result", slot.batch, run, message[2])
            following = slot.offset + slot.next_run
            if following < len(batch.runs):
                slack = batch.runs[following].budget + HARD_GRACE + (FRESH_STARTUP if slot.fresh else 0.0)
                slot.deadline = max(slot.deadline, time.monotonic() + slack)

    def _lost(self, slot: _Slot, batches: Sequence[Batch], pending: deque, why: str) -> Iterator[Event]:
        """The worker hung past its budget or died: its current run gets that outcome, the rest is requeued."""
        index, run = slot.batch, slot.offset + slot.next_run
        exitcode = slot.process.exitcode
        self._replace(slot)
        if index < 0:  # died while idle or starting
            return
        batch = batches[index]
        if why == "timeout":
            outcome = RunOutcome("timeout", batch.runs[run].budget, error=f"killed after {batch.runs[run].budget:.1f}s")
        else:
            outcome = RunOutcome("died", 0.0, error=f"the worker process died (exit code {exitcode})")
        yield Event("result", index, run, outcome)
        if run + 1 < len(batch.runs) and not (why == "timeout" and batch.stop_after_timeout):
            pending.appendleft((index, run + 1))


if __name__ == "__main__":
    _fresh_main()
