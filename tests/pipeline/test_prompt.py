import json
import sys
from pathlib import Path

import pytest

from drafter.candidates import parse_reply
from drafter.data import Extraction, Param, Reply, Target
from drafter.errors import ConfigError
from drafter.lint import lint
from drafter.prompt import CANDIDATE_SCHEMA, TEMPLATE_VERSION, WORKED_EXAMPLE, build_prompts, signature_text, template_version


def make_target(**overrides) -> Target:
    fields = dict(
        id="shop.billing:apply_tax",
        module="shop.billing",
        qualname="apply_tax",
        file="shop/billing.py",
        line=9,
        end_line=15,
        params=(Param("amount", "positional_or_keyword", "Decimal"), Param("rate", "positional_or_keyword", "Decimal")),
        returns="Decimal",
        decorators=(),
        docstring="Return amount plus tax at rate.",
        is_async=False,
        fingerprint="abc",
    )
    fields.update(overrides)
    return Target(**fields)


def test_signature_text_marks_positional_only_and_keyword_only():
    target = make_target(
        params=(
            Param("a", "positional_only", "int"),
            Param("b", "positional_or_keyword", None, "1"),
            Param("c", "keyword_only", "str", "'x'"),
            Param("kw", "var_keyword"),
        ),
        returns=None,
    )
    assert signature_text(target) == "def apply_tax(a: int, /, b=1, *, c: str = 'x', **kw)"


def test_signature_text_varargs_replaces_bare_star():
    target = make_target(params=(Param("args", "var_positional"), Param("c", "keyword_only")), is_async=True)
    assert signature_text(target) == "async def apply_tax(*args, c) -> Decimal"


def test_prompt_carries_signature_docstring_and_corpus_names_only():
    extraction = Extraction(
        root="/src",
        targets=(make_target(),),
        corpus=("invoice_basic.json", "nested/hunk.diff"),
        module_names={"shop.billing": ("CENT", "apply_tax")},
    )
    (prompt,) = build_prompts(extraction)
    assert prompt.target == "shop.billing:apply_tax"
    assert "def apply_tax(amount: Decimal, rate: Decimal) -> Decimal" in prompt.user
    assert "Return amount plus tax at rate." in prompt.user
    assert "- invoice_basic.json" in prompt.user and "- nested/hunk.diff" in prompt.user
    assert "CENT, apply_tax" in prompt.user
    # the system prompt states the constraints and the schema
    assert "max_size" in prompt.system and "counterexample" in prompt.system and "round_trip" in prompt.system


def test_user_templates_replace_the_bundled_ones(tmp_path: Path):
    (tmp_path / "system.j2").write_text("SYSTEM {{ kinds | length }}")
    (tmp_path / "target.j2").write_text("TARGET {{ target.id }} {{ signature }}")
    (prompt,) = build_prompts(Extraction(root="/src", targets=(make_target(),)), tmp_path)
    assert prompt.system == "SYSTEM 9"
    assert prompt.user == "TARGET shop.billing:apply_tax def apply_tax(amount: Decimal, rate: Decimal) -> Decimal"


def test_template_naming_an_unknown_variable_is_a_config_error(tmp_path: Path):
    (tmp_path / "system.j2").write_text("ok")
    (tmp_path / "target.j2").write_text("{{ no_such_variable }}")
    with pytest.raises(ConfigError, match="target.j2"):
        build_prompts(Extraction(root="/src", targets=(make_target(),)), tmp_path)


def test_missing_template_folder_names_what_is_missing(tmp_path: Path):
    (tmp_path / "system.j2").write_text("ok")
    with pytest.raises(ConfigError, match="target.j2"):
        build_prompts(Extraction(root="/src", targets=(make_target(),)), tmp_path)


def test_system_prompt_gives_the_whole_reply_envelope_and_says_what_the_test_file_is():
    (prompt,) = build_prompts(Extraction(root="/src", targets=(make_target(),)))
    schema_line = next(line for line in prompt.system.splitlines() if line.startswith('{"type": "object"'))
    assert json.loads(schema_line) == CANDIDATE_SCHEMA and CANDIDATE_SCHEMA["required"] == ["candidates"]
    for words in ("imported bare", "inverse", "pytest.raises", "free variable names", "before the body",
                  f"Python {sys.version_info.major}.{sys.version_info.minor}", "math, decimal"):
        assert words in prompt.system, words


def test_the_worked_example_is_a_reply_the_parser_accepts():
    (prompt,) = build_prompts(Extraction(root="/src", targets=(make_target(),)))
    example = prompt.system.split("exports `is_slug`:\n", 1)[1]
    assert json.loads(example) == WORKED_EXAMPLE
    (drafted,) = parse_reply(Reply("shop.billing:apply_tax", example), make_target())
    assert drafted.verdict.accepted, drafted.verdict


def test_template_version_names_the_bundled_set_or_a_custom_folder(tmp_path: Path):
    bundled = template_version()
    assert bundled.startswith(f"{TEMPLATE_VERSION}+") and bundled == template_version()
    (tmp_path / "system.j2").write_text("S")
    (tmp_path / "target.j2").write_text("T")
    custom = template_version(tmp_path)
    (tmp_path / "target.j2").write_text("T2")
    assert custom.startswith("custom+") and template_version(tmp_path) != custom


def test_the_worked_example_passes_lint_for_its_own_function():
    slugify = make_target(id="text:slugify", module="text", qualname="slugify", params=(Param("title", "positional_or_keyword", "str"),),
                          returns="str", docstring="A URL slug.")
    extraction = Extraction(root="/src", targets=(slugify,), module_names={"text": ("is_slug", "slugify")})
    drafted = lint(parse_reply(Reply(slugify.id, json.dumps(WORKED_EXAMPLE)), slugify), slugify, extraction)
    assert [d.verdict.accepted for d in drafted] == [True], [d.verdict for d in drafted]
