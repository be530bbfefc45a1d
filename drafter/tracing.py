"""Watching a run from inside: which lines of the target a candidate executes, how long its body takes, and
which inputs its examples pass to the body (for replay).

Installed only for the runs that ask for them: a trace hook (sys.settrace), and wrappers of the body.
"""

from __future__ import annotations

import base64
import functools
import importlib
import os
import pickle
import sys
import time
import types
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from fractions import Fraction


def code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    """A code object and every code object nested in it (inner functions, lambdas, comprehensions)."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from code_objects(const)


class LineRecorder:
    """Records the lines one function (and what is nested in it) runs, through sys.settrace.

    The global trace function answers only "call" events and returns a line tracer for the target's own code
    objects alone, so every other frame runs without line events: the cost is one Python call per call. It knows
    them by their module's globals (the same dict) and the first line a call event reports, never by
    `frame.f_code` or `id()`: on Python 3.11 both raise an audit event, which the box's audit hook would answer
    on every call.
    """

    def __init__(self, namespace: dict, first_lines: frozenset[int]) -> None:
        self.namespace, self.first_lines = namespace, first_lines
        self.lines: set[int] = set()

    @classmethod
    def for_target(cls, target: str) -> LineRecorder | None:
        from sabotage.switch import SwitchUnsafe, find_live_function

        module_name, _, qualname = target.partition(":")
        try:
            live, _ = find_live_function(importlib.import_module(module_name), qualname)
        except (SwitchUnsafe, ImportError, Exception):  # noqa: BLE001 - no recording is "unknown", never wrong
            return None
        return cls(live.__globals__, frozenset(code.co_firstlineno for code in code_objects(live.__code__)))

    def on_call(self, frame: types.FrameType, event: str, arg: object):
        # A generator's later resumptions report another line, but keep the line tracer of their first call.
        if frame.f_globals is self.namespace and frame.f_lineno in self.first_lines:
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
            started = time.process_time()
            try:
                return inner(*args, **kwargs)
            finally:
                self.seconds += time.process_time() - started

        self.test.hypothesis.inner_test = timed

    def __exit__(self, *exc: object) -> None:
        self.test.hypothesis.inner_test = self.inner


PLAIN_SCALARS = frozenset({type(None), bool, int, float, complex, str, bytes, Decimal, Fraction})
PLAIN_CONTAINERS = frozenset({tuple, list, dict, set, frozenset})


def is_plain(value: object, depth: int = 0) -> bool:
    """Data whose copy behaves like the original whatever code is loaded: exact builtin types, no subclasses."""
    kind = type(value)
    if kind in PLAIN_SCALARS:
        return True
    if kind not in PLAIN_CONTAINERS or depth > 20:
        return False
    items = [x for pair in value.items() for x in pair] if kind is dict else value
    return all(is_plain(item, depth + 1) for item in items)


class ExampleRecorder:
    """The inputs each example passes to the body, pickled before the body can change them, so a later run of the
    same seed can call the body with them directly instead of drawing them again.

    That is equivalent only when drawing did not depend on the code under test: it is void (`why_not`) when code
    of the source folder ran outside the body (a strategy built from the target), an input is not plain data (an
    instance of a source class, `st.data()`, a random generator), or an example was rejected (`assume`)."""

    def __init__(self, test, source_root: str | os.PathLike) -> None:
        self.test, self.root = test, os.path.abspath(source_root) + os.sep
        self.examples: list[bytes] = []
        self.why_not = ""
        self.watching = True  # outside the body while a replay is still possible: calls there are looked at
        self.files: dict[object, bool] = {}  # a module's __file__: is it code under test?

    def on_call(self, namespace: dict) -> None:
        """A call, outside the body, into code whose module globals are `namespace` (the frame's, not its code:
        no audit event). `installed` calls this only for a file not yet known to be outside the source."""
        file = namespace.get("__file__")
        inside = self.files.get(file)
        if inside is None:  # once per file: calls Hypothesis makes while drawing come here
            inside = self.files[file] = isinstance(file, str) and os.path.abspath(file).startswith(self.root)
        if inside:
            self._void(f"code under test ran while drawing inputs (in {namespace.get('__name__')})")

    def _void(self, why: str) -> None:
        self.why_not = self.why_not or why
        self.watching = False

    def __enter__(self) -> None:
        from hypothesis.errors import UnsatisfiedAssumption

        self.inner = inner = self.test.hypothesis.inner_test

        @functools.wraps(inner)
        def recorded(*args, **kwargs):
            if not self.why_not:
                if is_plain(args) and is_plain(kwargs):
                    self.examples.append(pickle.dumps((args, kwargs)))
                else:
                    self._void("an input is not plain data")
            self.watching = False
            try:
                return inner(*args, **kwargs)
            except UnsatisfiedAssumption:
                self._void("an example was rejected")
                raise
            finally:
                self.watching = not self.why_not

        self.test.hypothesis.inner_test = recorded

    def __exit__(self, *exc: object) -> None:
        self.test.hypothesis.inner_test = self.inner

    def encoded(self) -> str:
        """The examples, for RunSpec.replay ("" when a replay would not be equivalent)."""
        if self.why_not or not self.examples:
            return ""
        return base64.b64encode(pickle.dumps(self.examples)).decode()


def decoded(replay: str) -> list[tuple[tuple, dict]]:
    """Fresh copies of recorded examples (each call unpickles anew, so a body that mutates them changes nothing)."""
    return [pickle.loads(example) for example in pickle.loads(base64.b64decode(replay))]


@contextmanager
def installed(recorder: LineRecorder | None, timer: BodyTimer | None,
              examples: ExampleRecorder | None = None) -> Iterator[None]:
    import threading

    if recorder is None and timer is None and examples is None:
        yield
        return
    previous_trace = sys.gettrace()
    if recorder is not None or examples is not None:  # threads the candidate starts are traced too
        on_call = recorder.on_call if recorder is not None else None
        if examples is not None:  # one Python call per traced call event, two dict look-ups in it at most
            watch, files, on_line = examples.on_call, examples.files, recorder and recorder.on_line
            namespace, first_lines = (recorder.namespace, recorder.first_lines) if recorder else (None, ())

            def on_call(frame: types.FrameType, event: str, arg: object):
                module = frame.f_globals
                if examples.watching and files.get(module.get("__file__")) is not False:
                    watch(module)
                return on_line if module is namespace and frame.f_lineno in first_lines else None

        sys.settrace(on_call)
        threading.settrace(on_call)
    wrappers = [w for w in (timer, examples) if w is not None]
    for wrapper in wrappers:
        wrapper.__enter__()
    try:
        yield
    finally:
        if recorder is not None or examples is not None:
            sys.settrace(previous_trace)
            threading.settrace(previous_trace)  # type: ignore[arg-type]
        for wrapper in reversed(wrappers):
            wrapper.__exit__()
