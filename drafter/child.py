"""The boxed side of the engine: a warm worker per job slot, and one fresh child per candidate's work.

The worker (forked from drafter) imports Hypothesis and the target modules once, behind Landlock and a network
namespace, and runs no candidate code. For each request it forks a child that closes every descriptor but its
own result pipe, lowers its limits (CPU seconds among them), enters the wall (Landlock, seccomp, no network) and
the audit hook, and only then loads the candidate; the child writes one frame per run and exits. The worker
relays the child's frames to drafter unread, and adds one frame of its own when the child is gone: how it ended
and the CPU it used. Nothing the child does in memory outlives it.
"""

from __future__ import annotations

import gc
import importlib
import os
import resource
import select
import shutil
import signal
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path, PurePosixPath

import wall
from drafter import sandbox
from drafter.onerun import MutantSpec, RunOutcome, RunSpec, boxed, load_test, pin_hypothesis_constants, run_test
from wall import frames

CHILD_STARTUP_CPU = 10.0  # CPU seconds for a child to load its candidate before the first run starts
HARD_GRACE = 1.0  # CPU seconds past a run's budget before its worker ends the child (the soft timer fires first)
CPU_POLL = 0.2  # seconds between two looks at a child's CPU clock
WORKER_TAG, CHILD_TAG = b"W", b"C"
# The shared libraries extension modules load (libsqlite3, libffi, ...), not the rest of /etc.
SYSTEM_LIBRARIES = ("/usr", "/lib", "/lib64", "/etc/ld.so.cache", "/etc/localtime")


class BadMutantPath(ValueError):
    """A mutant's file that is not a relative path to a .py file inside the source folder."""


# ---------------------------------------------------------------- the worker


def worker_main(requests: int, results: int, source_dir: str, modules: tuple[str, ...]) -> None:
    """Warm up, then serve requests (frames from drafter) until the stream ends."""
    run_folder = Path(source_dir).parent
    _close_all_but(requests, results)
    _output_to_log(run_folder / "logs")
    sandbox.die_with_parent()
    prepare_path(source_dir)
    pin_hypothesis_constants()
    for module in modules:  # what a child would import anyway; a module that fails here fails there too
        try:
            importlib.import_module(module)
        except BaseException:  # noqa: BLE001 - including SystemExit at import
            pass
    scratch = run_folder / "scratch"
    scratch.mkdir(parents=True, exist_ok=True)
    # The worker ran the targets' module code: it gets the file system and network walls, not seccomp (it forks).
    wall.leave_network()
    wall.build(read_roots(str(run_folder)), (str(scratch),), (os.devnull,))
    import sabotage.switch  # noqa: F401 - every child that meets a mutant needs it; importing it costs 0.17 CPU s
    # Objects the children inherit stay out of their collections: a collection touching every object of the heap
    # would copy it page by page (copy-on-write) and charge the run for it.
    gc.freeze()
    _say(results, {"kind": "ready"})
    while True:
        request = frames.read(requests)
        if request is None:
            return
        _say(results, _serve(request, results, source_dir, scratch))


def _serve(request: dict, results: int, source_dir: str, scratch: Path) -> dict:
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: nothing of the worker's but its own end of the pipe
        code = 0
        try:
            os.close(reader)
            child_main(request, writer, source_dir, scratch)
        except BaseException:  # noqa: BLE001 - a child that breaks ends; its parent reports how
            import traceback

            traceback.print_exc()
            code = 70
        finally:
            os._exit(code)
    os.close(writer)
    why = _relay(reader, results, pid, request)
    os.close(reader)
    _, status, usage = os.wait4(pid, 0)
    shutil.rmtree(scratch / f"child-{pid}", ignore_errors=True)
    return {"kind": "exit", "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0,
            "code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1,
            "cpu": usage.ru_utime + usage.ru_stime, "system_cpu": usage.ru_stime, "why": why}


