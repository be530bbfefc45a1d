"""Render an accepted candidate into one self-contained Hypothesis test file (Jinja2 layout, the compiler's symbol
tables for the names it needs).

A render failure raises RenderError, whose `verdict` is the rejection to record (stage "render",
reason "render_error"); the pipeline catches it per candidate, so one bad candidate never stops the others.
"""

from __future__ import annotations

import ast
import builtins
import functools
import symtable
import textwrap
from collections import defaultdict
from pathlib import Path

import jinja2

from drafter import allowed
from drafter.data import Candidate, Extraction, Rendered, Target, Verdict
from drafter.errors import DrafterError
from drafter.runfolder import bounded_name, target_slug

TEMPLATE = "test_file.j2"
GIVEN_LINE_LIMIT = 100
HYPOTHESIS_IMPORTS = {"assume": "assume", "given": "given", "settings": "settings", "st": "strategies as st"}


class RenderError(DrafterError):
    """A candidate that cannot become a valid test file; `verdict` is its rejection."""

    def __init__(self, candidate_id: str, detail: str):
        super().__init__(f"{candidate_id}: {detail}")
        self.verdict = Verdict("render", False, "render_error", detail)


def staged_path(candidate: Candidate) -> str:
    return f"staged/{target_slug(candidate.target)}/{bounded_name(f'test_{candidate.name}')}.py"


@functools.lru_cache(maxsize=8)
def environment(templates_dir: str | None) -> jinja2.Environment:
    loader: jinja2.BaseLoader
    loader = jinja2.FileSystemLoader(templates_dir) if templates_dir else jinja2.PackageLoader("prompts", "")
    return jinja2.Environment(
        loader=loader,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def render(
    candidate: Candidate,
    target: Target,
    extraction: Extraction,
    *,
    max_examples: int,
    templates_dir: Path | None = None,
) -> Rendered:
    """The test file of one candidate; RenderError when it cannot be made into valid Python."""
    test_name = f"test_{candidate.name}"
    try:
        inputs = {key: normal_expression(code) for key, code in candidate.inputs.items()}
        assume = [normal_expression(code) for code in candidate.assume]
        body = ast.unparse(ast.parse(textwrap.dedent(candidate.body).strip("\n")))
    except SyntaxError as error:
        raise RenderError(candidate.id, f"a field does not parse: {error.msg} (line {error.lineno})") from None
    given = given_decorator(inputs)
    fields = dict(
        target_id=target.id,
        kind=candidate.kind,
        max_examples=max_examples,
        given=given,
        test_name=test_name,
        params=list(inputs),
        assume=assume,
        body=body,
    )
    template = environment(str(templates_dir) if templates_dir else None).get_template(TEMPLATE)
    # First pass without imports to learn which names the test needs, then the real file.
    draft = template.render(import_blocks=[], **fields)
    tree = parse_or_reject(candidate.id, draft)
    own = allowed.target_names(extraction.module_names.get(target.module, ()), target.name, target.owner)
    blocks = import_blocks(free_names(draft, own), attribute_bases(tree), target, extraction, candidate.id)
    source = template.render(import_blocks=blocks, **fields)
    parse_or_reject(candidate.id, source)
    return Rendered(candidate.id, candidate.target, staged_path(candidate), test_name, source)


def normal_expression(code: str) -> str:
    return ast.unparse(ast.parse(code.strip(), mode="eval"))


def given_decorator(inputs: dict[str, str]) -> str:
    one_line = f"@given({', '.join(f'{k}={v}' for k, v in inputs.items())})"
    if len(one_line) <= GIVEN_LINE_LIMIT:
        return one_line
    return "@given(\n" + "".join(f"    {k}={v},\n" for k, v in inputs.items()) + ")"


def parse_or_reject(candidate_id: str, source: str) -> ast.Module:
    try:
        tree = ast.parse(source, f"<{candidate_id}>")
        compile(tree, f"<{candidate_id}>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as error:
        raise RenderError(candidate_id, f"the rendered file does not parse: {error}") from None
    return tree


def free_names(source: str, own: frozenset[str] = frozenset()) -> set[str]:
    """Names the file reads but never binds (the compiler's own symbol tables); builtins only when `own` (the
    target module's public names) has them too, since the module's `format` or `filter` is the one a candidate
    means."""
    module = symtable.symtable(source, "<test>", "exec")
    bound = {s.get_name() for s in module.get_symbols() if s.is_assigned() or s.is_imported()}
    read: set[str] = set()
    pending = [module]
    while pending:
        table = pending.pop()
        read.update(s.get_name() for s in table.get_symbols() if s.is_referenced() and s.is_global())
        pending.extend(table.get_children())
    return {name for name in read - bound if name not in _BUILTINS or name in own}


_BUILTINS = frozenset(dir(builtins))


def attribute_bases(tree: ast.Module) -> set[str]:
    """Names used as `name.attr` somewhere (decides `import datetime` vs `from datetime import datetime`)."""
    return {node.value.id for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)}


def import_blocks(
    names: set[str], attribute_bases: set[str], target: Target, extraction: Extraction, candidate_id: str
) -> list[str]:
    """isort-style blocks: stdlib, third party (hypothesis, pytest), then the target module's names only."""
    stdlib_modules: set[str] = set()
    stdlib_from: dict[str, set[str]] = defaultdict(set)
    hypothesis: set[str] = {"given", "settings"}
    pytest = False
    own = allowed.target_names(extraction.module_names.get(target.module, ()), target.name, target.owner)
    local: set[str] = set()
    for name in sorted(names):
        if name in HYPOTHESIS_IMPORTS:
            hypothesis.add(name)
        elif name == "pytest":
            pytest = True
        elif name in own:
            local.add(name)
        elif name == "datetime" and "datetime" not in attribute_bases:
            stdlib_from["datetime"].add("datetime")
        elif name in allowed.PURE_STDLIB:
            stdlib_modules.add(name)
        elif name in allowed.STDLIB_BARE_NAMES:
            stdlib_from[allowed.STDLIB_BARE_NAMES[name]].add(name)
        else:
            raise RenderError(candidate_id, f"name {name!r} is neither allowed nor defined, so it cannot be imported")
    # isort's default order inside a block: plain imports first, then from-imports, each sorted by module.
    stdlib = [f"import {m}" for m in sorted(stdlib_modules)]
    stdlib += [f"from {m} import {', '.join(sorted(members))}" for m, members in sorted(stdlib_from.items())]
    third = ["import pytest"] if pytest else []
    third.append(f"from hypothesis import {', '.join(HYPOTHESIS_IMPORTS[n] for n in sorted(hypothesis))}")
    blocks = ["\n".join(stdlib)] if stdlib else []
    blocks.append("\n".join(third))
    if local:
        blocks.append(f"from {target.module} import {', '.join(sorted(local))}")
    return blocks
