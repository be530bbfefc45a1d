"""Extraction of the bundled example package examples/shop."""

import ast
from pathlib import Path

import pytest

from drafter.extract import extract


@pytest.fixture(scope="module")
def shop():
    return extract(Path(__file__).resolve().parents[2] / "examples" / "shop")


def test_ids_are_module_colon_qualname(shop):
    ids = {t.id for t in shop.targets}
    assert {"shop.billing:apply_tax", "shop.envelope:Envelope.to_dict", "shop.hunks:Hunk.to_text"} <= ids
    assert {"shop.envelope:parse_envelope", "shop.envelope:serialize_envelope", "shop.hunks:apply_hunk"} <= ids
    for target in shop.targets:
        module, qualname = target.id.split(":")
        assert (module, qualname) == (target.module, target.qualname)


def test_every_public_def_of_the_example_is_a_target(shop):
    """Cross-check against Python's own parser: public module functions and methods of public classes."""
    root = Path(shop.root)
    expected = set()
    for path in (root / "shop").glob("*.py"):
        module = "shop" if path.stem == "__init__" else f"shop.{path.stem}"
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                expected.add(f"{module}:{node.name}")
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                expected |= {
                    f"{module}:{node.name}.{item.name}"
                    for item in node.body
                    if isinstance(item, ast.FunctionDef) and not item.name.startswith("_")
                }
    assert {t.id for t in shop.targets} == expected
    assert not shop.errors


def test_apply_tax_signature_docstring_and_position(shop):
    target = shop.target("shop.billing:apply_tax")
    assert target.file == "shop/billing.py"
    assert [(p.name, p.kind, p.annotation, p.default) for p in target.params] == [
        ("amount", "positional_or_keyword", "Decimal", None),
        ("rate", "positional_or_keyword", "Decimal", None),
    ]
    assert target.returns == "Decimal"
    assert target.docstring.startswith("Return amount plus tax at rate, rounded half-even to cents.\n\namount")
    assert not target.is_async and target.decorators == ()
    lines = (Path(shop.root) / target.file).read_text().splitlines()
    assert lines[target.line - 1].startswith("def apply_tax(")
    assert "return" in lines[target.end_line - 1]
    assert len(target.fingerprint) == 16 and int(target.fingerprint, 16) >= 0


def test_methods_carry_self_and_owner(shop):
    to_dict = shop.target("shop.envelope:Envelope.to_dict")
    assert to_dict.owner == "Envelope" and to_dict.name == "to_dict"
    assert [p.name for p in to_dict.params] == ["self"] and to_dict.returns == "dict"
    to_text = shop.target("shop.hunks:Hunk.to_text")
    assert to_text.docstring == "The hunk in unified-diff form, header included."
    assert shop.target("shop.hunks:Hunk.old_lines").decorators == ("property",)


def test_unannotated_parameters_get_usage_evidence(shop):
    (code,) = shop.target("shop.billing:normalize_currency").params
    assert code.annotation is None
    assert code.usage and code.usage[0].kind == "text" and ".strip()" in code.usage[0].evidence
    percent, ceiling = shop.target("shop.billing:clamp_discount").params
    assert (percent.annotation, ceiling.default) == (None, "50")
    assert [u.kind for u in percent.usage] == ["number"] and "0" in percent.usage[0].evidence


def test_usage_is_recorded_for_annotated_parameters_too(shop):
    lines, _hunk = shop.target("shop.hunks:apply_hunk").params
    assert {u.kind for u in lines.usage} == {"sequence"}
    (text,) = shop.target("shop.envelope:parse_envelope").params
    assert [u.evidence for u in text.usage] == ["calls .splitlines()"]


def test_classes_dataclasses_and_exceptions(shop):
    classes = {(c.module, c.name): c for c in shop.classes}
    envelope = classes[("shop.envelope", "Envelope")]
    assert envelope.kind == "dataclass"
    assert [(f.name, f.annotation, f.default) for f in envelope.fields] == [
        ("status", "int", None),
        ("fields", "dict[str, str]", "field(default_factory=dict)"),
    ]
    assert classes[("shop.hunks", "Hunk")].kind == "dataclass"
    assert classes[("shop.envelope", "EnvelopeError")].kind == "class"


def test_module_names_are_public_definitions_without_imports(shop):
    billing = shop.module_names["shop.billing"]
    assert billing == ("CENT", "apply_tax", "clamp_discount", "normalize_currency", "split_evenly")
    assert "Decimal" not in billing and "ROUND_HALF_EVEN" not in billing  # imported, not defined
    assert "re" not in shop.module_names["shop.hunks"] and "HEADER" in shop.module_names["shop.hunks"]


def test_corpus_lists_names_sorted(shop_src):
    extraction = extract(shop_src, corpus_dirs=[shop_src / "corpus"])
    on_disk = sorted(p.relative_to(shop_src / "corpus").as_posix() for p in (shop_src / "corpus").rglob("*") if p.is_file())
    assert list(extraction.corpus) == on_disk and on_disk


def test_extraction_is_deterministic(shop, shop_src):
    again = extract(shop_src)
    assert again == shop
    assert [(t.file, t.line) for t in shop.targets] == sorted((t.file, t.line) for t in shop.targets)