def _relay(reader: int, results: int, pid: int, request: dict) -> str:
    """Pass the child's frames on, each whole, while watching its CPU clock: the run it is on may use its budget
    plus HARD_GRACE CPU seconds (a loop in C, which the soft timer cannot interrupt, ends here). "" when the child
    closed its end, else why it was killed."""
    allowances = [run["budget"] * (2 if mutant and mutant.get("forced") else 1) + HARD_GRACE
                  for run, mutant in zip(request["runs"], request["mutants"] or [None] * len(request["runs"]))]
    allowances.insert(0, CHILD_STARTUP_CPU)  # until it says it stands behind the wall
    clock = cpu_clock(pid)
    deadline, buffer, answered, started = time.monotonic() + request["backstop"], b"", 0, 0.0
    while True:
        now = cpu_seconds(clock)
        if now - started > allowances[min(answered, len(allowances) - 1)]:
            os.kill(pid, signal.SIGKILL)
            return "cpu"
        left = deadline - time.monotonic()
        if left <= 0:
            os.kill(pid, signal.SIGKILL)
            return "backstop"
        if not select.select([reader], [], [], min(left, CPU_POLL))[0]:
            continue
        chunk = os.read(reader, 2**20)
        if not chunk:
            return "" if not buffer else "protocol: the child ended inside a frame"
        buffer += chunk
        while len(buffer) >= frames.HEADER.size:
            (size,) = frames.HEADER.unpack_from(buffer)
            if size > frames.MAX_FRAME:
                os.kill(pid, signal.SIGKILL)
                return f"protocol: a frame of {size:,} bytes announced"
            end = frames.HEADER.size + size
            if len(buffer) < end:
                break
            payload, buffer = buffer[frames.HEADER.size:end], buffer[end:]
            _write_raw(results, CHILD_TAG + payload)
            answered, started = answered + 1, cpu_seconds(clock)


def cpu_clock(pid: int) -> int:
    """The kernel's CPU-time clock of another process (clock_getcpuclockid, which Python does not offer)."""
    return ((~pid) << 3) | 2


def cpu_seconds(clock: int) -> float:
    try:
        return time.clock_gettime(clock)
    except OSError:  # the child is gone (a zombie still answers) or the platform has no such clocks
        return 0.0


def _say(results: int, message: dict) -> None:
    """A frame of the worker's own (the child's are relayed under CHILD_TAG, so it cannot speak as the worker)."""
    _write_raw(results, WORKER_TAG + frames.encode(message)[frames.HEADER.size:])


def _write_raw(fd: int, payload: bytes) -> None:
    data = memoryview(frames.HEADER.pack(len(payload)) + payload)
    while data:
        data = data[os.write(fd, data):]


# ---------------------------------------------------------------- the child


def child_main(request: dict, out: int, source_dir: str, scratch: Path) -> None:
    _close_all_but(out)
    sandbox.die_with_parent()
    own = scratch / f"child-{os.getpid()}"
    own.mkdir(parents=True, exist_ok=True)
    runs = [RunSpec(**run) for run in request["runs"]]
    mutants = [_mutant(m) for m in request["mutants"]] or [None] * len(runs)
    fresh = len(runs) == 1 and mutants[0] is not None and mutants[0].fresh
    if fresh:
        try:
            source_dir = _fresh_copy(source_dir, own, mutants[0])
        except BadMutantPath as exc:
            frames.write(out, {"kind": "invalid", "run": 0, "reason": str(exc)})
            return
    cpu = CHILD_STARTUP_CPU + sum(run.budget + HARD_GRACE for run in runs)
    # Reads: the source (or its copy), the candidate's own files and the interpreter; not the rest of the run.
    readable = read_roots(source_dir, *sorted({os.path.dirname(run.test_file) for run in runs}))
    layers = sandbox.enter_box(own, cpu_seconds=cpu, wall_roots=readable)
    frames.write(out, {"kind": "walled", "layers": list(layers)})  # before any candidate or mutant code runs
    for index, kind, value in _run_batch(runs, mutants, source_dir, request["stop_after_timeout"], fresh):
        frames.write(out, {"kind": kind, "run": index, **value})


def _run_batch(runs, mutants, source_dir: str, stop_after_timeout: bool, fresh: bool):
    from sabotage import switch

    for index, (spec, mutant) in enumerate(zip(runs, mutants)):
        if mutant is None:
            outcome = _one(spec, source_dir)
        elif fresh:
            try:
                importlib.import_module(mutant.module)
            except BaseException as exc:  # noqa: BLE001 - a mutant that does not import is invalid
                yield index, "invalid", {"reason": f"mutated {mutant.module} does not import: {type(exc).__name__}: {exc}"}
                continue
            outcome = _one(spec, source_dir)
        else:
            try:
                module = importlib.import_module(mutant.module)
                if not mutant.qualname:
                    raise switch.SwitchUnsafe("the patch is not about one function")
                prepared = (switch.prepare_forced_fail(module, mutant.qualname) if mutant.forced
                            else switch.prepare_switch(module, mutant.qualname, mutant.source, mutant.body_only))
            except switch.MutantInvalid as exc:
                yield index, "invalid", {"reason": str(exc)}
                continue
            except Exception as exc:  # noqa: BLE001 - SwitchUnsafe, or the original module does not import here
                unsafe = isinstance(exc, switch.SwitchUnsafe)
                yield index, "fresh", {"reason": str(exc) if unsafe else
                                       f"cannot switch in-process: {type(exc).__name__}: {exc}"}
                continue
            outcome = _forced(spec, prepared, source_dir) if mutant.forced else _switched(spec, prepared, source_dir)
        yield index, "result", {"outcome": asdict(outcome)}
        if outcome.status == "timeout" and stop_after_timeout:
            return


