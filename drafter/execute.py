"""The execution engine: run rendered Hypothesis tests behind the wall, one fresh process per candidate's work.

One run = one rendered test function, one fixed seed, overridden settings (database off, deadline off,
max_examples, shrinking on or off; without shrinking Hypothesis stops at the first failing example), a budget
in CPU seconds. Runs travel in batches, each the work of ONE candidate (its seeds, its shrink, its mutants); a
run may carry a mutant, switched into the live target module for that run (sabotage.switch), or put in a copy
of the source when that cannot be done safely. Warm workers (drafter.child) fork a child per batch; what
crosses back is length-prefixed JSON that this side checks field by field, never pickle.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import select
import signal
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from drafter import child, sandbox
from drafter.onerun import RUN_STATUSES, MutantSpec, RunOutcome, RunSpec, backstop, warm_unicode_tables
from wall import frames

WORKER_STARTUP = 120.0  # wall seconds for a worker to import Hypothesis and the targets (a backstop, not a budget)
MAX_TEXT = 20_000  # characters of one text field of an outcome; longer is cut
MAX_EXAMPLES_TEXT = 8 * 2**20
KNOWN_LAYERS = ("netns", "seccomp")  # and "landlock ABI N"


@dataclass(frozen=True)
class Batch:
    """The work of one candidate, run in one fresh child: runs in order, each with its mutant (or none)."""

    runs: tuple[RunSpec, ...]
    mutants: tuple[MutantSpec | None, ...] = ()  # one per run, or empty: all on clean code
    stop_after_timeout: bool = False  # skip the rest once one run is over budget


@dataclass(frozen=True)
class Event:
    """What the pool reports: a run's outcome, or a fact about one run's mutant."""

    kind: str  # "result" | "invalid" (the mutant does not compile or import) | "fresh" (it needs a copy)
    batch: int
    run: int = -1
    outcome: RunOutcome | None = None
    reason: str = ""


def start_worker(source_dir: str) -> None:
    """Box this whole process (an interpreter of its own, e.g. the import check) behind the wall."""
    child.prepare_path(source_dir)
    run_folder = Path(source_dir).parent
    sandbox.enter_box(run_folder / "scratch", wall_roots=child.read_roots(str(run_folder)))


# ---------------------------------------------------------------- the parent side


def default_jobs() -> int:
    """The cores this process may run on (its CPU affinity, which a container or taskset narrows), else the count."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class ProtocolError(ValueError):
    """A child said something that is not a well-formed answer to what it was asked."""


def outcome_from(data: object) -> RunOutcome:
    """A RunOutcome from a child's JSON, every field checked for type and bounds; ProtocolError otherwise."""
    if not isinstance(data, dict) or set(data) - {f.name for f in fields(RunOutcome)}:
        raise ProtocolError("an outcome that is not an object of RunOutcome's fields")
    values = {}
    for field in fields(RunOutcome):
        if field.name not in data:
            continue
        value = data[field.name]
        if field.name == "status":
            if value not in RUN_STATUSES:
                raise ProtocolError(f"unknown status {str(value)[:40]!r}")
        elif field.name in ("seconds", "body_seconds", "stuck_seconds"):
            if type(value) not in (int, float) or not math.isfinite(value) or value < -1:
                raise ProtocolError(f"{field.name} is not a finite number")
            value = float(value)
        elif field.name in ("in_source", "in_target"):
            if type(value) is not bool:
                raise ProtocolError(f"{field.name} is not a boolean")
        elif field.name in ("probe_calls", "clean_calls"):
            if type(value) is not int or not -1 <= value < 2**53:
                raise ProtocolError(f"{field.name} is not a count")
        elif field.name == "lines":
            if value is not None:
                if not isinstance(value, list) or len(value) > 10**6 or any(
                        type(n) is not int or not 0 < n < 10**9 for n in value):
                    raise ProtocolError("lines is not a list of line numbers")
                value = tuple(value)
        elif field.name == "counterexample" and value is None:
            pass
        else:  # exc_type, error, counterexample, examples
            limit = MAX_EXAMPLES_TEXT if field.name == "examples" else MAX_TEXT
            if not isinstance(value, str) or len(value) > limit:
                raise ProtocolError(f"{field.name} is not text of at most {limit:,} characters")
        values[field.name] = value
    if "status" not in values or "seconds" not in values:
        raise ProtocolError("an outcome without status or seconds")
    return RunOutcome(**values)


def layers_from(data: object) -> tuple[str, ...]:
    if not isinstance(data, list) or not all(
            isinstance(x, str) and (x in KNOWN_LAYERS or x.startswith("landlock ABI ")) and len(x) < 20 for x in data):
        raise ProtocolError("a wall that is not a list of known layers")
    return tuple(data)


