"""The openai: backend with the real `openai` client against a scripted server on 127.0.0.1."""

from __future__ import annotations

import json

import pytest

from drafter.data import TokenUsage
from drafter.errors import ConfigError
from drafter.models import load_backend
from drafter.models.openai_compat import OpenAIBackend

GOOD = json.dumps({"candidates": [{"name": "x", "kind": "bound", "inputs": {}, "body": "assert f() >= 0",
                                   "counterexample": "negative"}]})


def backend(server, **options) -> OpenAIBackend:
    options.setdefault("backoff", 0.01)
    return OpenAIBackend("test-model", api_key="k", base_url=server.base_url, **options)


def run(be, ids, prompts_for, extraction_of, build_target):
    seen = []
    targets = [build_target(i.split(":")[1]) for i in ids]
    replies = be.propose(prompts_for(ids), extraction_of(targets), on_reply=seen.append)
    assert [r.target for r in replies] == list(ids)  # prompt order, whatever the finishing order
    assert sorted(r.target for r in seen) == sorted(ids)
    return replies


def test_canned_replies_structured_request_and_usage(openai_server, oa, prompts_for, extraction_of, build_target):
    openai_server.queue = [oa.Scripted(body=oa.completion(GOOD, usage=(100, 20, 120)))]
    be = backend(openai_server, temperature=0.7, max_tokens=500)
    (reply,) = run(be, ["pkg.mod:f"], prompts_for, extraction_of, build_target)
    assert reply.text == GOOD and reply.error is None
    assert reply.usage == TokenUsage(100, 20, 120)
    assert reply.model == "openai:test-model"
    (request,) = openai_server.requests
    assert request["response_format"]["type"] == "json_schema"
    assert "candidates" in request["response_format"]["json_schema"]["schema"]["properties"]
    assert request["temperature"] == 0.7 and request["max_tokens"] == 500
    assert [m["role"] for m in request["messages"]] == ["system", "user"]


def test_429_then_success_is_retried(openai_server, oa, prompts_for, extraction_of, build_target):
    openai_server.queue = [
        oa.Scripted(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "0"}),
        oa.Scripted(body=oa.completion(GOOD)),
    ]
    (reply,) = run(backend(openai_server), ["pkg.mod:f"], prompts_for, extraction_of, build_target)
    assert reply.text == GOOD and reply.error is None
    assert len(openai_server.requests) == 2


def test_500_after_retries_fails_that_target_only(openai_server, oa, prompts_for, extraction_of, build_target):
    openai_server.queue = [oa.Scripted(500, {"error": {"message": "boom"}})] * 3 + [oa.Scripted(body=oa.completion(GOOD))]
    be = backend(openai_server, concurrency=1, retries=2)
    bad, good = run(be, ["pkg.mod:f", "pkg.mod:g"], prompts_for, extraction_of, build_target)
    assert bad.text is None and "HTTP 500" in bad.error and "after 3 attempts" in bad.error
    assert good.text == GOOD and good.error is None
    assert len(openai_server.requests) == 4


def test_malformed_body_is_an_error_reply(openai_server, oa, prompts_for, extraction_of, build_target):
    openai_server.queue = [oa.Scripted(body="this is {not json"), oa.Scripted(body=oa.completion(GOOD))]
    bad, good = run(backend(openai_server, concurrency=1), ["pkg.mod:f", "pkg.mod:g"], prompts_for, extraction_of,
                    build_target)
    assert bad.text is None and "malformed" in bad.error
    assert good.text == GOOD