def _switched(spec: RunSpec, prepared, source_dir: str) -> RunOutcome:
    from sabotage import switch

    with switch.switched_in(prepared):
        return _one(spec, source_dir)


def _forced(spec: RunSpec, prepared, source_dir: str) -> RunOutcome:
    """The forced-fail proof: the run with the raising stand-in; one that passes is repeated on clean code
    counting calls of the real target, which tells "never calls it" from "the switch did not take effect"."""
    from sabotage import switch

    before = switch.PROBE_CALLS[0]
    outcome = _switched(spec, prepared, source_dir)
    if outcome.status == "passed":
        hook, counter = switch.count_calls(prepared.live.__code__)
        previous = sys.getprofile()
        sys.setprofile(hook)
        try:
            _one(spec, source_dir)
        finally:
            sys.setprofile(previous)
        outcome = replace(outcome, probe_calls=switch.PROBE_CALLS[0] - before, clean_calls=counter[0])
    return outcome


def _one(spec: RunSpec, source_dir: str) -> RunOutcome:
    sandbox.violations.clear()
    try:
        test = load_test(spec.test_file, spec.test_name)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - a test file that cannot load is an outcome
        # A strategy expression runs when the file loads: what the box refused there makes it "sandbox".
        return boxed(RunOutcome("error", 0.0, type(exc).__name__,
                                f"cannot load {Path(spec.test_file).name}: {type(exc).__name__}: {exc}"))
    return run_test(test, spec, source_dir)


def _mutant(data: dict | None):
    return None if data is None else MutantSpec(**data)


def mutant_file(copy: Path, relative: str) -> Path:
    """Where a mutant's source goes in a copy of the source folder: a .py file inside it, or BadMutantPath. The
    mutant may come from a cache a CI job restored: it never decides where anything is written."""
    path = PurePosixPath(relative)
    if path.is_absolute() or not path.parts or ".." in path.parts or path.suffix != ".py" or "\\" in relative:
        raise BadMutantPath(f"mutant file {relative!r} is not a relative .py path inside the source folder")
    target = copy.joinpath(*path.parts).resolve()
    if not target.is_relative_to(copy.resolve()):
        raise BadMutantPath(f"mutant file {relative!r} leads outside the source folder")
    return target


def _fresh_copy(source_dir: str, own: Path, mutant) -> str:
    """A copy of the source in the child's own scratch with the mutant written in, its modules imported afresh:
    for a mutant the live switch cannot put in place. Done before the wall, by engine code, at a checked path."""
    copy = own / "source"
    shutil.copytree(source_dir, copy, ignore=shutil.ignore_patterns("__pycache__"), symlinks=True)
    mutant_file(copy, mutant.file).write_text(mutant.source, encoding="utf-8")
    sys.path.remove(source_dir)
    prepare_path(str(copy))
    root = str(Path(source_dir).resolve()) + os.sep
    for name, module in list(sys.modules.items()):
        if os.path.abspath(getattr(module, "__file__", None) or "").startswith(root):
            del sys.modules[name]
    return str(copy)


# ---------------------------------------------------------------- shared


# What a worker itself runs on; a module of SRC by one of these names is never imported in its place.
RUNTIME_PACKAGES = frozenset({"hypothesis", "drafter", "sabotage", "readback", "wall"})


def prepare_path(source_dir: str) -> None:
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


def read_roots(*folders: str) -> tuple[str, ...]:
    """What a boxed process may read: the interpreter, its packages, drafter itself and `folders`."""
    here = str(Path(__file__).resolve().parent.parent)
    roots = [p for p in sys.path if p and os.path.isabs(p)] + [
        sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, here, *folders, "/dev/urandom",
        *SYSTEM_LIBRARIES]
    return tuple(dict.fromkeys(roots))


def _close_all_but(*keep: int) -> None:
    """Close every inherited descriptor but stdio and `keep`: another worker's pipe, drafter's files. closerange
    is one close_range call where the kernel has it (a worker cannot list /proc/self/fd behind Landlock, and
    closing up to RLIMIT_NOFILE one by one cost each child ~14 ms)."""
    low = 3
    for fd in sorted({fd for fd in keep if fd >= low}):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, max(low, resource.getrlimit(resource.RLIMIT_NOFILE)[0]))


def _output_to_log(folder: Path) -> None:
    """What candidates and targets print, and any traceback, goes to the run's log, not the console."""
    folder.mkdir(parents=True, exist_ok=True)
    log = os.open(folder / f"worker-{os.getpid()}.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
