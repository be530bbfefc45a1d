"""The hostile world's corpus: the tiny tree, the fault-injecting model server and every case (bench/hostile_world.py)."""


from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

TARGET = "tiny.calc:add"

TINY = {
    "tiny/__init__.py": '"""A tiny package to draft for."""\n',
    "tiny/calc.py": (
        '"""Small arithmetic helpers."""\n\n\n'
        'def add(a: int, b: int) -> int:\n    """Return the sum of a and b."""\n    return a + b\n\n\n'
        'def clamp(x: int, low: int, high: int) -> int:\n    """Return x limited to the range [low, high]."""\n'
        "    return max(low, min(x, high))\n"
    ),
}
INTS = "st.integers(-100, 100)"


def candidate(name: str, body: str, inputs: dict | None = None, **extra) -> dict:
    return {"name": name, "kind": "invariant", "inputs": inputs or {"a": INTS, "b": INTS}, "assume": [],
            "body": body, "counterexample": "an add that ignores an argument", **extra}


GOOD = [candidate("add_commutes", "assert add(a, b) == add(b, a)"),
        candidate("add_zero_is_identity", "assert add(a, 0) == a", {"a": INTS})]
# The lint of the baseline let these through: getattr with a built dunder name reaches the builtins.
BUILTINS = "getattr(st.integers, '_' + '_globals__')['_' + '_builtins__']"


def escape(name: str, victim: Path, statement: str) -> dict:
    return candidate(name, statement.replace("VICTIM", repr(str(victim))) + "\nassert add(a, b) == add(b, a)")


# ---------------------------------------------------------------- an OpenAI-compatible server on 127.0.0.1


