"""Known-bad patches: loaded in memory against SRC, one mutant per touched target; bad patches reported."""

from __future__ import annotations

import ast
import shutil
from decimal import Decimal

import pytest

from drafter.errors import ConfigError
from sabotage import load_known_bad
from sabotage.known_bad import KnownBadError


def test_shop_known_bad_patches_load(shop, helpers) -> None:
    targets = helpers.targets_of(shop)
    mutants, errors = load_known_bad(shop / "known_bad", shop, targets)
    assert errors == []
    assert [m.id for m in mutants] == [
        "known_bad:apply_tax_unrounded.diff@shop.billing:apply_tax",
        "known_bad:empty_200_is_success.diff@shop.envelope:Envelope.is_success",
        "known_bad:serialize_leaks_forbidden.diff@shop.envelope:serialize_envelope",
    ]
    by_target = {m.target: m for m in mutants}
    tax = by_target["shop.billing:apply_tax"]
    assert tax.operator == "known_bad" and tax.module == "shop.billing" and tax.file == "shop/billing.py"
    assert tax.description == "apply_tax returns the exact product: the quantize to cents was dropped"
    assert helpers.load(tax.source)["apply_tax"](Decimal("1.005"), Decimal("0")) == Decimal("1.005")

    leak = helpers.load(by_target["shop.envelope:serialize_envelope"].source)
    envelope = leak["Envelope"](200, {"password": "hunter2", "name": "ann"})
    assert "password: hunter2" in leak["serialize_envelope"](envelope)

    success = helpers.load(by_target["shop.envelope:Envelope.is_success"].source)
    assert success["Envelope"](200, {}).is_success() is True
    for mutant in mutants:
        ast.parse(mutant.source)
        assert mutant.diff.startswith(f"--- a/{mutant.file}\n+++ b/{mutant.file}\n@@")
        target = next(t for t in targets if t.id == mutant.target)
        assert target.line <= mutant.line <= target.end_line


PLAIN_PATH = """\
From 1234abcd Mon Sep 17 00:00:00 2001
Subject: [PATCH] clamp_discount lets the ceiling through plus one

--- shop/billing.py
+++ shop/billing.py
@@ -36,5 +36,5 @@ def clamp_discount(percent, ceiling=50):
     if percent < 0:
         return 0
     if percent > ceiling:
-        return ceiling
+        return ceiling + 1
     return percent
"""

SHIFTED = """\
# normalize_currency forgets to upper-case (hunk line numbers are 3 lines off)
--- a/shop/billing.py
+++ b/shop/billing.py
@@ -30,3 +30,3 @@
     \"\"\"Canonical ISO-4217 style currency code: surrounding blanks removed, upper case.\"\"\"
-    return code.strip().upper()
+    return code.strip()
 
"""

TWO_FILES = """\
--- a/shop/billing.py
+++ b/shop/billing.py
@@ -27,3 +27,3 @@
 def normalize_currency(code):
     \"\"\"Canonical ISO-4217 style currency code: surrounding blanks removed, upper case.\"\"\"
-    return code.strip().upper()
+    return code.upper()
--- a/shop/envelope.py
+++ b/shop/envelope.py
@@ -41,3 +41,3 @@
         \"\"\"A JSON-ready dict without forbidden fields.\"\"\"
-        safe = {k: v for k, v in self.fields.items() if k.lower() not in FORBIDDEN_FIELDS}
+        safe = dict(self.fields)
         return {"status": self.status, "fields": safe}
"""

BROKEN = {
    "stale_context.diff": "--- a/shop/billing.py\n+++ b/shop/billing.py\n@@ -14,1 +14,1 @@\n-    return amount * 2\n+    return amount\n",
    "long_body.diff": "--- a/shop/billing.py\n+++ b/shop/billing.py\n@@ -27,2 +27,2 @@\n def normalize_currency(code):\n     \"\"\"Canonical ISO-4217 style currency code: surrounding blanks removed, upper case.\"\"\"\n-    return code.strip().upper()\n+    return code.upper()\n",
    "not_a_diff.patch": "apply_tax should be wrong somehow\n",
    "bad_counts.diff": "--- a/shop/billing.py\n+++ b/shop/billing.py\n@@ -14,3 +14,1 @@\n-    if amount < 0 or rate < 0:\n+    if amount < 0:\n",
    "module_constant.diff": '--- a/shop/billing.py\n+++ b/shop/billing.py\n@@ -5,1 +5,1 @@\n-CENT = Decimal("0.01")\n+CENT = Decimal("0.1")\n',
    "no_such_file.diff": "--- a/shop/nowhere.py\n+++ b/shop/nowhere.py\n@@ -1,1 +1,1 @@\n-x = 1\n+x = 2\n",
    "syntax_error.diff": "--- a/shop/billing.py\n+++ b/shop/billing.py\n@@ -33,1 +33,1 @@\n-    \"\"\"Clamp a discount percentage into [0, ceiling].\"\"\"\n+    \"\"\"Clamp a discount percentage into [0, ceiling].\n",
    "comment_only.diff": "--- a/shop/billing.py\n+++ b/shop/billing.py\n@@ -37,1 +37,1 @@\n-        return 0\n+        return 0  # floor\n",
}


