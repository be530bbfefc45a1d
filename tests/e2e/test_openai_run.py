"""`drafter run` against a real OpenAI-compatible server on 127.0.0.1 that answers like a model would."""

import json
import socket
from pathlib import Path

from typer.testing import CliRunner

from drafter.cli import app

SHOP = Path(__file__).resolve().parents[2] / "examples" / "shop"
runner = CliRunner()


def _target_of(request: dict) -> str:
    user = request["messages"][-1]["content"]
    return user.splitlines()[0].removeprefix("Target: ").split()[0]


def test_run_through_openai_client_matches_the_replay_verdicts(openai_server, oa, tmp_path, monkeypatch):
    replies = json.loads((SHOP / "replies.json").read_text())
    expected = json.loads((SHOP / "replies.expected.json").read_text())

    def answer(request: dict):
        reply = replies[_target_of(request)]
        text = reply if isinstance(reply, str) else json.dumps(reply)
        return oa.Scripted(200, oa.completion(text, usage=(100, 40, 140)))

    openai_server.responder = answer
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    workspace = tmp_path / "ws"
    result = runner.invoke(app, [
        "run", str(SHOP), "--model", "openai:local-test", "--base-url", openai_server.base_url,
        "--select", "shop.billing:*", "--workspace", str(workspace), "--jobs", "1", "--max-examples", "30",
    ])
    assert result.exit_code == 0, result.output

    report = json.loads((workspace / "latest" / "report.json").read_text())
    billing_expected = {k: v for k, v in expected.items() if k.startswith("shop.billing:")}
    assert {c["id"]: [c["stage"], c["reason"]] for c in report["candidates"]} == billing_expected
    calls = len(openai_server.requests)
    assert calls == len(report["targets"]) == 4
    assert report["summary"]["tokens"]["total_tokens"] == 140 * calls
    per_call = json.loads((workspace / "latest" / "model_calls.json").read_text())
    assert [c["usage"]["total_tokens"] for c in per_call] == [140] * calls
    # the prompt that reached the server is the rendered template, and names corpus files only by name
    assert "def apply_tax(amount: Decimal, rate: Decimal) -> Decimal" in json.dumps(openai_server.requests)


def test_unreachable_server_is_an_environment_error(tmp_path, monkeypatch):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    result = runner.invoke(app, [
        "draft", str(SHOP), "--model", "openai:local-test", "--base-url", f"http://127.0.0.1:{port}/v1",
        "--retries", "0", "--timeout", "5", "--select", "shop.billing:apply_tax", "--workspace", str(tmp_path / "ws"),
    ])
    assert result.exit_code == 2
    assert "every model call failed" in result.output and "openai:local-test" in result.output