def completion(content: str) -> dict:
    return {"id": "chatcmpl-hostile", "object": "chat.completion", "created": 0, "model": "x",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


class FaultServer:
    """Answers POST <base>/<mode>/v1/chat/completions according to <mode>."""

    def __init__(self):
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("content-length", 0)))
                mode = self.path.strip("/").split("/")[0]
                try:
                    FaultServer.answer(self, mode)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, mode: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/{mode}/v1"

    @staticmethod
    def answer(handler: BaseHTTPRequestHandler, mode: str) -> None:
        def send(status: int, data: bytes, length: int | None = None) -> None:
            handler.send_response(status)
            handler.send_header("content-type", "application/json")
            handler.send_header("content-length", str(len(data) if length is None else length))
            handler.end_headers()
            handler.wfile.write(data)

        if mode == "drip":  # a valid start, then one byte every 50 ms for as long as the client listens
            send(200, b'{"id": "chatcmpl-drip", "choices": [', length=10_000_000)
            for _ in range(20 * 600):
                handler.wfile.write(b" ")
                handler.wfile.flush()
                time.sleep(0.05)
        elif mode == "cut":  # half the body under the whole body's length, then the connection closes
            data = json.dumps(completion(json.dumps({"candidates": GOOD}))).encode()
            send(200, data[: len(data) // 2], length=len(data))
            handler.close_connection = True
        elif mode == "redirect":  # to itself, for ever
            handler.send_response(307)
            handler.send_header("location", handler.path)
            handler.send_header("content-length", "0")
            handler.end_headers()
        elif mode == "hold":  # answers after a minute
            time.sleep(60)
            send(200, json.dumps(completion(json.dumps({"candidates": GOOD}))).encode())
        elif mode == "error500":
            send(500, json.dumps({"error": {"message": "internal error, forever", "type": "server_error"}}).encode())
        elif mode == "nonjson":
            send(200, b"<html><body>502 Bad Gateway</body></html> and more {{{")
        elif mode == "nested":
            send(200, b"[" * 100_000 + b"]" * 100_000)
        elif mode == "surrogate":  # lone surrogates as JSON escapes in the content, beside good candidates
            content = "\ud800 here:\n```json\n" + json.dumps({"candidates": GOOD}) + "\n```\n\udfff"
            send(200, json.dumps(completion(content)).encode())
        else:  # good
            send(200, json.dumps(completion(json.dumps({"candidates": GOOD}))).encode())


# ---------------------------------------------------------------- one case


@dataclass
class Ctx:
    """The folders of one case; a case's build() edits them and returns the drafter arguments."""

    root: Path
    server: FaultServer

    def __post_init__(self):
        self.src, self.cwd, self.home, self.tmp = (self.root / n for n in ("src", "cwd", "home", "tmp"))
        self.ws, self.victim = self.root / "ws", self.root / "victim"
        for folder in (self.cwd, self.home, self.tmp, self.victim):
            folder.mkdir(parents=True)
        write_tree(self.src, TINY)

    def replay(self, value, raw: bytes | None = None) -> str:
        path = self.root / "replies.json"
        path.write_bytes(raw if raw is not None else json.dumps(value).encode())
        return f"replay:{path}"

    def good_replay(self) -> str:
        return self.replay({TARGET: {"candidates": GOOD}})

    def run(self, model: str, *extra: str, select: tuple[str, ...] = (TARGET,), src: Path | None = None,
            jobs: bool = True, examples: bool = True) -> list[str]:
        args = ["run", str(src or self.src), "--model", model, "--workspace", str(self.ws)]
        args += ["--jobs", "1"] * jobs + ["--max-examples", "10"] * examples
        for pattern in select:
            args += ["--select", pattern]
        return args + list(extra)

    def openai(self, mode: str, model: str = "openai:x") -> list[str]:
        return self.run(model, "--base-url", self.server.url(mode), "--timeout", "5", "--retries", "0")


@dataclass
class Case:
    name: str
    build: Callable[[Ctx], list[str]]
    expect: tuple[int, ...] | None = (0,)
    seed: bool = True  # copy an earlier complete run into the workspace first
    protect_ws: bool = False  # the workspace path itself is something the user owns (a file, say)
    as_nobody: bool = False  # for read-only folders: root ignores permissions
    interrupt: tuple[int, float] | None = None  # (signal, after seconds)
    then_clean_run: bool = False  # after the case, a normal run in the same workspace must succeed
    says: tuple[str, ...] = ()  # the output must name these (whitespace normalised: rich wraps lines)
    never_says: tuple[str, ...] = ()
    stops_within: float | None = None  # seconds from the interrupt to the end of the process


def write_tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


# ---------------------------------------------------------------- the corpus


def reply(value) -> Callable[[Ctx], list[str]]:
    return lambda ctx: ctx.run(ctx.replay({TARGET: value}))


def reply_candidates(make: Callable[[Ctx], list[dict]]) -> Callable[[Ctx], list[str]]:
    return lambda ctx: ctx.run(ctx.replay({TARGET: {"candidates": make(ctx) + GOOD}}))


def with_files(files: dict[str, str | bytes], *select: str, model=None) -> Callable[[Ctx], list[str]]:
    def build(ctx: Ctx) -> list[str]:
        for rel, content in files.items():
            path = ctx.src / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content if isinstance(content, bytes) else content.encode())
        replies = {TARGET: {"candidates": GOOD}} | (model or {})
        return ctx.run(ctx.replay(replies), select=select or (TARGET,))
    return build


def fifo(ctx: Ctx) -> list[str]:
    os.mkfifo(ctx.src / "tiny" / "pipe.py")
    return ctx.run(ctx.good_replay())


def symlink_loop(ctx: Ctx) -> list[str]:
    (ctx.src / "tiny" / "loop").symlink_to("loop")
    (ctx.src / "tiny" / "ring_a").symlink_to("ring_b")
    (ctx.src / "tiny" / "ring_b").symlink_to("ring_a")
    (ctx.src / "tiny" / "up").symlink_to("..")  # a folder link into itself
    return ctx.run(ctx.good_replay())


def symlink_outside(ctx: Ctx) -> list[str]:
    (ctx.victim / "secret.py").write_text('def leak(x: int) -> int:\n    """Outside SRC."""\n    return x\n')
    (ctx.src / "tiny" / "secret.py").symlink_to(ctx.victim / "secret.py")
    return ctx.run(ctx.good_replay())


def non_utf8_name(ctx: Ctx) -> list[str]:
    name = os.fsdecode(b"caf\xe9.py")
    (ctx.src / "tiny" / name).write_text('def brew(x: int) -> int:\n    """Brew."""\n    return x\n')
    return ctx.run(ctx.good_replay())


def surrogate_docstring(ctx: Ctx) -> list[str]:
    calc = ctx.src / "tiny" / "calc.py"
    calc.write_text(calc.read_text().replace("Return the sum of a and b.", "Return the sum \\ud800 of a and b."))
    return ctx.run(ctx.good_replay())


def big_module(ctx: Ctx) -> list[str]:
    body = "".join(f'def f{i}(x: int) -> int:\n    """Return x plus {i}."""\n    return x + {i}\n\n'
                   for i in range(12_500))  # 50,000 lines
    (ctx.src / "tiny" / "big.py").write_text(body)
    f0 = candidate("f0_is_identity", "assert f0(x) == x", {"x": INTS})
    return ctx.run(ctx.replay({"tiny.big:f0": {"candidates": [f0]}}), select=("tiny.big:f0",))


def no_module(ctx: Ctx) -> list[str]:
    shutil.rmtree(ctx.src)
    ctx.src.mkdir()
    (ctx.src / "README.txt").write_text("no Python here\n")
    return ctx.run(ctx.good_replay(), select=())


def workspace_is(kind: str) -> Callable[[Ctx], list[str]]:
    def build(ctx: Ctx) -> list[str]:
        ctx.preserve = {}
        if kind == "file":
            ctx.ws.write_text("my notes\n")
            ctx.preserve = {ctx.ws: "my notes\n"}
        elif kind == "latest-folder":
            (ctx.ws / "latest").mkdir(parents=True)
            ctx.preserve = {ctx.ws / "latest" / "mine.txt": "keep me\n"}
        elif kind == "runs-file":
            ctx.ws.mkdir()
            ctx.preserve = {ctx.ws / "runs": "not a folder\n"}
        for path, text in ctx.preserve.items():
            path.write_text(text)
        return ctx.run(ctx.good_replay())
    return build


def read_only(which: str) -> Callable[[Ctx], list[str]]:
    def build(ctx: Ctx) -> list[str]:
        ctx.read_only = ctx.ws if which == "ws" else ctx.cwd
        return ctx.run(ctx.good_replay())
    return build


def config(text: str, **drop) -> Callable[[Ctx], list[str]]:
    def build(ctx: Ctx) -> list[str]:
        (ctx.cwd / "drafter.toml").write_text(text)
        return ctx.run(ctx.good_replay(), **drop)
    return build


def brackets(ctx: Ctx) -> list[str]:
    src = ctx.root / "[bold red]src :x:"  # markup that needs no "/" (a "[/]" would be a subfolder)
    ctx.src.rename(src)
    ctx.src = src
    ctx.ws = ctx.root / "ws [link=x]y"
    return ctx.run(ctx.good_replay(), src=src)


def cwd_inside_src(ctx: Ctx) -> list[str]:
    ctx.cwd = ctx.src / "tiny"
    return ctx.run(ctx.good_replay())


def slow_import(ctx: Ctx) -> list[str]:
    (ctx.src / "tiny" / "slow.py").write_text(
        'import time\n\ntime.sleep(30)\n\n\ndef later(x: int) -> int:\n    """Return x."""\n    return x\n')
    return ctx.run(ctx.good_replay(), select=(TARGET, "tiny.slow:*"))


def many_candidates(ctx: Ctx) -> list[dict]:
    return [candidate(f"commutes_{i}", f"assert add(a, b) + {i} == add(b, a) + {i}") for i in range(10_000)]


def cases() -> list[Case]:
    v = lambda ctx: ctx.victim / "pwned"
    return [
        # replies through a replay file
        Case("reply_nested_100k", reply("[" * 100_000 + "]" * 100_000)),
        Case("reply_int_5000_digits", reply('{"candidates": [{"name": "n", "inputs": {"a": ' + "9" * 5000 + "}}]}")),
        Case("reply_lone_surrogates", reply("\ud800 sure:\n```json\n" + json.dumps(
            {"candidates": [dict(GOOD[0], rationale="\udfff odd")] + GOOD[1:]}) + "\n```\udfff")),
        Case("reply_3mb_braces", reply("{" * 3_000_000)),
        Case("reply_10000_candidates", reply_candidates(many_candidates)),
        Case("reply_is_a_number", reply(42)),
        Case("reply_deep_expression", reply_candidates(lambda ctx: [
            candidate("deep", "assert add(a, b) == " + "(" * 100_000 + "a + b" + ")" * 100_000)])),
        Case("reply_long_operator_chain", reply_candidates(lambda ctx: [
            candidate("chain", "assert add(a, b) == " + " + ".join(["a"] * 50_000))])),
        Case("reply_null_byte_in_body", reply_candidates(lambda ctx: [
            candidate("nul", "assert add(a, b) == add(b, a)\x00")])),
        Case("candidate_name_400_chars", reply_candidates(lambda ctx: [dict(GOOD[0], name="n" * 400)])),
        Case("candidate_writes_via_open", reply_candidates(lambda ctx: [
            escape("via_open", v(ctx), f"{BUILTINS}['open'](VICTIM, 'w').write('pwned')")])),
        Case("candidate_writes_via_os_system", reply_candidates(lambda ctx: [
            escape("via_system", v(ctx), f"{BUILTINS}['_' + '_import__']('o' + 's').system('touch ' + VICTIM)")])),
        Case("candidate_writes_via_strategy_map", reply_candidates(lambda ctx: [candidate("via_map", "assert add(a, b) == add(b, a)", {
            "a": f"st.integers(0, 3).map(lambda n: {BUILTINS}['_' + '_import__']('path' + 'lib')"
                 f".Path({str(v(ctx))!r}).write_text('p') and n)", "b": INTS})])),
        # files made without the `open` audit event, and a body stuck in C code the soft timer cannot interrupt
        Case("candidate_writes_via_sqlite3", reply_candidates(lambda ctx: [
            escape("via_sqlite3", v(ctx), f"{BUILTINS}['_' + '_import__']('sql' + 'ite3').connect(VICTIM)"
                                          ".execute('create table t(a)')")])),
        Case("candidate_makes_a_fifo", reply_candidates(lambda ctx: [
            escape("via_mkfifo", v(ctx), f"{BUILTINS}['_' + '_import__']('o' + 's').mkfifo(VICTIM)")])),
        Case("candidate_stuck_in_c", reply_candidates(lambda ctx: [
            escape("in_c", v(ctx), f"{BUILTINS}['_' + '_import__']('hash' + 'lib').pbkdf2_hmac('sha256', b'x', b'y', "
                                   "10 ** 9)")])),
        Case("replay_unknown_key", lambda ctx: ctx.run(ctx.replay({TARGET: {"candidates": GOOD},
                                                                   "tiny.calc:subtract": {"candidates": GOOD}})),
             says=("tiny.calc:subtract",)),
        Case("replay_invalid_utf8", lambda ctx: ctx.run(ctx.replay(None, raw=b'{"tiny.calc:add": "\xff\xfe"}')),
             expect=(2,)),
        Case("replay_nested_100k", lambda ctx: ctx.run(ctx.replay(None, raw=b"[" * 100_000 + b"]" * 100_000)),
             expect=(2,)),
        Case("replay_is_a_list", lambda ctx: ctx.run(ctx.replay([GOOD])), expect=(2,)),
        # an OpenAI-compatible server on 127.0.0.1
        Case("server_drips_bytes", lambda ctx: ctx.openai("drip"), expect=(0, 2), says=("timed out",)),
        Case("server_500_forever", lambda ctx: ctx.openai("error500"), expect=(0, 2)),
        Case("server_non_json_body", lambda ctx: ctx.openai("nonjson"), expect=(0, 2)),
        Case("server_nested_body", lambda ctx: ctx.openai("nested"), expect=(0, 2)),
        Case("server_lone_surrogates", lambda ctx: ctx.openai("surrogate")),
        Case("model_name_with_emoji", lambda ctx: ctx.openai("good", model="openai:x❌ :warning: [red]")),
        # source trees
        Case("src_fifo", fifo),
        Case("src_symlink_loop", symlink_loop),
        Case("src_symlink_leaving_src", symlink_outside),
        Case("src_non_utf8_file_name", non_utf8_name),
        Case("src_undecodable_module", with_files({"tiny/latin.py": b'"""Caf\xe9."""\n\ndef brew(x):\n    return x\n'})),
        Case("src_syntax_error_beside", with_files({"tiny/broken.py": "def broken(:\n"})),
        Case("src_oversized_module", with_files({"tiny/huge.py": "# " + "x" * 3_000_000 + "\n\ndef f(x):\n    return x\n"})),
        Case("src_sleeps_30s_at_import", slow_import, expect=(0, 2)),
        Case("src_surrogate_in_docstring", surrogate_docstring),
        Case("src_50000_line_module", big_module),
        Case("src_no_module", no_module, expect=(2,)),
        Case("select_matches_nothing", lambda ctx: ctx.run(ctx.good_replay(), select=("tiny.nothing:*",)), expect=(2,)),
        # workspace and options
        Case("workspace_is_a_file", workspace_is("file"), expect=(2,), seed=False, protect_ws=True),
        Case("workspace_read_only", read_only("ws"), expect=(2,), as_nobody=True),
        Case("workspace_latest_is_a_folder", workspace_is("latest-folder"), expect=(0, 2), seed=False, protect_ws=True),
        Case("workspace_runs_is_a_file", workspace_is("runs-file"), expect=(2,), seed=False, protect_ws=True),
        Case("config_jobs_inf", config("jobs = inf\n", jobs=False), expect=(2,)),
        Case("config_max_examples_0", config("max-examples = 0\n", examples=False), expect=(2,)),
        Case("path_with_brackets", brackets, seed=False),
        Case("cwd_inside_src", cwd_inside_src),
        Case("cwd_read_only", read_only("cwd"), as_nobody=True),
        # interruption
        Case("sigint_mid_run", slow_import, expect=(130,), interrupt=(signal.SIGINT, 6.0), then_clean_run=True),
        Case("sigkill_mid_run", slow_import, expect=(-9,), interrupt=(signal.SIGKILL, 6.0), then_clean_run=True),
    ]


# ---------------------------------------------------------------- drafter's own commands on its own files (issue 20)

DEEP = "[" * 10_000 + "]" * 10_000
PROMOTED = "test_tiny_calc_add__add_commutes.py"


def seeded_run(ctx: Ctx) -> Path:
    return (ctx.ws / "latest").resolve()


def edit_report(ctx: Ctx, edit: Callable[[dict], None]) -> Path:
    """A copy of the seeded run (outside the workspace, which the harness checks) with its report.json edited."""
    run = ctx.tmp / "runs" / seeded_run(ctx).name
    if not run.exists():
        shutil.copytree(seeded_run(ctx), run)
    report = json.loads((run / "report.json").read_text())
    edit(report)
    (run / "report.json").write_text(json.dumps(report))
    return run


def promote_into(into: Callable[[Ctx], Path], prepare: Callable[[Ctx, Path], None] = lambda ctx, into: None):
    def build(ctx: Ctx) -> list[str]:
        folder = into(ctx)
        prepare(ctx, folder)
        return ["promote", "--all-kept", str(edit_report(ctx, lambda report: None)), "--into", str(folder)]
    return build


def under_a_file(ctx: Ctx) -> Path:
    (ctx.tmp / "notes.txt").write_text("mine\n")
    return ctx.tmp / "notes.txt" / "props"


def folder_in_the_way(ctx: Ctx, into: Path) -> None:
    (into / PROMOTED).mkdir(parents=True)


def deep_lock(ctx: Ctx, into: Path) -> None:
    into.mkdir(parents=True)
    (into / "drafted.lock.json").write_text(DEEP)


def candidates_5(ctx: Ctx, into: Path) -> None:
    edit_report(ctx, lambda r: r.update(candidates=[5]))


def escaping_name(ctx: Ctx, into: Path) -> None:
    def poison(report):
        for c in report["candidates"]:
            c["name"] = "x/../../../escape"
    edit_report(ctx, poison)
    (into / "test_tiny_calc_add__x").mkdir(parents=True)  # so that the escape resolves on a system that allows it


def report_of(edit: Callable[[dict], None] | None, fmt: str, raw: str | None = None) -> Callable[[Ctx], list[str]]:
    def build(ctx: Ctx) -> list[str]:
        run = edit_report(ctx, edit or (lambda report: None))
        if raw is not None:
            (run / "report.json").write_text(raw)
        return ["report", str(run), "--format", fmt]
    return build


def refresh(ctx: Ctx, *extra: str) -> list[str]:
    return ["refresh", str(ctx.src), "--model", ctx.good_replay(), "--workspace", str(ctx.ws), "--jobs", "1",
            "--select", TARGET, *extra]


def baseline_run_json_list(ctx: Ctx) -> list[str]:
    (seeded_run(ctx) / "run.json").write_text("[]")
    return refresh(ctx)


def corrupt_reply_cache(value) -> Callable[[Ctx], list[str]]:
    def build(ctx: Ctx) -> list[str]:
        args = ctx.openai("good")
        ctx.prime(args)  # stores the reply in workspace/cache/replies/
        for entry in (ctx.ws / "cache" / "replies").rglob("*.json"):
            entry.write_text(value if isinstance(value, str) else json.dumps(value))
        return args
    return build


def mutant_rows_not_objects(ctx: Ctx) -> list[str]:
    for entry in (ctx.ws / "cache" / "mutants").rglob("*.json"):
        data = json.loads(entry.read_text())
        data["mutants"] = [5 for _ in data["mutants"]]
        entry.write_text(json.dumps(data))
    return ctx.run(ctx.good_replay())


def closed_port(ctx: Ctx) -> list[str]:
    import socket

    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{unused.getsockname()[1]}/v1"
    ctx.says = (url,)
    return ctx.run("openai:x", "--base-url", url, "--timeout", "5", "--retries", "0")


def long_target_name(ctx: Ctx) -> list[str]:
    (ctx.src / "tiny" / "long.py").write_text(f'def add_{"x" * 300}(a: int) -> int:\n    """Return a."""\n    return a\n')
    return ctx.run(ctx.good_replay(), select=(TARGET, "tiny.long:*"))


def only_unreadable(ctx: Ctx) -> list[str]:
    shutil.rmtree(ctx.src)
    (ctx.src / "tiny").mkdir(parents=True)
    (ctx.src / "tiny" / "latin.py").write_bytes(b'"""Caf\xe9."""\n\ndef brew(x):\n    return x\n')
    return ctx.run(ctx.good_replay(), select=())


def fifo_heuristic(ctx: Ctx) -> list[str]:
    os.mkfifo(ctx.src / "tiny" / "pipe.py")
    return ctx.run("heuristic")


def own_cases() -> list[Case]:
    tmp_into = lambda ctx: ctx.tmp / "props"
    surrogate_body = dict(GOOD[0], name="odd", body="assert add(a, b) == add(b, a)  # \ud800")
    loud = "import sys\nsys.stderr.write('x' * 125_000)\n\n\ndef shout(x: int) -> int:\n    \"\"\"x.\"\"\"\n    return x\n"
    writer = "open('made-at-import.txt', 'w').write('x')\n\n\ndef w(x: int) -> int:\n    \"\"\"x.\"\"\"\n    return x\n"
    return [
        Case("promote_into_under_a_file", promote_into(under_a_file), expect=(2,), says=("notes.txt",)),
        Case("promote_destination_is_a_folder", promote_into(tmp_into, folder_in_the_way), expect=(2,),
             says=("not a file",)),
        Case("promote_lock_nested_10000", promote_into(tmp_into, deep_lock), expect=(2,), says=("drafted.lock.json",)),
        Case("promote_candidates_is_5", promote_into(tmp_into, candidates_5), expect=(2,), says=("candidates[0]",)),
        Case("promote_name_escapes_into", promote_into(tmp_into, escaping_name), expect=(2,), says=("escape",)),
        *(Case(f"report_{fmt}_wrong_shape", report_of(lambda r: r["summary"]["mutants"].pop("killed"), fmt),
               expect=(2,), says=("summary.mutants.killed",)) for fmt in ("md", "json", "html")),
        *(Case(f"report_{fmt}_nested_10000", report_of(None, fmt, DEEP), expect=(2,), says=("report.json",))
          for fmt in ("md", "json", "html")),
        Case("refresh_baseline_run_json_list", baseline_run_json_list, expect=(2,), says=("run.json",)),
        Case("refresh_takes_the_run_options", lambda ctx: refresh(
            ctx, "--max-examples", "10", "--seeds", "1", "--rounds", "1", "--max-calls", "5", "--max-tokens", "10000"),
             expect=(1,)),
        Case("reply_cache_usage_strings", corrupt_reply_cache({"text": json.dumps({"candidates": GOOD}),
                                                               "usage": {"prompt_tokens": "many"}}),
             says=("usage.prompt_tokens",)),
        Case("reply_cache_nested_10000", corrupt_reply_cache(DEEP), says=("reply cache entry",)),
        Case("mutant_cache_rows_not_objects", mutant_rows_not_objects, says=("mutants[0]",)),
        Case("replay_rounds_key_superscript", lambda ctx: ctx.run(ctx.replay(
            {TARGET: {"candidates": GOOD}, "rounds": {"\u00b2": {TARGET: {"candidates": GOOD}}}})),
             expect=(2,), says=("rounds",)),
        Case("reply_surrogate_in_body", reply_candidates(lambda ctx: [surrogate_body])),
        Case("src_fifo_heuristic_model", fifo_heuristic),
        Case("src_prints_125kb_at_import", with_files({"tiny/loud.py": loud}, TARGET, "tiny.loud:*"),
             never_says=("does not import",)),
        Case("src_writes_a_file_at_import", with_files({"tiny/writer.py": writer}, TARGET, "tiny.writer:*"),
             never_says=("does not import",)),
        Case("src_hypothesis_py_shadows", with_files({"hypothesis.py": "raise RuntimeError('not Hypothesis')\n"}),
             never_says=("tiny.calc does not import",)),
        Case("src_only_unreadable_files", only_unreadable, expect=(2,), says=("latin.py",)),
        Case("src_target_name_300_chars", long_target_name),
        Case("server_closes_mid_body", lambda ctx: ctx.run("openai:x", "--base-url", ctx.server.url("cut"),
                                                           "--timeout", "5", "--retries", "1"),
             expect=(0, 2), says=("2 attempts",)),
        Case("server_redirect_loop", lambda ctx: ctx.openai("redirect"), expect=(0, 2), says=("redirect",)),
        Case("server_unreachable", closed_port, expect=(0, 2)),
        Case("sigint_during_model_call", lambda ctx: ctx.run("openai:x", "--base-url", ctx.server.url("hold"),
                                                             "--timeout", "100", "--retries", "0"),
             expect=(130,), interrupt=(signal.SIGINT, 10.0), stops_within=5.0),  # the hold is 60 s
        Case("config_bad_workspace_with_option", config("workspace = 5\n"), expect=(2,), says=("workspace",)),
    ]
