"""`replay:PATH`: recorded replies from a JSON file, so a run is offline and reproducible."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from drafter.data import Extraction, Prompt, Reply
from drafter.errors import ModelError
from drafter.runfolder import target_slug


class ReplayBackend:
    """Maps target id -> the raw reply text (a string, used verbatim) or a reply object (re-serialised)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.name = f"replay:{path}"
        # A past run's folder (or its replies/) replays what the model said then, one file per target.
        self.replies = _load_folder(self.path) if self.path.is_dir() else _load(self.path)
        # Keys naming no extracted target; filled by propose() so the pipeline can warn about them.
        self.unknown_targets: tuple[str, ...] = ()

    def propose(
        self,
        prompts: Sequence[Prompt],
        extraction: Extraction,
        on_reply: Callable[[Reply], None] | None = None,
    ) -> list[Reply]:
        if self.path.is_dir():  # file names are target slugs: map them back to ids
            slugs = {target_slug(t.id): t.id for t in extraction.targets} | {target_slug(p.target): p.target for p in prompts}
            self.replies = {slugs.get(k, k): v for k, v in self.replies.items()}
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


def _load_folder(path: Path) -> dict:
    """Slug -> reply text from a run folder's replies/*.txt; calls that failed then ("# no reply: ...") are absent."""
    folder = path / "replies" if (path / "replies").is_dir() else path
    files = sorted(folder.glob("*.txt"))
    if not files:
        raise ModelError(f"replay folder {path}: no replies/*.txt in it; give a run folder, its replies/ or a JSON file")
    replies = {}
    for file in files:
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ModelError(f"replay file {file}: cannot read it ({exc})") from exc
        if not text.startswith("# no reply:"):
            replies[file.stem] = text
    return replies
