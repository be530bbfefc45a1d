"""`replay:PATH`: recorded replies from a JSON file, so a run is offline and reproducible."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from drafter.data import Extraction, Prompt, Reply
from drafter.errors import ModelError


class ReplayBackend:
    """Maps target id -> the raw reply text (a string, used verbatim) or a reply object (re-serialised)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.name = f"replay:{path}"
        self.replies = _load(self.path)
        # Keys naming no extracted target; filled by propose() so the pipeline can warn about them.
        self.unknown_targets: tuple[str, ...] = ()

    def propose(
        self,
        prompts: Sequence[Prompt],
        extraction: Extraction,
        on_reply: Callable[[Reply], None] | None = None,
    ) -> list[Reply]:
        known = {t.id for t in extraction.targets} | {p.target for p in prompts}
        self.unknown_targets = tuple(sorted(set(self.replies) - known))
        replies = []
        for prompt in prompts:
            reply = self._reply(prompt.target)
            replies.append(reply)
            if on_reply:
                on_reply(reply)
        return replies

    def _reply(self, target: str) -> Reply:
        started = time.perf_counter()
        if target not in self.replies:
            return Reply(target, None, error=f"no reply for this target in {self.path}", model=self.name)
        value = self.replies[target]
        if isinstance(value, str):
            text = value
        elif isinstance(value, (dict, list)):
            text = json.dumps(value, sort_keys=True, indent=2)
        else:
            return Reply(
                target,
                None,
                error=f"{self.path}: the reply for {target} is a {type(value).__name__}; expected a string or an object",
                model=self.name,
            )
        return Reply(target, text, seconds=time.perf_counter() - started, model=self.name)


def _load(path: Path) -> dict:
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ModelError(f"replay file {path}: cannot read it ({exc.strerror or exc})") from exc
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ModelError(f"replay file {path}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from exc
    if not isinstance(data, dict):
        raise ModelError(
            f"replay file {path}: expected a JSON object mapping target ids to replies, got a {type(data).__name__}"
        )
    return data
