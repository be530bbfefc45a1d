"""`openai:MODEL`: any OpenAI-compatible chat-completions server through the official `openai` client.

Retries are ours (the client's own are switched off) so that every attempt is bounded, counted and testable.
Reply semantics: `text=None` + `error` = the call failed for good; `text` + `error` = a usable but suspect reply
(today only truncation: finish_reason "length"; the text is kept verbatim for the parse stage to judge).
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable, Sequence

import openai
from openai import OpenAI
from openai.types.chat import ChatCompletion

from drafter.data import Extraction, Prompt, Reply, TokenUsage
from drafter.errors import ConfigError
from drafter.limits import MAX_REPLY_CHARS, LimitExceeded, load_json
from drafter.prompt import CANDIDATE_SCHEMA

PLACEHOLDER_KEY = "not-needed-for-local-servers"
RETRYABLE_STATUS = {408, 409, 429}
# Words servers use when they do not support structured output (OpenAI, vLLM, Ollama, llama.cpp).
MAX_BODY_BYTES = 4 * MAX_REPLY_CHARS + 65_536  # a reply at the character limit, in UTF-8, with its envelope
SCHEMA_REJECTION_WORDS = ("response_format", "json_schema", "structured output", "unknown parameter", "unrecognized request argument")


class OpenAIBackend:
    remote = True  # a run where every call failed is an environment error, not an empty draft
    answers_feedback = True  # a feedback round is a conversation: the prompt's history goes before its user turn

    def __init__(
        self,
        model: str,
        *,
        api_key: str,
        base_url: str | None = None,
        concurrency: int = 4,
        temperature: float = 0.2,
        timeout: float = 60.0,
        retries: int = 3,
        max_tokens: int | None = None,
        backoff: float = 1.0,
        max_wait: float = 30.0,
    ):
        if concurrency < 1:
            raise ConfigError(f"--concurrency {concurrency}: must be at least 1")
        if retries < 0:
            raise ConfigError(f"--retries {retries}: must not be negative")
        self.model = model
        self.name = f"openai:{model}"
        self.concurrency = concurrency
        self.temperature = temperature
        self.timeout = timeout
        self.retries = retries
        self.max_tokens = max_tokens
        self.backoff = backoff  # first retry waits this long, then doubles
        self.max_wait = max_wait  # cap on any single wait, Retry-After included
        self.client = OpenAI(api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout)
        self._structured = True  # switched off for the rest of the run once the server rejects json_schema
        self._lock = threading.Lock()

    @classmethod
    def from_environment(cls, model: str, *, base_url: str | None = None, **options) -> OpenAIBackend:
        base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        api_key = os.environ.get("OPENAI_API_KEY")
        if not api_key:
            if not base_url:
                raise ConfigError(
                    f"--model openai:{model}: set OPENAI_API_KEY (or point --base-url / OPENAI_BASE_URL at a local server)"
                )
            api_key = PLACEHOLDER_KEY  # local servers (vLLM, Ollama, llama.cpp) accept any key
        return cls(model, api_key=api_key, base_url=base_url, **options)

    @property
    def structured(self) -> bool:
        return self._structured

    def propose(
        self,
        prompts: Sequence[Prompt],
        extraction: Extraction,
        on_reply: Callable[[Reply], None] | None = None,
    ) -> list[Reply]:
        # Daemon threads, not a pool: Ctrl-C stops the run at once instead of waiting out the calls in flight
        # (a pool's exit joins them, up to --timeout each).
        replies: list[Reply | None] = [None] * len(prompts)
        work: queue.SimpleQueue = queue.SimpleQueue()
        done: queue.SimpleQueue = queue.SimpleQueue()
        for item in enumerate(prompts):
            work.put(item)

        def worker() -> None:
            while True:
                try:
                    index, prompt = work.get_nowait()
                except queue.Empty:
                    return
                try:
                    reply = self._ask(prompt)
                except BaseException as exc:  # noqa: BLE001 - propose() must never wait for a reply that will not come
                    reply = self._failure(prompt, time.perf_counter(), 1, f"client error: {type(exc).__name__}: {exc}")
                done.put((index, reply))

        for _ in range(min(self.concurrency, len(prompts))):
            threading.Thread(target=worker, name="drafter-model", daemon=True).start()
        for _ in prompts:
            index, reply = done.get()
            replies[index] = reply
            if on_reply:
                on_reply(reply)
        return [r for r in replies if r is not None]

    def _ask(self, prompt: Prompt) -> Reply:
        """One target's call with retries; never raises for a failure of this target."""
        started = time.perf_counter()
        attempt = 0
        while True:
            attempt += 1
            structured = self._structured
            try:
                response = self._create(self._request(prompt, structured))
            except openai.APIStatusError as exc:
                if structured and _rejects_schema(exc):
                    with self._lock:
                        self._structured = False
                    attempt -= 1  # a fallback is not a retry
                    continue
                if _retryable_status(exc.status_code) and attempt <= self.retries:
                    time.sleep(self._wait(attempt, _retry_after(exc)))
                    continue
                return self._failure(prompt, started, attempt, f"HTTP {exc.status_code}: {_message(exc)}")
            except (openai.APIConnectionError, _OverDeadline) as exc:
                # A timeout, a refused connection or one closed mid-body: all are worth another try; a redirect
                # loop is not (it loops the same way next time).
                if not _transport_error(_root_cause(exc), "TooManyRedirects") and attempt <= self.retries:
                    time.sleep(self._wait(attempt, None))
                    continue
                return self._failure(prompt, started, attempt, self._connection_problem(exc))
            except LimitExceeded as exc:
                return self._failure(prompt, started, attempt, f"response over a limit: {exc}")
            except (openai.OpenAIError, ValueError) as exc:
                # The client raises JSONDecodeError (a ValueError) for a body that is not JSON.
                return self._failure(prompt, started, attempt, f"malformed response: {type(exc).__name__}: {exc}")
            except Exception as exc:  # one target's failure must never stop the run
                if not _transport_error(exc, "TransportError"):
                    return self._failure(prompt, started, attempt, f"client error: {type(exc).__name__}: {exc}")
                if attempt <= self.retries:  # the connection broke while the body was read: worth another try
                    time.sleep(self._wait(attempt, None))
                    continue
                return self._failure(prompt, started, attempt, self._connection_problem(exc))
            try:
                return self._success(prompt, started, attempt, response)
            except Exception as exc:  # noqa: BLE001 - a 200 of an unexpected shape fails this target only
                return self._failure(prompt, started, attempt, f"malformed response: {type(exc).__name__}: {exc}")

    def _create(self, request: dict) -> ChatCompletion:
        """One attempt, read in chunks against a deadline for the whole call: the client's timeout bounds each
        read, so a server that drips a byte at a time would otherwise hold the call for ever."""
        deadline = time.monotonic() + self.timeout
        chunks: list[bytes] = []
        size = 0
        with self.client.chat.completions.with_streaming_response.create(**request) as raw:
            for chunk in raw.iter_bytes():
                if time.monotonic() > deadline:
                    raise _OverDeadline(f"timed out: the response was still arriving after --timeout {self.timeout:g} s "
                                        "(the server sends it too slowly)")
                size += len(chunk)
                if size > MAX_BODY_BYTES:
                    raise LimitExceeded(f"the response body is over {MAX_BODY_BYTES:,} bytes")
                chunks.append(chunk)
        body = load_json(b"".join(chunks).decode("utf-8"))
        if not isinstance(body, dict):
            raise ValueError(f"the body is a JSON {type(body).__name__}, not an object")
        return ChatCompletion.construct(**body)

    def _request(self, prompt: Prompt, structured: bool) -> dict:
        request = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": prompt.system},
                *({"role": role, "content": text} for role, text in prompt.history),
                {"role": "user", "content": prompt.user},
            ],
            "temperature": self.temperature,
            "timeout": self.timeout,
        }
        if self.max_tokens is not None:
            request["max_tokens"] = self.max_tokens
        if structured:
            request["response_format"] = {
                "type": "json_schema",
                # strict=False: `inputs` is an open mapping, which strict mode cannot express.
                "json_schema": {"name": "candidates", "schema": CANDIDATE_SCHEMA, "strict": False},
            }
        return request

    def _connection_problem(self, exc: Exception) -> str:
        if isinstance(exc, _OverDeadline):
            return str(exc)
        cause, url = _root_cause(exc), str(self.client.base_url).rstrip("/")
        if isinstance(exc, openai.APITimeoutError) or _transport_error(exc, "TimeoutException"):
            return f"timed out (no answer from {url} within --timeout {self.timeout:g} s)"
        if _transport_error(cause, "TooManyRedirects"):
            return f"the server at {url} redirects in a loop ({cause}); check --base-url"
        if _transport_error(exc, "TransportError") or _transport_error(cause, "RemoteProtocolError"):
            return f"the connection to {url} broke mid-answer ({cause})"
        return f"cannot connect to {url} ({cause})"

    def _wait(self, attempt: int, retry_after: float | None) -> float:
        wait = retry_after if retry_after is not None else self.backoff * 2 ** (attempt - 1)
        return max(0.0, min(wait, self.max_wait))

    def _failure(self, prompt: Prompt, started: float, attempts: int, why: str) -> Reply:
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        return Reply(
            prompt.target,
            None,
            error=f"{self.name}: {why}{tries}",
            seconds=time.perf_counter() - started,
            model=self.name,
        )

    def _success(self, prompt: Prompt, started: float, attempts: int, response) -> Reply:
        seconds = time.perf_counter() - started
        usage = _usage(response)
        choices = getattr(response, "choices", None)
        if not isinstance(choices, list) or not choices or getattr(choices[0], "message", None) is None:
            return Reply(prompt.target, None, error=f"{self.name}: malformed response: no choices", usage=usage,
                         seconds=seconds, model=self.name)
        choice = choices[0]
        text = choice.message.content
        if text is not None and not isinstance(text, str):
            return Reply(prompt.target, None, error=f"{self.name}: malformed response: message content is a "
                         f"{type(text).__name__}, not text", usage=usage, seconds=seconds, model=self.name)
        model = f"openai:{response.model}" if getattr(response, "model", None) else self.name
        if not text:
            reason = getattr(choice.message, "refusal", None) or f"finish_reason {choice.finish_reason!r}"
            return Reply(prompt.target, None, error=f"{self.name}: empty reply ({reason})", usage=usage,
                         seconds=seconds, model=model)
        error = None
        if choice.finish_reason == "length":
            error = f"{self.name}: reply truncated at the token limit (finish_reason 'length'); raise --max-tokens"
        return Reply(prompt.target, text, error=error, usage=usage, seconds=seconds, model=model)


