"""One run of one rendered Hypothesis test, in this process: load it, pin its settings and seed, run it under a
budget, and class what happened (passed, failed, error, flaky, timeout, sandbox)."""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import signal
import sys
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from drafter import sandbox
from drafter.tracing import BodyTimer, ExampleRecorder, LineRecorder, decoded, installed

RUN_STATUSES = ("passed", "failed", "error", "flaky", "timeout", "died", "sandbox")


@dataclass(frozen=True)
class RunSpec:
    """One run of one test function."""

    test_file: str  # absolute path of the rendered test file
    test_name: str
    seed: int
    max_examples: int
    shrink: bool
    budget: float  # CPU seconds of the process running it
    target: str = ""  # qualname of the function under test: an exception out of it is the target crashing
    trace: str = ""  # "module:qualname" whose executed lines the run records (RunOutcome.lines)
    time_body: bool = False  # measure the time inside the test body itself (for benches)
    record: bool = False  # keep the inputs of every example for a replay (RunOutcome.examples)
    replay: str = ""  # a recorded run of the same seed and max_examples: call the body with its inputs instead
    hang_cut: float = 0.0  # CPU seconds one example may use before the run ends over budget (0: only the budget)


@dataclass(frozen=True)
class MutantSpec:
    """What a child needs to put a mutant in place (forced=True: the forced-fail stand-in)."""

    id: str
    module: str
    qualname: str  # "" for a patch that is not about one function
    file: str  # relative to the source folder
    source: str
    forced: bool = False
    body_only: bool = False  # the generator proved only the target's body changed
    fresh: str = ""  # when set, why this mutant must run in a copy of the source without trying the switch


@dataclass(frozen=True)
class RunOutcome:
    status: str  # one of RUN_STATUSES
    seconds: float  # CPU time inside the Hypothesis run (this process's, all its threads)
    exc_type: str = ""
    error: str = ""
    counterexample: str | None = None  # Hypothesis's note naming the failing example
    in_source: bool = False  # the exception passed through code of the source folder
    in_target: bool = False  # the exception came out of the function under test (RunSpec.target)
    # Forced-fail runs that passed: how often the stand-in was entered, and how often the clean target was
    # called when the same run was repeated on clean code (-1: not measured).
    probe_calls: int = -1
    clean_calls: int = -1
    lines: tuple[int, ...] | None = None  # with RunSpec.trace: lines of the traced function run (None: unknown)
    body_seconds: float = -1.0  # with RunSpec.time_body: time inside the test body, summed over examples
    examples: str = ""  # with RunSpec.record, a passing run whose inputs a replay may reuse ("" when it may not)
    # A timeout: CPU seconds the example running when the budget ran out had used by then (0: between examples,
    # -1: unknown). Most of the budget in one example is a hang; little is a slow run near the budget's edge.
    stuck_seconds: float = -1.0


class _OverBudget(BaseException):
    """Raised by the soft timer; a BaseException so Hypothesis does not treat it as a test failure."""



def load_test(test_file: str | Path, test_name: str) -> Callable:
    """Import a rendered test file under a private module name and return its test function."""
    path = Path(test_file)
    name = "_drafter_test_" + hashlib.sha1(str(path).encode()).hexdigest()[:16]
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
    test = getattr(module, test_name, None)
    if test is None or not hasattr(test, "hypothesis"):
        raise NameError(f"{path.name} has no Hypothesis test named {test_name}")
    return test


def configure(test: Callable, *, seed: int, max_examples: int, shrink: bool) -> Callable:
    """Fix the seed and override the test's settings in place; returns the same test.

    The seed goes through the public ``hypothesis.seed``. Settings cannot be applied twice with
    ``@settings``, so the overriding settings object (built on the test's own as parent) is put where
    ``@settings`` and ``hypothesis.seed`` themselves put it.
    """
    from hypothesis import Phase, settings
    from hypothesis import seed as hypothesis_seed

    pin_hypothesis_constants()
    hypothesis_seed(seed)(test)
    phases = (Phase.explicit, Phase.generate) + ((Phase.target, Phase.shrink) if shrink else ())
    test._hypothesis_internal_use_settings = settings(
        test._hypothesis_internal_use_settings,
        max_examples=max_examples,
        database=None,
        deadline=None,
        derandomize=False,
        phases=phases,
        report_multiple_bugs=False,
        print_blob=False,
    )
    return test


