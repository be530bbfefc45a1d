"""A hostile world for the `drafter` CLI: replies, servers, source trees and workspaces that try to break a run.

Every case runs `drafter run` in a subprocess of its own (own cwd, HOME and TMPDIR under a temp folder, a
wall-clock limit, `--jobs 1 --max-examples 10`, a `--select` of one target where the case allows) and is classed:

- crash           a Python traceback reached the console
- lost data       `workspace/latest` names a run without a readable report.json, a run folder without a report is
                  not marked incomplete, an earlier complete run (seeded before the case) changed, or a file the
                  case put in the workspace vanished
- wrote outside   a file or folder appeared, changed or vanished in SRC, the cwd, HOME or a victim folder
- over time       still running at the limit (then killed with its process group)
- unexpected exit the exit code is not one the case expects (e.g. no module -> 2)
- unclear         the output lacks what the case says it must name (the file, key, URL or cause), or says what
                  it must not (e.g. "does not import" for a module that imports)
- slow to stop    an interrupted case took longer than it may to stop
- clean           none of these

A case may fall in several classes; the table counts each class and names the first (in that order) per case.
Figures come from one sequential run of the corpus; run it against two versions to compare them:

    nice -n 10 .venv/bin/python bench/hostile_world.py --drafter .venv/bin/drafter
    nice -n 10 .venv/bin/python bench/hostile_world.py --drafter /other/checkout   # its .venv/bin/drafter

`--drafter` takes an executable, a checkout folder (its .venv/bin/drafter) or a command line such as
"/x/.venv/bin/python -c 'from drafter.cli import app; app()'". Run as root, the read-only cases run as
uid 65534 (root ignores permissions).
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from hostile_cases import Case, Ctx, FaultServer, cases, own_cases

CLASSES = ("crash", "lost data", "wrote outside", "over time", "unexpected exit", "unclear", "slow to stop")
NOBODY = 65534


@dataclass
class Result:
    case: str
    classes: list[str]
    exit: int | None
    seconds: float
    details: list[str] = field(default_factory=list)


def snapshot(root: Path, skip: set[str]) -> dict[str, tuple]:
    """Every entry under root (lstat only: FIFOs are never opened, links never followed) except `skip` paths."""
    seen = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in skip]
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            if path in skip:
                continue
            info = os.lstat(path)
            if stat.S_ISREG(info.st_mode):
                with open(path, "rb") as handle:
                    seen[path] = ("file", hashlib.sha256(handle.read()).hexdigest())
            elif stat.S_ISLNK(info.st_mode):
                seen[path] = ("link", os.readlink(path))
            else:
                seen[path] = (stat.S_IFMT(info.st_mode),)
    return seen


def changes(before: dict, after: dict, root: Path) -> list[str]:
    rel = lambda p: os.path.relpath(p, root).encode("utf-8", "backslashreplace").decode()
    out = [f"+{rel(p)}" for p in sorted(after.keys() - before.keys())]
    out += [f"-{rel(p)}" for p in sorted(before.keys() - after.keys())]
    return out + [f"~{rel(p)}" for p in sorted(before.keys() & after.keys()) if before[p] != after[p]]


def summarise(changed: list[str]) -> str:
    """'+cwd/.hypothesis (14), +victim/pwned': changes grouped by their first two path parts."""
    groups: dict[str, int] = {}
    for entry in changed:
        key = entry[0] + "/".join(entry[1:].split("/")[:2])
        groups[key] = groups.get(key, 0) + 1
    return ", ".join(k + (f" ({n})" if n > 1 else "") for k, n in groups.items())


def data_problems(ws: Path, seed_run: str | None, seed_before: dict) -> list[str]:
    problems = []
    if not ws.is_dir() or ws.is_symlink():
        return problems
    latest = ws / "latest"
    if latest.is_symlink():
        report = latest.resolve() / "report.json"
        try:
            json.loads(report.read_text())
        except (OSError, ValueError, RecursionError):
            problems.append(f"latest -> {os.readlink(latest)} has no readable report.json")
    runs = ws / "runs"
    if runs.is_dir():
        for run in sorted(runs.iterdir()):
            if run.is_dir() and not run.name.startswith(".") and not (run / "report.json").is_file() \
                    and not run.name.endswith(".incomplete") and not (run / "INCOMPLETE.txt").exists():
                problems.append(f"runs/{run.name} has no report and is not marked incomplete")
    if seed_run is not None:
        damaged = changes(seed_before, snapshot(ws / "runs" / seed_run, set()), ws)
        if damaged:
            problems.append(f"earlier run damaged: {' '.join(damaged[:3])}")
    return problems


TRACEBACK = "Traceback (most recent call last)"
EXCEPTION_LINE = re.compile(r"\b([A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit))\b:? ?([^\n│]{0,70})")


def crash_detail(output: str) -> str:
    tail = output[output.rfind(TRACEBACK):]
    found = EXCEPTION_LINE.findall(tail)
    return "traceback: " + (" ".join(found[-1]).strip() if found else tail.splitlines()[0][:80])


class Runner:
    def __init__(self, drafter: list[str], limit: float, keep: Path | None):
        self.drafter, self.limit, self.keep = drafter, limit, keep
        self.server = FaultServer()
        self.top = Path(tempfile.mkdtemp(prefix="hostile-world-"))
        self.top.chmod(0o755)  # the uid-65534 cases must reach their folders
        self.seed_ws, self.seed_run = self._seed()

    def _seed(self) -> tuple[Path, str]:
        """One complete run on the tiny SRC; seeded cases start from a copy of its workspace."""
        ctx = Ctx(self.top / "_seed", self.server)
        proc = self._spawn(ctx, ctx.run(ctx.good_replay()), user=None)
        out, _ = proc.communicate(timeout=600)
        latest = ctx.ws / "latest"
        if proc.returncode != 0 or not (latest / "report.json").is_file():
            sys.exit(f"the seed run failed (exit {proc.returncode}); nothing to compare against:\n{out[-3000:]}")
        return ctx.ws, latest.resolve().name

    def _spawn(self, ctx: Ctx, args: list[str], user: int | None) -> subprocess.Popen:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(ctx.home), "TMPDIR": str(ctx.tmp),
               "LANG": "C.UTF-8", "OPENAI_API_KEY": "sk-hostile-world", "COLUMNS": "120",
               # The documented per-user cache (Hypothesis's Unicode tables) is meant to outlive a run: kept in
               # the case's TMPDIR, so anything else appearing under HOME still counts as written outside.
               "DRAFTER_CACHE_DIR": str(ctx.tmp / "drafter-cache")}
        return subprocess.Popen(self.drafter + args, cwd=ctx.cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
                                user=user, group=user, extra_groups=[] if user is not None else None)

    def _wait(self, proc: subprocess.Popen, case: Case, started: float) -> tuple[str, bool]:
        if case.interrupt:
            sig, after = case.interrupt
            try:
                out, _ = proc.communicate(timeout=after)
                return out.decode(errors="replace"), False  # over before the signal
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, sig)
        try:
            out, _ = proc.communicate(timeout=max(1.0, self.limit - (time.monotonic() - started)))
            return out.decode(errors="replace"), False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            return out.decode(errors="replace"), True

    def run(self, case: Case) -> Result:
        ctx = Ctx(self.top / case.name, self.server)
        ctx.prime = lambda args: self._spawn(ctx, args, None).communicate(timeout=self.limit)  # a run before the case
        if case.seed:
            shutil.copytree(self.seed_ws, ctx.ws, symlinks=True)
        args = case.build(ctx)
        user = NOBODY if case.as_nobody and os.geteuid() == 0 else None
        if user is not None:
            subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(ctx.root)], check=True)
        if getattr(ctx, "read_only", None) is not None:
            subprocess.run(["chmod", "-R", "a-w", str(ctx.read_only)], check=True)
        skip = {str(ctx.tmp)} | ({str(ctx.ws)} if not case.protect_ws else set())
        before = snapshot(ctx.root, skip)
        seed_before = snapshot(ctx.ws / "runs" / self.seed_run, set()) if case.seed else {}
        started = time.monotonic()
        try:
            proc = self._spawn(ctx, args, user)
        except OSError as exc:  # e.g. the interpreter lives under a folder uid 65534 may not enter
            return Result(case.name, ["not run"], None, 0.0, [f"cannot start it as uid {user}: {exc}"])
        output, timed_out = self._wait(proc, case, started)
        seconds = time.monotonic() - started
        result = Result(case.name, [], proc.returncode, seconds)
        self._classify(case, ctx, result, output, timed_out, before, skip, seed_before)
        if case.then_clean_run and ctx.ws.is_dir():
            again = self._spawn(ctx, ctx.run(ctx.good_replay()), user)
            out, _ = again.communicate(timeout=self.limit)
            if again.returncode != 0 or TRACEBACK in out.decode(errors="replace"):
                result.classes.append("lost data")
                result.details.append(f"the next run failed (exit {again.returncode})")
            result.details += [f"next run: {p}" for p in data_problems(ctx.ws, self.seed_run, seed_before)]
        result.classes = [c for c in CLASSES if c in result.classes]
        self._cleanup(ctx.root)
        return result

    def _classify(self, case, ctx, result, output, timed_out, before, skip, seed_before) -> None:
        if TRACEBACK in output:
            result.classes.append("crash")
            result.details.append(crash_detail(output))
        problems = data_problems(ctx.ws, self.seed_run if case.seed else None, seed_before)
        for path, text in getattr(ctx, "preserve", {}).items():
            if not path.is_file() or path.read_text() != text:
                problems.append(f"the user's {path.relative_to(ctx.root)} is gone or changed")
        if problems:
            result.classes.append("lost data")
            result.details += [p + (" (after the harness killed it)" if timed_out else "") for p in problems]
        wrote = changes(before, snapshot(ctx.root, skip), ctx.root)
        if wrote:
            result.classes.append("wrote outside")
            result.details.append(f"outside: {summarise(wrote)}")
        if timed_out:
            result.classes.append("over time")
            result.details.append(f"killed after {self.limit:.0f} s")
        flat = " ".join(output.split())
        missing = [w for w in case.says + getattr(ctx, "says", ()) if w not in flat]
        present = [w for w in case.never_says if w in flat]
        if (missing or present) and not timed_out:
            result.classes.append("unclear")
            result.details.append("; ".join([f"does not say {w!r}" for w in missing] + [f"says {w!r}" for w in present]))
        if case.stops_within is not None and case.interrupt and not timed_out \
                and result.seconds - case.interrupt[1] > case.stops_within:
            result.classes.append("slow to stop")
            result.details.append(f"stopped {result.seconds - case.interrupt[1]:.1f} s after the signal")
        if not timed_out and case.expect is not None and result.exit not in case.expect:
            result.classes.append("unexpected exit")
            last = [line for line in output.splitlines() if line.strip()][-1:] or [""]
            result.details.append(f"exit {result.exit}, expected {'/'.join(map(str, case.expect))}: {last[0][:90]}")

    def _cleanup(self, root: Path) -> None:
        subprocess.run(["chmod", "-R", "u+w", str(root)], check=False)  # undo read-only cases
        if self.keep:
            shutil.move(str(root), str(self.keep / root.name))
        else:
            shutil.rmtree(root, ignore_errors=True)


# ---------------------------------------------------------------- the table


def drafter_command(spec: str) -> list[str]:
    path = Path(spec)
    if path.is_dir():
        return [str(path / ".venv" / "bin" / "drafter")]
    words = shlex.split(spec)
    if words and os.path.exists(words[0]):
        words[0] = os.path.abspath(words[0])  # cases run in cwds of their own
    return words


def print_table(results: list[Result], title: str) -> None:
    counts = {c: sum(c in r.classes for r in results) for c in CLASSES}
    counts["not run"] = sum("not run" in r.classes for r in results)
    counts["clean"] = sum(not r.classes for r in results)
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        Console = None
    if Console is None:
        print(title)
        for r in results:
            print(f"{r.case:34} {(r.classes or ['clean'])[0]:15} exit {r.exit!s:>4} {r.seconds:6.1f}s  {'; '.join(r.details)}")
        print("  ".join(f"{k}: {n}" for k, n in counts.items()))
        return
    console = Console(markup=False, emoji=False, highlight=False, width=200)
    table = Table(title=title)
    for column in ("case", "class", "exit", "seconds", "details"):
        table.add_column(column, overflow="fold")
    for r in results:
        table.add_row(r.case, ", ".join(r.classes) or "clean", str(r.exit), f"{r.seconds:.1f}", "; ".join(r.details))
    console.print(table)
    summary = Table(title=f"{len(results)} cases (a case may be in several classes)")
    summary.add_column("class")
    summary.add_column("cases", justify="right")
    for name, n in counts.items():
        summary.add_row(name, str(n))
    console.print(summary)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drafter", default=str(Path(sys.executable).with_name("drafter")))
    parser.add_argument("--only", action="append", default=[], help="glob over case names; repeatable")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per case")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--keep", type=Path, help="move each case's folder here instead of deleting it")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args(argv)
    corpus = [c for c in cases() + own_cases() if not args.only or any(fnmatch.fnmatch(c.name, p) for p in args.only)]
    if args.list:
        print("\n".join(c.name for c in corpus))
        return 0
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    # A bench started in the background inherits SIGINT ignored, and so would every drafter it starts (an ignored
    # signal stays ignored across exec): the interruption cases would measure nothing.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    runner = Runner(drafter_command(args.drafter), args.timeout, args.keep)
    results = []
    try:
        for case in corpus:
            result = runner.run(case)
            results.append(result)
            print(f"[hostile] {case.name}: {', '.join(result.classes) or 'clean'} (exit {result.exit}, "
                  f"{result.seconds:.1f} s) {'; '.join(result.details)}", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(runner.top, ignore_errors=True)
    print_table(results, f"hostile world: {args.drafter}")
    if args.json:
        args.json.write_text(json.dumps([r.__dict__ for r in results], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