class _OverDeadline(Exception):
    """The whole call took longer than the backend's timeout."""


def _transport_error(exc: BaseException, name: str) -> bool:
    """Whether exc is the openai client's transport error `name` (httpx's classes, under whichever httpx the
    installed client uses)."""
    return any(k.__name__ == name and k.__module__.split(".")[0].startswith("httpx") for k in type(exc).__mro__)


def _root_cause(exc: BaseException) -> BaseException:
    seen = {id(exc)}
    while (exc.__cause__ or exc.__context__) is not None and id(exc.__cause__ or exc.__context__) not in seen:
        exc = exc.__cause__ or exc.__context__
        seen.add(id(exc))
    return exc


def _usage(response) -> TokenUsage | None:
    usage = getattr(response, "usage", None)
    if usage is None:
        return None
    def count(key: str) -> int:
        value = getattr(usage, key, 0)
        return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0

    prompt_tokens, completion_tokens = count("prompt_tokens"), count("completion_tokens")
    return TokenUsage(prompt_tokens, completion_tokens, count("total_tokens") or prompt_tokens + completion_tokens)


def _retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUS or status >= 500


def _rejects_schema(exc: openai.APIStatusError) -> bool:
    if exc.status_code not in (400, 422):
        return False
    text = f"{_message(exc)} {getattr(exc, 'param', '') or ''}".lower()
    return any(word in text for word in SCHEMA_REJECTION_WORDS)


def _message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    return str(exc.message)


def _retry_after(exc: openai.APIStatusError) -> float | None:
    value = exc.response.headers.get("retry-after") if exc.response is not None else None
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff
