"""Parse a model reply into candidates: forgiving about the envelope, strict about every item's content."""

from __future__ import annotations

import json
import keyword
from typing import Any

from drafter.data import CANDIDATE_KINDS, Candidate, Drafted, Reply, Target, Verdict
from drafter.limits import MAX_CANDIDATES_PER_REPLY, LimitExceeded, check_nesting, check_size, load_json
from drafter.limits import decoder as bounded_decoder

REQUIRED = {"name": str, "kind": str, "inputs": dict, "body": str, "counterexample": str}
OPTIONAL = {"assume": list, "rationale": str}


class EnvelopeProblem(Exception):
    def __init__(self, reason: str, detail: str):
        super().__init__(detail)
        self.reason, self.detail = reason, detail


def parse_reply(reply: Reply, target: Target) -> list[Drafted]:
    """Every item of the reply as a Drafted with a parse verdict; one envelope failure gives one `#reply` item."""
    if reply.text is None:
        return []
    try:
        items = candidate_list(envelope(reply.text))
    except EnvelopeProblem as problem:
        verdict = Verdict("parse", False, problem.reason, f"reply for {target.id}: {problem.detail}")
        return [Drafted(f"{target.id}::#reply", target.id, -1, reply.text, None, verdict)]
    drafted: list[Drafted] = []
    seen: set[str] = set()
    for index, item in enumerate(items[:MAX_CANDIDATES_PER_REPLY]):
        drafted.append(parse_item(item, index, target, seen))
    if len(items) > MAX_CANDIDATES_PER_REPLY:
        detail = (f"reply for {target.id}: {len(items)} candidates, over the limit of {MAX_CANDIDATES_PER_REPLY}"
                  f" per reply; the first {MAX_CANDIDATES_PER_REPLY} were read, the rest dropped")
        verdict = Verdict("parse", False, "bad_schema", detail)
        drafted.append(Drafted(f"{target.id}::#over_limit", target.id, -1, "", None, verdict))
    return drafted


def envelope(text: str) -> Any:
    """The JSON value in a reply: the whole text, a ```json fence, or the first JSON value with candidates in prose."""
    stripped = text.strip()
    if not stripped:
        raise EnvelopeProblem("bad_json", "the reply is empty")
    try:
        check_size(text)
        check_nesting(text)
        return load_json(stripped)
    except json.JSONDecodeError:
        pass
    except LimitExceeded as limit:
        raise EnvelopeProblem("bad_json", f"over a limit: {limit}") from None
    try:
        return _embedded_value(text)
    except LimitExceeded as limit:
        raise EnvelopeProblem("bad_json", f"over a limit: {limit}") from None


def _embedded_value(text: str) -> Any:
    fence_error = None
    for block in fenced_blocks(text):
        try:
            return load_json(block)
        except json.JSONDecodeError as error:
            fence_error = fence_error or error
    decoder = bounded_decoder()
    first_error: json.JSONDecodeError | None = None
    first_value: Any = None
    for start, char in enumerate(text):
        if char not in "{[":
            continue
        try:
            value, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError as error:
            first_error = first_error or error
            continue
        if looks_like_reply(value):
            return value
        if first_value is None and first_error is None:
            first_value = value
    if first_value is not None:
        return first_value
    if fence_error is not None:
        raise EnvelopeProblem("bad_json", f"the ```json block does not parse (truncated?): {fence_error}")
    if first_error is not None:
        raise EnvelopeProblem("bad_json", f"JSON in the reply does not parse (truncated?): {first_error}")
    raise EnvelopeProblem("bad_json", "no JSON object in the reply")


def fenced_blocks(text: str) -> list[str]:
    """Contents of Markdown ``` blocks tagged json (first) or untagged; an unclosed last block counts too."""
    segments = text.split("```")
    tagged, untagged = [], []
    for inside in segments[1::2]:
        info, _, content = inside.partition("\n")
        if info.strip().lower() == "json":
            tagged.append(content)
        elif not info.strip():
            untagged.append(content)
    return tagged + untagged