def pin_hypothesis_constants() -> None:
    """Keep Hypothesis (>= 6.131) from drawing constants out of whatever "local" modules `sys.modules` holds.

    Which modules a worker has imported depends on its history (earlier batches, fork or spawn), so that pool
    made the same candidate, seed and mutant give different inputs under --jobs 1 and --jobs 2. With it empty,
    inputs depend only on the candidate and the seed.
    """
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - a Hypothesis without the module has no local pool either
        return
    current = getattr(providers, "_get_local_constants", None)
    if current is None or getattr(current, "drafter_pinned", False):
        return
    pool = providers._local_constants
    empty = type(pool)(integers=type(pool.integers)(), floats=type(pool.floats)(key=pool.floats.key),
                       bytes=type(pool.bytes)(), strings=type(pool.strings)())

    def pinned():
        return empty

    pinned.drafter_pinned = True
    providers._get_local_constants = pinned
    providers.CONSTANTS_CACHE.cache.clear()  # choices already filtered from the old pool


def warm_unicode_tables() -> None:
    """Hypothesis builds the tables behind `st.text()` (about 5 s of CPU for the utf-8 codec) in every process
    that has neither them in memory nor a file caching them: a pool builds them before its workers fork."""
    from drafter.unicodecache import warm

    warm()


def run_test(test: Callable, spec: RunSpec, source_root: str | Path) -> RunOutcome:
    """Run one configured test; never raises for anything the test does (KeyboardInterrupt aside)."""
    configure(test, seed=spec.seed, max_examples=spec.max_examples, shrink=spec.shrink)
    body = test.hypothesis.inner_test.__code__
    clock = _ExampleClock(test)
    recorder = LineRecorder.for_target(spec.trace) if spec.trace else None
    timer = BodyTimer(test) if spec.time_body else None
    examples = ExampleRecorder(test, source_root) if spec.record else None
    with clock, installed(recorder, timer):
        outcome = _replay(test, spec, source_root, body, clock) if spec.replay else None
    if outcome is None:
        with clock, installed(recorder, timer, examples):
            outcome = _run_configured(test, spec, source_root, body, clock)
    if recorder is not None and outcome.status in ("passed", "failed"):
        outcome = replace(outcome, lines=tuple(sorted(recorder.lines)))
    if examples is not None and outcome.status == "passed":
        outcome = replace(outcome, examples=examples.encoded())
    return replace(outcome, body_seconds=timer.seconds) if timer is not None else outcome


def _replay(test: Callable, spec: RunSpec, source_root: str | Path, body: types.CodeType,
            clock: _ExampleClock) -> RunOutcome | None:
    """The run, with the body called on a recorded run's inputs in their order: the same examples Hypothesis
    would draw under this seed (drawing did not depend on the code), without its per-example machinery.

    Each example gets Hypothesis's own per-example random seeding. None when the body needs what only a real
    Hypothesis run gives (`note`, `assume`, `event`, ...): the caller then runs it normally."""
    from hypothesis.errors import HypothesisException
    from hypothesis.internal.entropy import deterministic_PRNG

    inner = test.hypothesis.inner_test
    start = time.process_time()
    sandbox.violations.clear()
    with _soft_timer(spec.budget, spec.hang_cut, clock) as timer:
        try:
            for args, kwargs in decoded(spec.replay):
                with deterministic_PRNG():
                    inner(*args, **kwargs)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - everything a test does is an outcome
            if timer.fired:
                return _over_budget(spec, start, clock)
            if isinstance(exc, HypothesisException):
                return None
            outcome = _classify(exc, time.process_time() - start, Path(source_root), body, spec.target)
            outcome = replace(outcome, counterexample=f"replayed example: args={args!r}, kwargs={kwargs!r}"[:2000])
        else:
            outcome = RunOutcome("passed", time.process_time() - start)
    return boxed(outcome)


def _run_configured(test: Callable, spec: RunSpec, source_root: str | Path, body: types.CodeType,
                    clock: _ExampleClock) -> RunOutcome:
    start = time.process_time()
    sandbox.violations.clear()
    with _soft_timer(spec.budget, spec.hang_cut, clock) as timer:
        try:
            test()
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - everything a test does is an outcome
            if timer.fired:
                return _over_budget(spec, start, clock)
            outcome = _classify(exc, time.process_time() - start, Path(source_root), body, spec.target)
        else:
            outcome = RunOutcome("passed", time.process_time() - start)
    return boxed(outcome)


def _over_budget(spec: RunSpec, start: float, clock: _ExampleClock) -> RunOutcome:
    now = time.process_time()
    stuck = now - clock.started if clock.started is not None else 0.0
    if clock.timer is not None and clock.timer.cut_fired:
        # The kernel's CPU timer samples per tick: by its account the example used the whole cut.
        stuck = max(stuck, clock.timer.cut)
    return RunOutcome("timeout", now - start, error=f"over the budget of {spec.budget:.1f} CPU s",
                      stuck_seconds=round(stuck, 6))


class _ExampleClock:
    """When the example now running began (CPU time), through Hypothesis's reassignable `inner_test` handle."""

    def __init__(self, test: Callable) -> None:
        self.test, self.started = test, None
        self.timer: _soft_timer | None = None  # one with a hang cut: told when each example starts and ends

    def __enter__(self) -> _ExampleClock:
        self.inner = inner = self.test.hypothesis.inner_test

        @functools.wraps(inner)
        def clocked(*args, **kwargs):
            self.started = time.process_time()
            if self.timer is not None:
                self.timer.example(starting=True)
            try:
                result = inner(*args, **kwargs)
            except _OverBudget:
                raise  # `started` stays: the example the budget ran out in
            except BaseException:
                self.ended()
                raise
            self.ended()
            return result

        self.test.hypothesis.inner_test = clocked
        return self

    def ended(self) -> None:
        self.started = None
        if self.timer is not None:
            self.timer.example(starting=False)

    def __exit__(self, *exc: object) -> None:
        self.test.hypothesis.inner_test = self.inner
        self.started = None


def boxed(outcome: RunOutcome) -> RunOutcome:
    """A run the box refused something in is "sandbox", even where the candidate caught the exception."""
    if sandbox.violations:
        return replace(outcome, status="sandbox", error="refused: " + "; ".join(dict.fromkeys(sandbox.violations))[:500])
    return outcome


def _classify(exc: BaseException, seconds: float, source_root: Path, body: types.CodeType, target: str = "") -> RunOutcome:
    """Flaky; error when it cannot run (Hypothesis refused, a name is missing, or drawing the inputs raised
    before the test body ran: a bad strategy, not a counterexample); else failed."""
    from hypothesis import errors

    codes = _traceback_codes(exc)
    root = str(source_root.resolve()) + os.sep
    source_codes = [code for code in codes if os.path.abspath(code.co_filename).startswith(root)]
    in_source = bool(source_codes)
    # Only the target's own frames (or functions nested in it) make a crash; another function of the module
    # raising on the target's output, like a decoder in a round trip, means the candidate noticed a wrong result.
    in_target = bool(target) and any(
        code.co_qualname == target or code.co_qualname.startswith(f"{target}.<locals>.") for code in source_codes
    )
    error = f"{type(exc).__name__}: {exc}".strip()
    notes = [n for n in getattr(exc, "__notes__", ()) if isinstance(n, str)]
    example = "\n".join(n for n in notes if "test case" in n or "example" in n) or None
    if isinstance(exc, errors.Flaky):
        status = "flaky"
    elif isinstance(exc, errors.HypothesisException) or (
        isinstance(exc, (NameError, ImportError)) and not in_source
    ):
        status = "error"  # health check, bad strategy, unsatisfiable, undefined name: it cannot run
    elif body not in codes:
        status = "error"
        drawing = "; ".join(n for n in notes if n.startswith("while generating"))
        error = f"drawing the inputs raised before the test body ran: {error}" + (f" ({drawing})" if drawing else "")
    else:
        status = "failed"
        error += _failing_line(exc, body)
    return RunOutcome(status, seconds, type(exc).__name__, error[:2000], example, in_source, in_target)


