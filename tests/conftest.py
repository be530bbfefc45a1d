"""Shared fixtures. Hypothesis never keeps an example database across our own test runs."""

import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("drafter-tests", database=None, derandomize=True)
settings.load_profile("drafter-tests")

REPO = Path(__file__).resolve().parent.parent
SHOP = REPO / "examples" / "shop"


@pytest.fixture
def stable_report() -> Callable[..., dict]:
    """report.json without what differs between two runs of the same inputs: the run id, the checkout's HEAD (not
    an input of a run) and every timing; `dropped_warnings`: prefixes of warnings one of the runs may add."""

    def view(report_path: Path, dropped_warnings: tuple[str, ...] = ()) -> dict:
        data = json.loads(Path(report_path).read_text())
        data.pop("run_id")
        data["source"].pop("git_commit")
        for key in ("seconds", "cpu_seconds"):
            data["summary"].pop(key)
        for key in ("seconds", "test_seconds", "timeout_seconds"):
            data["summary"]["matrix"].pop(key)
        if dropped_warnings:
            data["warnings"] = [w for w in data["warnings"] if not w.startswith(dropped_warnings)]
        return data

    return view


@pytest.fixture
def shop_src() -> Path:
    """The bundled example SRC (read-only: copy it before changing anything)."""
    return SHOP


# ---------------------------------------------------------------- a real OpenAI-compatible server on 127.0.0.1


@dataclass
class Scripted:
    """One HTTP answer: JSON `body` (dict) or raw text (str), with status, headers and a delay."""

    status: int = 200
    body: dict | str = ""
    headers: dict = field(default_factory=dict)
    delay: float = 0.0
    drip: float = 0.0  # seconds between single bytes of the body: a server that never stops sending
    cut: bool = False  # send half the body under the whole body's content-length, then close the connection


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
        self.responder: Callable[[dict], Scripted] | None = None  # answers from the request when the queue is empty
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
                    answer = server.queue.pop(0) if server.queue else None
                if answer is None:
                    answer = server.responder(payload) if server.responder else server.default
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
                    if answer.cut:
                        self.wfile.write(data[: len(data) // 2])
                        self.wfile.flush()
                        self.close_connection = True
                        self.connection.shutdown(socket.SHUT_RDWR)
                    elif not answer.drip:
                        self.wfile.write(data)
                    for byte in data if answer.drip else b"":
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(answer.drip)
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


@pytest.fixture
def oa():
    """Helpers to script answers (test files cannot import conftest under --import-mode=importlib)."""
    import types

    return types.SimpleNamespace(Scripted=Scripted, completion=completion, error_body=error_body)
