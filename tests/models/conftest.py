"""A real OpenAI-compatible HTTP server on 127.0.0.1 with a scripted queue of responses per test."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from drafter.data import Extraction, Param, Prompt, Target


@dataclass
class Scripted:
    """One HTTP answer: JSON `body` (dict) or raw text (str), with status, headers and a delay."""

    status: int = 200
    body: dict | str = ""
    headers: dict = field(default_factory=dict)
    delay: float = 0.0


def completion(content: str | None, *, finish_reason: str = "stop", usage=(11, 7, 18), model: str = "test-model") -> dict:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "finish_reason": finish_reason,
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": usage[2]},
    }


def error_body(status: int, message: str) -> Scripted:
    return Scripted(status, {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}})


class FakeOpenAI:
    """Serves POST /v1/chat/completions from `queue` (then `default`), recording requests and concurrency."""

    def __init__(self):
        self.queue: list[Scripted] = []
        self.default: Scripted | None = None
        self.requests: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                length = int(self.headers.get("content-length", 0))
                payload = json.loads(self.rfile.read(length) or b"{}")
                with server.lock:
                    server.requests.append(payload)
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                    answer = server.queue.pop(0) if server.queue else server.default
                try:
                    if self.path != "/v1/chat/completions" or answer is None:
                        answer = Scripted(404, {"error": {"message": f"nothing scripted for {self.path}"}})
                    time.sleep(answer.delay)
                    raw = answer.body if isinstance(answer.body, str) else json.dumps(answer.body)
                    data = raw.encode()
                    self.send_response(answer.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for key, value in answer.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and hung up
                finally:
                    with server.lock:
                        server.in_flight -= 1

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def target_of(self, request: dict) -> str:
        return request["messages"][1]["content"].split()[-1]


@pytest.fixture
def openai_server():
    server = FakeOpenAI()
    server.thread.start()
    yield server
    server.httpd.shutdown()
    server.httpd.server_close()


def make_target(qualname: str, params: tuple[Param, ...] = (), returns: str | None = None, module: str = "pkg.mod",
                docstring: str | None = None, decorators: tuple[str, ...] = ()) -> Target:
    return Target(id=f"{module}:{qualname}", module=module, qualname=qualname, file="pkg/mod.py", line=1, end_line=2,
                  params=params, returns=returns, decorators=decorators, docstring=docstring, is_async=False,
                  fingerprint="0" * 16)


@pytest.fixture
def build_target():
    return make_target


@pytest.fixture
def prompts_for():
    """Prompts whose user text ends with the target id, so the server can tell targets apart."""

    def build(target_ids):
        return [Prompt(t, "system text", f"propose invariants for {t}") for t in target_ids]

    return build


@pytest.fixture
def extraction_of():
    def build(targets, classes=(), names=None):
        modules = {t.module for t in targets}
        module_names = names if names is not None else {
            m: tuple(sorted({t.qualname.split(".")[0] for t in targets if t.module == m} | {c.name for c in classes}))
            for m in modules}
        return Extraction(root="/nowhere", targets=tuple(targets), classes=tuple(classes), module_names=module_names)

    return build


@pytest.fixture
def oa():
    """Helpers to script answers (test files cannot import conftest under --import-mode=importlib)."""
    import types

    return types.SimpleNamespace(Scripted=Scripted, completion=completion, error_body=error_body)
