"""Model backends: turn prompts into raw reply texts. Parsing the replies is the next stage's job.

`--model SPEC` forms: `heuristic` (offline, the default), `replay:PATH` (a JSON file of recorded replies),
`openai:MODEL` (any OpenAI-compatible server).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from drafter.data import Extraction, Prompt, Reply
from drafter.errors import ConfigError

SPEC_FORMS = ("heuristic", "replay:PATH", "openai:MODEL")


class Backend(Protocol):
    name: str

    def propose(
        self,
        prompts: Sequence[Prompt],
        extraction: Extraction,
        on_reply: Callable[[Reply], None] | None = None,
    ) -> list[Reply]:
        """One Reply per prompt, in prompt order; `on_reply` is called as each one finishes."""
        ...


def load_backend(
    spec: str,
    *,
    base_url: str | None = None,
    concurrency: int = 4,
    temperature: float = 0.2,
    timeout: float = 60.0,
    retries: int = 3,
    max_tokens: int | None = None,
) -> Backend:
    """The backend named by `spec`; ConfigError for a spec of no known form."""
    kind, sep, arg = spec.partition(":")
    if spec == "heuristic":
        from drafter.models.heuristic import HeuristicBackend

        return HeuristicBackend()
    if kind == "replay" and sep and arg.strip():
        from drafter.models.replay import ReplayBackend

        return ReplayBackend(arg.strip())
    if kind == "openai" and sep and arg.strip():
        from drafter.models.openai_compat import OpenAIBackend

        return OpenAIBackend.from_environment(
            arg.strip(),
            base_url=base_url,
            concurrency=concurrency,
            temperature=temperature,
            timeout=timeout,
            retries=retries,
            max_tokens=max_tokens,
        )
    raise ConfigError(f"--model {spec!r}: unknown model spec; valid forms are {', '.join(SPEC_FORMS)}")


__all__ = ["Backend", "SPEC_FORMS", "load_backend"]