def _failing_line(exc: BaseException, body: types.CodeType) -> str:
    """` (failing line: <statement>)`, the line of the test body that raised: a bare `assert` says nothing else,
    and a feedback round shows the model which of its assertions failed."""
    import linecache

    lines = [tb.tb_lineno for tb in _traceback_frames(exc) if tb.tb_frame.f_code is body]
    if not lines:
        return ""
    text = linecache.getline(body.co_filename, lines[-1]).strip()
    return f" (failing line: {text})" if text else ""


def _traceback_frames(exc: BaseException) -> list[types.TracebackType]:
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb)
        tb = tb.tb_next
    return frames


def _traceback_codes(exc: BaseException) -> list[types.CodeType]:
    codes = []
    tb = exc.__traceback__
    while tb is not None:
        codes.append(tb.tb_frame.f_code)
        tb = tb.tb_next
    return codes


class _soft_timer:
    """SIGPROF after `seconds` of this process's CPU time raises _OverBudget inside the test, and SIGALRM after a
    generous wall-clock backstop against sleeps (WALL_FACTOR x the budget); a hung C call is left to the kernel's
    CPU limit. CPU time is the verdict's clock: a loaded machine slows a run down without using up its budget.

    With a `cut`, SIGPROF comes also once one example alone has used `cut` CPU seconds (the kill matrix's hang:
    more time would not end it)."""

    def __init__(self, seconds: float, cut: float = 0.0, clock: _ExampleClock | None = None) -> None:
        self.seconds = seconds
        self.usable = hasattr(signal, "setitimer") and _in_main_thread() and seconds > 0
        self.cut = cut if self.usable and 0 < cut < seconds else 0.0
        self.clock = clock if self.cut else None

    def __enter__(self) -> _soft_timer:
        self.fired = self.at_cut = self.cut_fired = False
        if self.usable:
            self.started = time.monotonic()
            self.cpu_started = time.process_time()
            if self.clock is not None:
                self.clock.timer = self
            self.previous = {}
            for which, signum, seconds in ((signal.ITIMER_PROF, signal.SIGPROF, self.seconds),
                                           (signal.ITIMER_REAL, signal.SIGALRM, backstop(self.seconds))):
                handler = signal.signal(signum, self._fire)
                self.previous[which] = (signum, handler, signal.setitimer(which, seconds)[0])
        return self

    def example(self, starting: bool) -> None:
        """The CPU timer at the cut for the example starting, back at what is left of the budget once it ends."""
        if not self.fired:
            left = self.seconds - (time.process_time() - self.cpu_started)
            self.at_cut = starting and self.cut < left
            signal.setitimer(signal.ITIMER_PROF, max(self.cut if self.at_cut else left, 0.001))

    def __exit__(self, *exc: object) -> None:
        if self.clock is not None:
            self.clock.timer = None
        if self.usable:
            for which, (signum, handler, left) in self.previous.items():
                signal.setitimer(which, 0)
                signal.signal(signum, handler)
                if left and which == signal.ITIMER_REAL:  # someone else's alarm (pytest-timeout) keeps running
                    signal.setitimer(which, max(left - (time.monotonic() - self.started), 0.001))

    def _fire(self, signum: int, frame: object) -> None:
        # Whatever the run raises after this is the interruption's doing: Hypothesis, interrupted while it
        # records a test case, raises FlakyStrategyDefinition from its own `finally` in place of _OverBudget.
        if self.fired:
            return
        self.fired = True
        self.cut_fired = self.at_cut and signum == signal.SIGPROF
        raise _OverBudget()


WALL_FACTOR, WALL_SLACK = 10.0, 5.0  # the wall-clock backstop against sleeps: generous, never the verdict's clock


def backstop(budget: float) -> float:
    """Wall-clock seconds a run of `budget` CPU seconds may take before it counts as over budget anyway."""
    return WALL_FACTOR * budget + WALL_SLACK


def _in_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()
