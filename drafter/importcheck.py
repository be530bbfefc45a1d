"""Which target modules import, checked in a boxed child interpreter with a CPU budget per module.

A module that hangs or kills the interpreter costs only itself: the check goes on with the modules after it
in a new child. The budget is the child's CPU time, so machine load changes no verdict; a wall-clock backstop (as
for candidate runs) catches a module that sleeps. One line per failing module reaches the console; tracebacks go
to the run's log."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from drafter.child import RUNTIME_PACKAGES, cpu_clock, cpu_seconds
from drafter.onerun import backstop

IMPORT_BUDGET_SECONDS = 20.0  # CPU seconds per module, on top of the child's own start
CHILD_STARTUP_SECONDS = 30.0  # CPU seconds
POLL_SECONDS = 0.25
STDERR_TAIL = 4096

CHILD = "from drafter.importcheck import child_main; child_main()"


def import_failures(source_dir: Path, modules: Sequence[str], budget: float = IMPORT_BUDGET_SECONDS,
                    log: Path | None = None) -> dict[str, str]:
    """{module: one-line reason} for modules that do not import from source_dir."""
    failures: dict[str, str] = {}
    tracebacks: list[str] = []
    remaining = []
    for module in modules:
        if module.split(".")[0] in RUNTIME_PACKAGES:
            failures[module] = (f"SRC's {module.split('.')[0]} has the name of a package drafter runs on; rename it "
                                "or leave it out with --select")
        else:
            remaining.append(module)
    while remaining:
        done, why, stuck = _check(Path(source_dir).resolve(), remaining, budget)
        for module, error, trace in done:
            if error is not None:
                failures[module] = error
                tracebacks.append(f"--- {module}\n{trace}")
        finished = {module for module, _, _ in done}
        if stuck is not None:
            failures[stuck] = why
            tracebacks.append(f"--- {stuck}\n{why}")
            finished.add(stuck)
        elif why:  # the child failed before any module: every remaining one shares the reason
            failures.update({m: why for m in remaining if m not in finished})
            tracebacks.append(f"--- all remaining modules\n{why}")
            break
        remaining = [m for m in remaining if m not in finished]
    if log is not None and tracebacks:
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text("\n".join(tracebacks) + "\n", encoding="utf-8", errors="backslashreplace")
    return failures


def _check(source_dir: Path, modules: list[str], budget: float) -> tuple[list[tuple], str, str | None]:
    """(finished (module, error, traceback) rows, why the child stopped early, the module it stopped in)."""
    # cwd: the run's scratch folder, the one place the workers' box lets code write (a module that writes a file
    # at import imports there as it will in the workers).
    scratch = source_dir.parent / "scratch"
    scratch.mkdir(exist_ok=True)
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(source_dir), *modules], stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=scratch,
                             env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    try:
        return _watch(child, budget)
    finally:  # an interruption (SIGINT) must not leave the child importing on its own
        if child.poll() is None:
            child.kill()
            child.wait()


def _watch(child: subprocess.Popen, budget: float) -> tuple[list[tuple], str, str | None]:
    done: list[tuple] = []
    current: str | None = None
    clock = cpu_clock(child.pid)
    allowance, started, wall_started = CHILD_STARTUP_SECONDS, 0.0, time.monotonic()
    buffer = b""
    stderr = b""  # its tail only: read as it comes, or a module printing 100 kB at import fills the pipe and hangs
    with selectors.DefaultSelector() as selector:
        selector.register(child.stdout, selectors.EVENT_READ)
        selector.register(child.stderr, selectors.EVENT_READ)
        while True:
            ready = selector.select(timeout=POLL_SECONDS)
            over_cpu = cpu_seconds(clock) - started > allowance
            if over_cpu or time.monotonic() - wall_started > backstop(allowance):
                child.kill()
                child.wait()
                limit = f"{budget:g} s" if current else f"{CHILD_STARTUP_SECONDS:g} s to start"
                return done, f"importing took longer than {limit}{'' if over_cpu else ' (wall clock)'}", current
            if any(key.fileobj is child.stderr for key, _ in ready):
                chunk = os.read(child.stderr.fileno(), 65536)
                stderr = (stderr + chunk)[-STDERR_TAIL:]
                if not chunk:
                    selector.unregister(child.stderr)
            if not any(key.fileobj is child.stdout for key, _ in ready):
                continue
            chunk = os.read(child.stdout.fileno(), 65536)
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                event = json.loads(line)
                if "start" in event:
                    current, allowance = event["start"], budget
                    started, wall_started = cpu_seconds(clock), time.monotonic()
                else:
                    done.append((event["done"], event.get("error"), event.get("traceback", "")))
                    current = None
    stderr = (stderr + child.stderr.read())[-STDERR_TAIL:].decode("utf-8", "backslashreplace").strip()
    code = child.wait()
    if current is None and code == 0:
        return done, "", None
    cause = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
    return done, f"the import check died ({cause}){': ' + stderr[-300:] if stderr else ''}", current


def child_main() -> None:
    """In the child: the workers' box, then each module in turn, one JSON line before and after."""
    import importlib
    import traceback

    from drafter.execute import start_worker

    source_dir, *modules = sys.argv[1:]
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8", errors="backslashreplace")
    os.dup2(2, 1)  # what a module prints at import must not mix with our lines

    def say(**event) -> None:
        channel.write(json.dumps(event) + "\n")
        channel.flush()

    start_worker(source_dir)
    for module in modules:
        say(start=module)
        try:
            importlib.import_module(module)
        except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt at import fail the module too
            say(done=module, error=f"{type(exc).__name__}: {exc}".strip(), traceback=traceback.format_exc())
        else:
            say(done=module)
