"""Watching a run from inside: which lines of the target a candidate executes, and how long its body takes.

Installed only for the runs that ask for them: a trace hook (sys.settrace), and a wrapper of the body.
"""

from __future__ import annotations

import functools
import importlib
import sys
import time
import types
from collections.abc import Iterator
from contextlib import contextmanager


def code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    """A code object and every code object nested in it (inner functions, lambdas, comprehensions)."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from code_objects(const)


class LineRecorder:
    """Records the lines one function (and what is nested in it) runs, through sys.settrace.

    The global trace function answers only "call" events and returns a line tracer for the target's own code
    objects alone, so every other frame runs without line events: the cost is one Python call per call.
    """

    def __init__(self, codes: set[int]) -> None:
        self.codes = codes
        self.lines: set[int] = set()

    @classmethod
    def for_target(cls, target: str) -> LineRecorder | None:
        from sabotage.switch import SwitchUnsafe, find_live_function

        module_name, _, qualname = target.partition(":")
        try:
            live, _ = find_live_function(importlib.import_module(module_name), qualname)
        except (SwitchUnsafe, ImportError, Exception):  # noqa: BLE001 - no recording is "unknown", never wrong
            return None
        return cls({id(code) for code in code_objects(live.__code__)})

    def on_call(self, frame: types.FrameType, event: str, arg: object):
        if id(frame.f_code) in self.codes:
            return self.on_line
        return None

    def on_line(self, frame: types.FrameType, event: str, arg: object):
        if event == "line":
            self.lines.add(frame.f_lineno)
        return self.on_line


class BodyTimer:
    """Time inside the test body itself, summed over examples: the body is wrapped through Hypothesis's
    reassignable `inner_test` handle for the run, so nothing else is slowed down."""

    def __init__(self, test) -> None:
        self.test, self.seconds = test, 0.0

    def __enter__(self) -> None:
        self.inner = inner = self.test.hypothesis.inner_test

        @functools.wraps(inner)
        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started

        self.test.hypothesis.inner_test = timed

    def __exit__(self, *exc: object) -> None:
        self.test.hypothesis.inner_test = self.inner


@contextmanager
def installed(recorder: LineRecorder | None, timer: BodyTimer | None) -> Iterator[None]:
    import threading

    if recorder is None and timer is None:
        yield
        return
    previous_trace = sys.gettrace()
    if recorder is not None:  # threads the candidate starts are traced too
        sys.settrace(recorder.on_call)
        threading.settrace(recorder.on_call)
    if timer is not None:
        timer.__enter__()
    try:
        yield
    finally:
        if recorder is not None:
            sys.settrace(previous_trace)
            threading.settrace(previous_trace)  # type: ignore[arg-type]
        if timer is not None:
            timer.__exit__()
