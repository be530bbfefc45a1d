"""`replay:PATH`: recorded replies from a JSON file, so a run is offline and reproducible."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from drafter.data import Extraction, Prompt, Reply
from drafter.errors import ModelError
from drafter.jsonfile import UnreadableJSON, regular_file
from drafter.limits import LimitExceeded, load_json
from drafter.runfolder import target_slug


ROUNDS_KEY = "rounds"  # never a target id: those always hold a ":"


class ReplayBackend:
    """Maps target id -> the raw reply text (a string, used verbatim) or a reply object (re-serialised).

    Feedback rounds: `"rounds": {"2": {target id: reply}, ...}` beside the round-1 keys (a run folder keeps
    them as replies/round2/*.txt)."""

    answers_feedback = True

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.name = f"replay:{path}"
        # A past run's folder (or its replies/) replays what the model said then, one file per target.
        replies = _load_folder(self.path) if self.path.is_dir() else _load(self.path)
        self.later_rounds = _later_rounds(replies.pop(ROUNDS_KEY, {}), self.path)
        self.replies = replies
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
            self.later_rounds = {n: {slugs.get(k, k): v for k, v in r.items()} for n, r in self.later_rounds.items()}
        known = {t.id for t in extraction.targets} | {p.target for p in prompts}
        keys = set(self.replies).union(*self.later_rounds.values())
        self.unknown_targets = tuple(sorted(keys - known))
        replies = []
        for prompt in prompts:
            reply = self._reply(prompt.target, prompt.round)
            replies.append(reply)
            if on_reply:
                on_reply(reply)
        return replies

    def _reply(self, target: str, round_number: int = 1) -> Reply:
        started = time.perf_counter()
        replies = self.replies if round_number == 1 else self.later_rounds.get(round_number, {})
        if target not in replies:
            where = f"round {round_number} of {self.path}" if round_number > 1 else str(self.path)
            return Reply(target, None, error=f"no reply for this target in {where}", model=self.name)
        value = replies[target]
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
        regular_file(path)
        raw = path.read_text(encoding="utf-8")
    except UnreadableJSON as exc:
        raise ModelError(f"replay file {exc}") from None
    except OSError as exc:
        raise ModelError(f"replay file {path}: cannot read it ({exc.strerror or exc})") from exc
    except UnicodeDecodeError as exc:
        raise ModelError(f"replay file {path}: not UTF-8 text (byte {exc.start}: {exc.reason})") from exc
    try:
        data = load_json(raw)
    except json.JSONDecodeError as exc:
        raise ModelError(f"replay file {path}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from exc
    except LimitExceeded as exc:
        raise ModelError(f"replay file {path}: over a limit: {exc}") from exc
    if not isinstance(data, dict):
        raise ModelError(
            f"replay file {path}: expected a JSON object mapping target ids to replies, got a {type(data).__name__}"
        )
    return data


def _later_rounds(value, path: Path) -> dict[int, dict]:
    """Round number -> {target: reply} from the "rounds" entry; a malformed entry names the file and key."""
    if not isinstance(value, dict):
        raise ModelError(f"replay file {path}: \"{ROUNDS_KEY}\" must map round numbers to objects of replies")
    rounds = {}
    for key, replies in value.items():
        if not _is_round(key) or not isinstance(replies, dict):
            raise ModelError(f"replay file {path}: \"{ROUNDS_KEY}\" key {key!r} must be a round number from 2 "
                             "whose value maps target ids to replies")
        rounds[int(key)] = replies
    return rounds


def _is_round(key: str) -> bool:
    """Round numbers "2" to "9999"; not "²" (a digit to str.isdigit, not to int) nor 5,000 nines."""
    return key.isascii() and key.isdigit() and len(key) <= 4 and int(key) >= 2


def _load_folder(path: Path) -> dict:
    """Slug -> reply text from a run folder's replies/*.txt (feedback rounds under "rounds" from replies/roundN/);
    calls that failed then ("# no reply: ...") are absent."""
    folder = path / "replies" if (path / "replies").is_dir() else path
    files = sorted(folder.glob("*.txt"))
    if not files:
        raise ModelError(f"replay folder {path}: no replies/*.txt in it; give a run folder, its replies/ or a JSON file")
    replies = _read_replies(files)
    later = {sub.name.removeprefix("round"): _read_replies(sorted(sub.glob("*.txt")))
             for sub in sorted(folder.glob("round*")) if sub.is_dir() and _is_round(sub.name.removeprefix("round"))}
    if later:
        replies[ROUNDS_KEY] = later
    return replies


def _read_replies(files: list[Path]) -> dict:
    replies = {}
    for file in files:
        try:
            regular_file(file)
            text = file.read_text(encoding="utf-8")
        except UnreadableJSON as exc:
            raise ModelError(f"replay file {exc}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ModelError(f"replay file {file}: cannot read it ({exc})") from exc
        if not text.startswith("# no reply:"):
            replies[file.stem] = text
    return replies
