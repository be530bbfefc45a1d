"""The reply cache: an identical rerun against a paid model makes no model call.

One JSON file per reply under workspace/cache/replies/, named by the sha256 of everything that shapes the answer:
the backend spec and server, the model, the rendered prompt, the template version and the temperature.
Only successful replies are stored; a failed call is asked again next time.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from drafter.data import Prompt, Reply, TokenUsage
from drafter.jsonfile import Either, OptionalKey, UnreadableJSON, load, shape_of
from drafter.runfolder import write_json_atomic

CACHE_VERSION = 1
ENTRY_SHAPE = {"text": str, "model": OptionalKey(str), "usage": OptionalKey(Either(None, shape_of(TokenUsage)))}


@dataclass(frozen=True)
class CacheKey:
    """What a reply depends on, apart from the prompt."""

    backend: str  # the --model spec, e.g. "openai:gpt-4o-mini"
    server: str  # the base URL ("" when not a server)
    model: str
    template_version: str
    temperature: float

    def for_prompt(self, prompt: Prompt) -> str:
        fields = [CACHE_VERSION, self.backend, self.server, self.model, self.template_version, repr(self.temperature),
                  prompt.system, prompt.user]
        if prompt.history:  # a feedback round: the same feedback after another conversation is another question
            fields.append([list(turn) for turn in prompt.history])
        return hashlib.sha256(json.dumps(fields).encode("utf-8", "surrogatepass")).hexdigest()


class ReplyCache:
    def __init__(self, folder: Path, key: CacheKey):
        self.folder = folder
        self.key = key
        self.hits: set[str] = set()  # targets answered from the cache
        self.warnings: list[str] = []

    def _path(self, prompt: Prompt) -> Path:
        digest = self.key.for_prompt(prompt)
        return self.folder / digest[:2] / f"{digest}.json"

    def get(self, prompt: Prompt) -> Reply | None:
        path = self._path(prompt)
        if not path.exists() and not path.is_symlink():
            return None
        try:
            entry = load(path, ENTRY_SHAPE)
        except UnreadableJSON as exc:
            self.warnings.append(f"reply cache entry {exc}; ignored, the model is asked again")
            return None
        usage = TokenUsage(**entry["usage"]) if entry.get("usage") else None
        self.hits.add(prompt.target)
        return Reply(prompt.target, entry["text"], usage=usage, seconds=0.0, model=str(entry.get("model", "")))

    def put(self, prompt: Prompt, reply: Reply) -> None:
        if reply.text is None or reply.error:
            return
        path = self._path(prompt)
        entry = {"target": prompt.target, "model": reply.model, "text": reply.text,
                 "usage": vars(reply.usage) if reply.usage else None}
        try:
            write_json_atomic(path, entry)
        except (OSError, UnicodeEncodeError) as exc:
            self.warnings.append(f"reply cache: cannot store the reply for {prompt.target} ({exc})")