@dataclass
class _Slot:
    process: multiprocessing.process.BaseProcess
    requests: int  # our end: frames to the worker
    results: int  # our end: frames from the worker (its own, and its child's relayed)
    ready: bool = False
    batch: int = -1  # index into the batches being run, -1 when idle
    offset: int = 0  # index of the batch's first run sent to the current child
    next_run: int = 0  # runs of the current child already answered
    deadline: float = 0.0
    broken: str = ""  # why the current child's word is no longer taken
    stopped: bool = False  # the current child stopped its batch after a timeout, as asked


class WorkerPool:
    """`jobs` warm workers, each running one batch at a time in a fresh child; use as a context manager.

    `modules`: target modules the workers import once, so that children inherit them. `wall` afterwards: the
    layers the children stood behind (empty: no kernel wall on this platform, only the audit hook)."""

    def __init__(self, source_dir: str | Path, jobs: int | None = None, modules: Sequence[str] = ()) -> None:
        self.source_dir = str(Path(source_dir).resolve())
        self.jobs = max(1, jobs or default_jobs())
        self.modules = tuple(dict.fromkeys(modules))
        self.context = multiprocessing.get_context("fork")
        self.slots: list[_Slot] = []
        self.wall: tuple[str, ...] | None = None  # None until a child has reported
        self.children = 0
        self.child_cpu = 0.0  # CPU seconds of all children, from the kernel's accounting
        self.child_system_cpu = 0.0  # of which in the kernel (page copies after fork among them)
        self._ended: deque[int] = deque()  # batches whose last event is out, not yet followed up

    def __enter__(self) -> WorkerPool:
        warm_unicode_tables()  # forked workers inherit them instead of building them each
        self.slots = [self._start() for _ in range(self.jobs)]
        return self

    def __exit__(self, *exc: object) -> None:
        for slot in self.slots:
            self._stop(slot)
        self.slots = []

    def _start(self) -> _Slot:
        to_worker, requests = os.pipe()
        results, from_worker = os.pipe()
        process = self.context.Process(target=child.worker_main, daemon=True,
                                       args=(to_worker, from_worker, self.source_dir, self.modules))
        process.start()
        os.close(to_worker)
        os.close(from_worker)
        return _Slot(process, requests, results, deadline=time.monotonic() + WORKER_STARTUP)

    def _stop(self, slot: _Slot) -> None:
        try:
            os.close(slot.requests)
        except OSError:
            pass  # the worker reads the end of its stream and leaves
        slot.process.join(timeout=2)
        if slot.process.is_alive():
            slot.process.kill()  # its child dies with it (PR_SET_PDEATHSIG)
            slot.process.join()
        try:
            os.close(slot.results)
        except OSError:
            pass

    def _replace(self, slot: _Slot) -> None:
        slot.process.kill()
        self._stop(slot)
        self.slots[self.slots.index(slot)] = self._start()

    def run(self, batches: Sequence[Batch], follow: Callable[[int], Sequence[Batch]] | None = None
            ) -> Iterator[Event]:
        """Yield events as they arrive; every run of every batch gets exactly one event (a batch that stops after
        a timeout leaves the rest of its runs without one).

        `follow(index)` is called once a batch's last event is out; the batches it returns join this run (their
        indices continue after the last) ahead of the batches not yet started, so a candidate's next phase starts
        at once and no worker waits for the slowest batch of a phase."""
        batches = list(batches)
        pending: deque[tuple[int, int]] = deque((i, 0) for i, b in enumerate(batches) if b.runs)
        self._ended.clear()
        while True:
            self._follow(batches, pending, follow)
            if not pending and all(s.batch < 0 for s in self.slots):
                return  # (looping on for the follow-up alone would select() on no worker for a second)
            for slot in self.slots:
                if slot.ready and slot.batch < 0 and pending:
                    self._send(slot, batches, *pending.popleft())
            waiting = {slot.results: slot for slot in self.slots if slot.batch >= 0 or not slot.ready}
            timeout = max(0.0, min(s.deadline for s in waiting.values()) - time.monotonic()) if waiting else 1.0
            for fd in select.select(list(waiting), [], [], timeout)[0]:
                slot = waiting[fd]
                try:
                    payload = frames.read_raw(fd)
                except (frames.FrameError, OSError):
                    payload = None
                if payload is None:  # the worker itself died
                    yield from self._lost(slot, batches, pending, {"signal": 0, "code": -1, "why": "worker died"})
                    continue
                yield from self._receive(slot, payload, batches, pending)
            now = time.monotonic()
            for slot in list(self.slots):
                if now > slot.deadline and (slot.batch >= 0 or not slot.ready):
                    yield from self._lost(slot, batches, pending, {"signal": 0, "code": -1, "why": "backstop"})

    def _follow(self, batches: list[Batch], pending: deque, follow: Callable[[int], Sequence[Batch]] | None) -> None:
        while self._ended:
            index = self._ended.popleft()
            if follow is None:
                continue
            for batch in reversed(follow(index)):
                batches.append(batch)
                if batch.runs:
                    pending.appendleft((len(batches) - 1, 0))
                else:
                    self._ended.append(len(batches) - 1)

    def _send(self, slot: _Slot, batches: Sequence[Batch], index: int, offset: int) -> None:
        batch = batches[index]
        runs = batch.runs[offset:]
        limit = sum(backstop(r.budget + child.HARD_GRACE) for r in runs) + backstop(child.CHILD_STARTUP_CPU)
        request = {"runs": [asdict(r) for r in runs],
                   "mutants": [None if m is None else asdict(m) for m in batch.mutants[offset:]],
                   "stop_after_timeout": batch.stop_after_timeout, "backstop": limit}
        slot.batch, slot.offset, slot.next_run, slot.broken, slot.stopped = index, offset, 0, "", False
        slot.deadline = time.monotonic() + limit + 30.0
        frames.write(slot.requests, request)

    def _receive(self, slot: _Slot, payload: bytes, batches: Sequence[Batch], pending: deque) -> Iterator[Event]:
        tag, body = payload[:1], payload[1:]
        try:
            message = frames.decode(body)
        except frames.FrameError as exc:
            message = {"kind": f"unreadable: {exc}"}
        if tag == child.WORKER_TAG:
            if message.get("kind") == "ready":
                slot.ready = True
                slot.deadline = 0.0
            elif message.get("kind") == "exit" and slot.batch >= 0:
                self.children += 1
                self.child_cpu += float(message.get("cpu", 0.0))
                self.child_system_cpu += float(message.get("system_cpu", 0.0))
                yield from self._child_ended(slot, message, batches, pending)
            return
        if slot.batch < 0 or slot.broken:
            return
        try:
            yield from self._child_said(slot, message, batches[slot.batch])
        except ProtocolError as exc:
            slot.broken = str(exc)

    def _child_said(self, slot: _Slot, message: object, batch: Batch) -> Iterator[Event]:
        if not isinstance(message, dict):
            raise ProtocolError("a frame that is not an object")
        kind = message.get("kind")
        if kind == "walled":
            layers = layers_from(message.get("layers"))
            self.wall = layers if self.wall is None else tuple(x for x in self.wall if x in layers)
            return
        run = message.get("run")
        if kind not in ("result", "invalid", "fresh") or type(run) is not int or run != slot.next_run or (
                slot.offset + run >= len(batch.runs)):
            raise ProtocolError(f"an answer out of turn ({str(kind)[:20]}, run {str(run)[:10]})")
        slot.next_run += 1
        if kind == "result":
            outcome = outcome_from(message.get("outcome"))
            slot.stopped = outcome.status == "timeout" and batch.stop_after_timeout
            yield Event("result", slot.batch, slot.offset + run, outcome)
            return
        reason = message.get("reason")
        if not isinstance(reason, str) or not batch.mutants or batch.mutants[slot.offset + run] is None:
            raise ProtocolError(f"{kind} without a reason or a mutant")
        yield Event(kind, slot.batch, slot.offset + run, reason=reason[:MAX_TEXT])

    def _child_ended(self, slot: _Slot, message: dict, batches: Sequence[Batch], pending: deque) -> Iterator[Event]:
        batch = batches[slot.batch]
        if not slot.broken and (slot.stopped or slot.offset + slot.next_run >= len(batch.runs)):
            self._ended.append(slot.batch)
            slot.batch = -1
            return
        yield from self._lost(slot, batches, pending, message)

    def _lost(self, slot: _Slot, batches: Sequence[Batch], pending: deque, ended: dict) -> Iterator[Event]:
        """The child hung past the backstop, ran out of CPU, died or lied (or its worker died): the run it was on
        gets that outcome, the rest is requeued in a fresh child."""
        index, run, broken = slot.batch, slot.offset + slot.next_run, slot.broken
        slot.batch = -1
        if ended.get("why") in ("worker died", "backstop"):
            self._replace(slot)
        if index < 0:  # died while idle or starting
            return
        batch = batches[index]
        run = min(run, len(batch.runs) - 1)
        budget = batch.runs[run].budget
        signal_number, why = ended.get("signal", 0), str(ended.get("why", ""))
        out_of_cpu = signal_number == signal.SIGXCPU or (
            signal_number == signal.SIGKILL and float(ended.get("cpu", 0.0)) >= budget)
        if broken:
            outcome = RunOutcome("died", 0.0, error=f"the child broke the protocol: {broken}")
        elif why in ("backstop", "cpu") or out_of_cpu:
            what = "the wall-clock backstop" if why == "backstop" else "its CPU limit"
            outcome = RunOutcome("timeout", budget, error=f"over the budget of {budget:.1f} CPU s (ended by {what})")
        else:
            cause = f"killed by signal {signal_number}" if signal_number else f"exit code {ended.get('code')}"
            outcome = RunOutcome("died", 0.0, error=f"the child process died ({cause}{': ' + why if why else ''})")
        yield Event("result", index, run, outcome)
        if run + 1 < len(batch.runs) and not (outcome.status == "timeout" and batch.stop_after_timeout):
            pending.appendleft((index, run + 1))
        else:
            self._ended.append(index)