def looks_like_reply(value: Any) -> bool:
    if isinstance(value, dict):
        return "candidates" in value
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) and "body" in v for v in value)


def candidate_list(value: Any) -> list[Any]:
    if isinstance(value, list):
        return value
    if not isinstance(value, dict):
        raise EnvelopeProblem("bad_schema", f"expected an object with \"candidates\", got {type(value).__name__}")
    if "candidates" not in value:
        raise EnvelopeProblem("bad_schema", f"key \"candidates\" is missing (keys: {', '.join(sorted(value)) or 'none'})")
    if not isinstance(value["candidates"], list):
        raise EnvelopeProblem("bad_schema", "\"candidates\" is not a list")
    return value["candidates"]


def is_snake_case(name: str) -> bool:
    return name.isidentifier() and name.isascii() and name == name.lower() and not keyword.iskeyword(name)


def parse_item(item: Any, index: int, target: Target, seen: set[str]) -> Drafted:
    name = item.get("name") if isinstance(item, dict) else None
    usable = isinstance(name, str) and is_snake_case(name) and name not in seen
    drafted_id = f"{target.id}::{name}" if usable else f"{target.id}::#{index}"

    def reject(detail: str) -> Drafted:
        verdict = Verdict("parse", False, "bad_schema", f"candidate #{index}: {detail}")
        return Drafted(drafted_id, target.id, index, item, None, verdict)

    if not isinstance(item, dict):
        return reject(f"expected an object, got {type(item).__name__}")
    problem = schema_problem(item)
    if problem:
        return reject(problem)
    if name in seen:
        return reject(f"duplicate name {name!r}: names are unique per target")
    seen.add(name)
    candidate = Candidate(
        target=target.id,
        name=name,
        kind=item["kind"],
        inputs=dict(item["inputs"]),
        body=item["body"],
        counterexample=item["counterexample"],
        assume=tuple(item.get("assume", ())),
        rationale=item.get("rationale", ""),
    )
    return Drafted(drafted_id, target.id, index, item, candidate, Verdict("parse", True))


def schema_problem(item: dict) -> str | None:
    """The first problem with one item's keys and types, naming the key; None when it is well-formed."""
    for key, kind in REQUIRED.items():
        if key not in item:
            return f"key {key!r} is missing"
        if not isinstance(item[key], kind):
            return f"key {key!r} must be a {kind.__name__}, got {type(item[key]).__name__}"
    for key, kind in OPTIONAL.items():
        if key in item and not isinstance(item[key], kind):
            return f"key {key!r} must be a {kind.__name__}, got {type(item[key]).__name__}"
    unknown = sorted(set(item) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        return f"unknown key(s) {', '.join(map(repr, unknown))}"
    if not is_snake_case(item["name"]):
        return f"key 'name': {item['name']!r} is not a snake_case identifier"
    if item["kind"] not in CANDIDATE_KINDS:
        return f"key 'kind': {item['kind']!r} is not one of {', '.join(CANDIDATE_KINDS)}"
    if not item["inputs"]:
        return "key 'inputs' is empty: a property quantifies at least one input"
    bad = [k for k, v in item["inputs"].items() if not isinstance(v, str)]
    if bad:
        return f"key 'inputs': the strategy for {bad[0]!r} is not a string"
    if not all(isinstance(a, str) for a in item.get("assume", ())):
        return "key 'assume' must be a list of strings"
    if not item["counterexample"].strip():
        return "key 'counterexample' is empty"
    return _lone_surrogate(item)


def _lone_surrogate(item: dict) -> str | None:
    """Code UTF-8 cannot carry (a lone surrogate from a JSON escape) cannot become Python source; prose may."""
    fields = [("body", item["body"])]
    fields += [pair for k, v in item["inputs"].items() for pair in (("inputs", k), (f"inputs.{k}", v))]
    fields += [("assume", a) for a in item.get("assume", ())]
    for key, text in fields:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            return f"key {key!r} holds a lone surrogate ({text[exc.start]!r}), which UTF-8 and Python source cannot carry"
    return None