@pytest.fixture
def patch_dir(tmp_path, shop):
    folder = tmp_path / "known_bad"
    shutil.copytree(shop / "known_bad", folder)
    (folder / "more").mkdir()
    (folder / "more" / "clamp.patch").write_text(PLAIN_PATH)
    (folder / "more" / "currency_shifted.diff").write_text(SHIFTED)
    (folder / "two_files.diff").write_text(TWO_FILES)
    (folder / "notes.txt").write_text("not a patch, ignored\n")
    for name, text in BROKEN.items():
        (folder / name).write_text(text)
    return folder


def test_broken_patches_are_reported_while_the_others_load(patch_dir, shop, helpers) -> None:
    before = helpers.tree_hash(shop)
    mutants, errors = load_known_bad(patch_dir, shop, helpers.targets_of(shop))
    assert helpers.tree_hash(shop) == before

    assert {e.file for e in errors} == set(BROKEN)
    reasons = {e.file: e.reason for e in errors}
    assert "does not apply" in reasons["stale_context.diff"]
    assert "no unified diff" in reasons["not_a_diff.patch"]
    assert "counts" in reasons["bad_counts.diff"] and "counts" in reasons["long_body.diff"]
    assert "touches no target" in reasons["module_constant.diff"]
    assert "no such file" in reasons["no_such_file.diff"]
    assert "does not parse" in reasons["syntax_error.diff"]
    assert "only comments or formatting" in reasons["comment_only.diff"]
    assert all(isinstance(e, KnownBadError) for e in errors)

    ids = [m.id for m in mutants]
    assert "known_bad:more/clamp.patch@shop.billing:clamp_discount" in ids
    assert "known_bad:more/currency_shifted.diff@shop.billing:normalize_currency" in ids
    assert "known_bad:two_files.diff@shop.billing:normalize_currency" in ids
    assert "known_bad:two_files.diff@shop.envelope:Envelope.to_dict" in ids
    assert len([i for i in ids if i.startswith("known_bad:apply_tax_unrounded")]) == 1
    by_id = {m.id: m for m in mutants}
    clamp = by_id["known_bad:more/clamp.patch@shop.billing:clamp_discount"]
    assert clamp.description == "clamp_discount lets the ceiling through plus one"
    assert helpers.load(clamp.source)["clamp_discount"](80) == 51
    shifted = by_id["known_bad:more/currency_shifted.diff@shop.billing:normalize_currency"]
    assert helpers.load(shifted.source)["normalize_currency"](" eur ") == "eur"
    to_dict = by_id["known_bad:two_files.diff@shop.envelope:Envelope.to_dict"]
    assert to_dict.file == "shop/envelope.py" and to_dict.module == "shop.envelope"
    assert "safe = dict(self.fields)" in to_dict.source  # each mutant carries its own file's patched source
    currency = by_id["known_bad:two_files.diff@shop.billing:normalize_currency"]
    assert currency.file == "shop/billing.py" and "    return code.upper()\n" in currency.source
    assert currency.description == "two_files.diff"


def test_missing_patch_folder_is_a_usage_error(tmp_path, shop, helpers) -> None:
    with pytest.raises(ConfigError, match="nowhere"):
        load_known_bad(tmp_path / "nowhere", shop, helpers.targets_of(shop))
    assert load_known_bad(tmp_path, shop, helpers.targets_of(shop)) == ([], [])


def test_src_is_unchanged_by_sabotage(shop, shop_run, helpers) -> None:
    assert sum(len(s.mutants) for s in shop_run.sets.values()) > 0 and shop_run.known_bad
    assert helpers.tree_hash(shop) == shop_run.hash_before
    assert not list(shop.rglob("__pycache__"))


def test_an_operator_mutant_that_is_a_known_bad_patch_is_dropped_exactly_when_the_whole_modules_are_one_tree(
        shop, helpers) -> None:
    from dataclasses import replace

    from sabotage import mutants_for, normalised_tree
    from sabotage.known_bad import drop_operator_duplicates

    targets = helpers.targets_of(shop)
    known, _ = load_known_bad(shop / "known_bad", shop, targets)
    operator = [m for t in targets if t.id in {k.target for k in known} for m in mutants_for(t, shop).mutants]
    tax = next(k for k in known if k.target == "shop.billing:apply_tax")
    cent = 'CENT = Decimal("0.01")'
    variants = {
        "as written": tax,
        "reformatted inside the def": replace(tax, source=tax.source.replace(
            "return amount + amount * rate", "return amount+amount*rate  # exact")),
        "reformatted outside the def": replace(tax, source=tax.source.replace(cent, 'CENT = Decimal( "0.01" )  # one cent')),
        "other code outside the def": replace(tax, source=tax.source.replace(cent, 'CENT = Decimal("0.001")')),
    }
    dropped_by = {}
    for why, patch in variants.items():
        patches = [patch] + [k for k in known if k is not tax]
        kept, dropped = drop_operator_duplicates(operator, patches, targets, shop)
        # What the old whole-module comparison decided, mutant by mutant.
        trees = {(k.target, normalised_tree(k.source)) for k in patches}
        assert kept == [m for m in operator if (m.target, normalised_tree(m.source)) not in trees], why
        assert sum(dropped.values()) == len(operator) - len(kept), why
        dropped_by[why] = dropped
    assert dropped_by["as written"] == dropped_by["reformatted inside the def"] == {"shop.billing:apply_tax": 1}
    assert dropped_by["reformatted outside the def"] == {"shop.billing:apply_tax": 1}
    assert dropped_by["other code outside the def"] == {}