def test_truncated_reply_keeps_text_and_says_why(openai_server, oa, prompts_for, extraction_of, build_target):
    cut = GOOD[: len(GOOD) // 2]
    openai_server.queue = [oa.Scripted(body=oa.completion(cut, finish_reason="length")),
                           oa.Scripted(body=oa.completion(GOOD))]
    cut_reply, whole = run(backend(openai_server, concurrency=1), ["pkg.mod:f", "pkg.mod:g"], prompts_for,
                           extraction_of, build_target)
    assert cut_reply.text == cut and "truncated" in cut_reply.error
    assert whole.text == GOOD and whole.error is None


def test_schema_rejection_falls_back_to_plain_text_for_the_rest(openai_server, oa, prompts_for, extraction_of,
                                                                 build_target):
    openai_server.queue = [oa.error_body(400, "response_format json_schema is not supported by this server")]
    openai_server.default = oa.Scripted(body=oa.completion(GOOD))
    be = backend(openai_server, concurrency=1)
    replies = run(be, ["pkg.mod:f", "pkg.mod:g"], prompts_for, extraction_of, build_target)
    assert all(r.text == GOOD for r in replies)
    assert not be.structured
    assert ["response_format" in r for r in openai_server.requests] == [True, False, False]


def test_other_400_is_not_a_schema_rejection(openai_server, oa, prompts_for, extraction_of, build_target):
    openai_server.queue = [oa.error_body(400, "model 'nope' does not exist"), oa.Scripted(body=oa.completion(GOOD))]
    be = backend(openai_server, concurrency=1)
    bad, good = run(be, ["pkg.mod:f", "pkg.mod:g"], prompts_for, extraction_of, build_target)
    assert bad.text is None and "HTTP 400" in bad.error and "does not exist" in bad.error
    assert good.text == GOOD and be.structured
    assert len(openai_server.requests) == 2  # a 400 is not retried


def test_concurrency_is_bounded(openai_server, oa, prompts_for, extraction_of, build_target):
    openai_server.default = oa.Scripted(body=oa.completion(GOOD), delay=0.15)
    ids = [f"pkg.mod:f{i}" for i in range(8)]
    replies = run(backend(openai_server, concurrency=3), ids, prompts_for, extraction_of, build_target)
    assert all(r.text == GOOD for r in replies)
    assert 2 <= openai_server.max_in_flight <= 3


def test_timeout_is_retried_then_reported(openai_server, oa, prompts_for, extraction_of, build_target):
    slow = oa.Scripted(body=oa.completion(GOOD), delay=1.0)
    openai_server.queue = [slow, slow, oa.Scripted(body=oa.completion(GOOD))]
    be = backend(openai_server, concurrency=1, timeout=0.3, retries=1)
    bad, good = run(be, ["pkg.mod:f", "pkg.mod:g"], prompts_for, extraction_of, build_target)
    assert bad.text is None and "timed out" in bad.error and bad.error.endswith("after 2 attempts")
    assert good.text == GOOD


def test_api_key_rules(monkeypatch, openai_server):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        load_backend("openai:gpt-4o-mini")
    local = load_backend("openai:llama", base_url=openai_server.base_url)  # local server: placeholder key
    assert local.name == "openai:llama"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert load_backend("openai:gpt-4o-mini").name == "openai:gpt-4o-mini"


@pytest.mark.parametrize("spec", ["", "gpt-4", "openai:", "replay:", "heuristics", "local:x"])
def test_bad_spec_names_it_and_lists_forms(spec):
    with pytest.raises(ConfigError) as info:
        load_backend(spec)
    assert repr(spec) in str(info.value) and "replay:PATH" in str(info.value) and "openai:MODEL" in str(info.value)
    assert load_backend("heuristic").name == "heuristic"


@pytest.mark.parametrize("body", [
    {"choices": [{"message": "not an object"}]},
    {"choices": [{"message": {"role": "assistant", "content": 5}}]},
    {"choices": "none"},
    [],
    "null",
])
def test_a_200_of_odd_shape_fails_that_target_only(body, openai_server, oa, prompts_for, extraction_of, build_target):
    openai_server.queue = [oa.Scripted(body=body), oa.Scripted(body=oa.completion(GOOD))]
    bad, good = run(backend(openai_server, concurrency=1), ["pkg.mod:f", "pkg.mod:g"], prompts_for, extraction_of,
                    build_target)
    assert bad.text is None and "malformed response" in bad.error
    assert good.text == GOOD and good.error is None


def test_odd_token_counts_are_recorded_as_zero_not_a_crash(openai_server, oa, prompts_for, extraction_of,
                                                           build_target):
    odd = oa.completion(GOOD)
    odd["usage"] = {"prompt_tokens": "many", "completion_tokens": 3}
    openai_server.queue = [oa.Scripted(body=odd)]
    (reply,) = run(backend(openai_server), ["pkg.mod:f"], prompts_for, extraction_of, build_target)
    assert reply.text == GOOD and reply.usage == TokenUsage(0, 3, 3)


def test_a_server_that_drips_bytes_is_cut_off_at_the_whole_call_deadline(openai_server, oa, prompts_for,
                                                                         extraction_of, build_target):
    import time

    dripping = oa.Scripted(body=oa.completion(GOOD), drip=0.05)  # each read is quick; the whole body takes ~15 s
    openai_server.queue = [dripping, oa.Scripted(body=oa.completion(GOOD))]
    be = backend(openai_server, concurrency=1, retries=0, timeout=1.0)
    started = time.monotonic()
    slow, fast = run(be, ["pkg.mod:f", "pkg.mod:g"], prompts_for, extraction_of, build_target)
    assert time.monotonic() - started < 8
    assert slow.text is None and "timed out" in slow.error and "--timeout 1 s" in slow.error
    assert fast.text == GOOD and fast.error is None


def test_a_body_nested_past_the_limit_is_an_error_reply_not_a_crash(openai_server, oa, prompts_for, extraction_of,
                                                                   build_target):
    openai_server.queue = [oa.Scripted(body="[" * 100_000 + "]" * 100_000), oa.Scripted(body=oa.completion(GOOD))]
    bad, good = run(backend(openai_server, concurrency=1), ["pkg.mod:f", "pkg.mod:g"], prompts_for, extraction_of,
                    build_target)
    assert bad.text is None and "nested" in bad.error
    assert good.text == GOOD


def test_server_faults_are_retried_or_named_and_the_next_call_still_works(openai_server, oa, prompts_for,
                                                                          extraction_of, build_target):
    """Issue 20, the server class: a connection closed mid-body is retried up to --retries; a redirect loop is
    named (and not retried); a dripping server's error says the call timed out; an unreachable server's error
    names its URL. A good answer beside each still comes through."""
    good = oa.Scripted(body=oa.completion(GOOD))
    cut = oa.Scripted(body=oa.completion(GOOD), cut=True)
    openai_server.queue = [cut, cut, cut, good]
    be = backend(openai_server, concurrency=1, retries=2)
    broken, fine = run(be, ["pkg.mod:f", "pkg.mod:g"], prompts_for, extraction_of, build_target)
    assert broken.text is None and "broke mid-answer" in broken.error and "after 3 attempts" in broken.error
    assert len(openai_server.requests) == 4 and fine.text == GOOD
    openai_server.requests.clear()
    openai_server.queue = [cut, good]  # closed once, then answered: the retry recovers it
    (recovered,) = run(backend(openai_server, retries=1), ["pkg.mod:f"], prompts_for, extraction_of, build_target)
    assert recovered.text == GOOD and len(openai_server.requests) == 2

    loop = oa.Scripted(307, "", headers={"Location": "/v1/chat/completions"})
    openai_server.queue = [loop] * 25 + [good]
    looped, fine = run(backend(openai_server, concurrency=1, retries=3), ["pkg.mod:f", "pkg.mod:g"], prompts_for,
                       extraction_of, build_target)
    assert looped.text is None and "redirects in a loop" in looped.error and "attempts" not in looped.error
    assert fine.text == GOOD

    openai_server.queue = [oa.Scripted(body=oa.completion(GOOD), drip=0.05), good]
    dripped, fine = run(backend(openai_server, concurrency=1, retries=0, timeout=3.0), ["pkg.mod:f", "pkg.mod:g"],
                        prompts_for, extraction_of, build_target)
    assert "timed out" in dripped.error and "--timeout 3 s" in dripped.error and fine.text == GOOD

    import socket

    with socket.socket() as unused:  # a port nothing listens on
        unused.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{unused.getsockname()[1]}/v1"
    nowhere = OpenAIBackend("m", api_key="k", base_url=url, retries=0)
    (unreachable,) = run(nowhere, ["pkg.mod:f"], prompts_for, extraction_of, build_target)
    assert unreachable.text is None and f"cannot connect to {url}" in unreachable.error


def test_ctrl_c_during_a_model_call_stops_without_waiting_for_the_call(openai_server, oa, prompts_for,
                                                                       extraction_of, build_target):
    """The call is held for 30 s by the server; an interrupt arriving while it is in flight ends propose() at
    once (a thread pool would join the call first). Beside it, an uninterrupted call answers."""
    import os
    import signal
    import threading
    import time

    openai_server.queue = [oa.Scripted(body=oa.completion(GOOD), delay=30)]
    be = backend(openai_server, timeout=60, retries=0)
    threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()  # what Ctrl-C sends
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        run(be, ["pkg.mod:f"], prompts_for, extraction_of, build_target)
    assert time.monotonic() - started < 20  # far under the server's 30 s hold, whatever the machine's load
    openai_server.queue = [oa.Scripted(body=oa.completion(GOOD))]
    (reply,) = run(be, ["pkg.mod:g"], prompts_for, extraction_of, build_target)
    assert reply.text == GOOD
