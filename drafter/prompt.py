"""Build the constrained prompt of every target from the Jinja2 templates in prompts/."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import jinja2

from drafter.allowed import MAX_COLLECTION_SIZE, PURE_STDLIB
from drafter.data import CANDIDATE_KINDS, Extraction, Prompt, Target
from drafter.errors import ConfigError


# The reply contract, also sent as a json_schema response format to servers that support it.
CANDIDATE_SCHEMA: dict = {
    "type": "object",
    "additionalProperties": False,
    "required": ["candidates"],
    "properties": {
        "candidates": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "kind", "inputs", "assume", "body", "counterexample", "rationale"],
                "properties": {
                    "name": {"type": "string"},
                    "kind": {"type": "string", "enum": list(CANDIDATE_KINDS)},
                    "inputs": {"type": "object", "additionalProperties": {"type": "string"}},
                    "assume": {"type": "array", "items": {"type": "string"}},
                    "body": {"type": "string"},
                    "counterexample": {"type": "string"},
                    "rationale": {"type": "string"},
                },
            },
        }
    },
}

TEMPLATE_NAMES = ("system.j2", "target.j2")
# Bumped when the bundled templates change what they ask for; recorded in every run beside a hash of the texts.
TEMPLATE_VERSION = "2"

WORKED_EXAMPLE = {
    "candidates": [
        {
            "name": "slug_is_lower_case_words_joined_by_dashes",
            "kind": "invariant",
            "inputs": {"title": "st.text(alphabet=string.ascii_letters + ' -', max_size=30)"},
            "assume": ["any(c.isalpha() for c in title)"],
            "body": "slug = slugify(title)\nassert is_slug(slug)\nassert slug == slug.lower()\n"
                    "assert slug.replace('-', '') == ''.join(c for c in title.lower() if c.isalpha())",
            "counterexample": "keeps upper case, or drops letters while joining words",
            "rationale": "the letters survive in order; only case and separators change",
        }
    ]
}


def template_environment(templates_dir: Path | None = None) -> jinja2.Environment:
    """Templates from `templates_dir` (a user's copy) or the bundled prompts package."""
    if templates_dir is None:
        loader: jinja2.BaseLoader = jinja2.PackageLoader("prompts", "")
    else:
        if not templates_dir.is_dir():
            raise ConfigError(f"--prompts {templates_dir}: not a folder of Jinja2 templates")
        missing = [n for n in TEMPLATE_NAMES if not (templates_dir / n).is_file()]
        if missing:
            raise ConfigError(f"--prompts {templates_dir}: missing template(s) {', '.join(missing)}")
        loader = jinja2.FileSystemLoader(str(templates_dir))
    # StrictUndefined: a template that names a missing variable is a user error, not a silent blank.
    return jinja2.Environment(loader=loader, undefined=jinja2.StrictUndefined, keep_trailing_newline=True)


def signature_text(target: Target) -> str:
    """`def name(a: int, /, b=1, *args, c, **kw) -> T` as source-like text."""
    parts: list[str] = []
    kinds = [p.kind for p in target.params]
    for i, param in enumerate(target.params):
        if param.kind == "keyword_only" and "var_positional" not in kinds and (i == 0 or kinds[i - 1] != "keyword_only"):
            parts.append("*")
        prefix = {"var_positional": "*", "var_keyword": "**"}.get(param.kind, "")
        text = prefix + param.name
        if param.annotation:
            text += f": {param.annotation}"
        if param.default is not None:
            text += f" = {param.default}" if param.annotation else f"={param.default}"
        parts.append(text)
        if param.kind == "positional_only" and (i + 1 == len(kinds) or kinds[i + 1] != "positional_only"):
            parts.append("/")
    returns = f" -> {target.returns}" if target.returns else ""
    keyword = "async def" if target.is_async else "def"
    return f"{keyword} {target.name}({', '.join(parts)}){returns}"


def _render(env: jinja2.Environment, name: str, **values) -> str:
    try:
        return env.get_template(name).render(**values)
    except jinja2.TemplateError as exc:
        raise ConfigError(f"prompt template {name}: {exc}") from exc


def template_version(templates_dir: Path | None = None) -> str:
    """`2+<hash>` for the bundled templates; `custom+<hash>` for a --prompts folder. The hash covers the texts."""
    env = template_environment(templates_dir)
    digest = hashlib.sha256()
    for name in TEMPLATE_NAMES:
        source, _, _ = env.loader.get_source(env, name)
        digest.update(name.encode() + b"\0" + source.encode() + b"\0")
    return f"{'custom' if templates_dir else TEMPLATE_VERSION}+{digest.hexdigest()[:12]}"


def build_prompts(extraction: Extraction, templates_dir: Path | None = None) -> list[Prompt]:
    env = template_environment(templates_dir)
    system = _render(
        env,
        "system.j2",
        kinds=CANDIDATE_KINDS,
        stdlib=PURE_STDLIB,
        max_size=MAX_COLLECTION_SIZE,
        schema=json.dumps(CANDIDATE_SCHEMA),
        example=json.dumps(WORKED_EXAMPLE, indent=1),
        python_version=f"{sys.version_info.major}.{sys.version_info.minor}",
        template_version=TEMPLATE_VERSION,
        allowed_names_note="listed per target",  # still offered to --prompts templates written for version 1
    )
    prompts = []
    for target in extraction.targets:
        user = _render(
            env,
            "target.j2",
            target=target,
            signature=signature_text(target),
            module_names=extraction.module_names.get(target.module, ()),
            classes=[c for c in extraction.classes if c.module == target.module],
            corpus=extraction.corpus,
            min_candidates=3,
            max_candidates=8,
        )
        prompts.append(Prompt(target=target.id, system=system, user=user))
    return prompts
