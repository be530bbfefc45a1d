"""The mutant cache: same module text, operators and generator give the same mutants without generating them."""

from __future__ import annotations

from sabotage import mutants_for, select_operators
from sabotage.cache import MutantCache

MODULE = '''\
def clamp(x, low=0, high=10):
    """x within [low, high]."""
    if x < low:
        return low
    if x > high:
        return high
    return x
'''


def test_a_stored_mutant_set_comes_back_identical_and_a_changed_module_is_made_again(tmp_path, helpers) -> None:
    src = helpers.write_src(tmp_path, {"clamp.py": MODULE})
    (target,) = helpers.targets_of(src)
    cache = MutantCache(tmp_path / "cache")
    made = cache.mutants_for(target, src)
    assert made == mutants_for(target, src) and made.mutants and not cache.hits
    again = MutantCache(tmp_path / "cache")
    assert again.mutants_for(target, src) == made and again.hits == {target.id}
    # Another operator set is another entry.
    fewer = again.mutants_for(target, src, select_operators(["swap_comparison"]))
    assert {m.operator for m in fewer.mutants} == {"swap_comparison"}
    # The body changed (same signature and docstring, so the same fingerprint): a miss, and mutants of the new text.
    (src / "clamp.py").write_text(MODULE.replace("return x\n", "return int(x)\n"))
    changed = MutantCache(tmp_path / "cache")
    fresh = changed.mutants_for(target, src)
    assert not changed.hits and all("return int(x)" in m.source or "int(" not in m.source for m in fresh.mutants)
    assert fresh == mutants_for(target, src) != made


def test_an_unreadable_entry_is_ignored_with_a_warning_and_replaced(tmp_path, helpers) -> None:
    src = helpers.write_src(tmp_path, {"clamp.py": MODULE})
    (target,) = helpers.targets_of(src)
    made = MutantCache(tmp_path / "cache").mutants_for(target, src)
    (entry,) = (tmp_path / "cache").rglob("*.json")
    entry.write_text('{"target": "clamp:clamp", "mutants": [{"id": ')
    cache = MutantCache(tmp_path / "cache")
    assert cache.mutants_for(target, src) == made and not cache.hits
    assert len(cache.warnings) == 1 and str(entry) in cache.warnings[0]
    healed = MutantCache(tmp_path / "cache")
    assert healed.mutants_for(target, src) == made and healed.hits == {target.id}


def test_a_second_pipeline_run_takes_its_mutants_from_the_cache_and_says_so(tmp_path, shop) -> None:
    import json

    from drafter.config import Settings
    from drafter.pipeline import run

    settings = Settings(model=f"replay:{shop / 'replies.json'}", workspace=tmp_path / "workspace",
                        corpus=(shop / "corpus",), jobs=1, max_examples=10, seeds=1)
    first = run(shop, settings).outcome
    assert not any(w.startswith("mutant cache:") for w in first.warnings)
    entries = sorted((tmp_path / "workspace" / "cache" / "mutants").rglob("*.json"))
    facing = {m.target for m in first.mutants}
    assert len(entries) == len(facing) > 0
    # Mark every stored mutant: what the second run uses shows whether it was read back or made again.
    for entry in entries:
        data = json.loads(entry.read_text())
        for row in data["mutants"]:
            row["description"] += " [from the cache]"
        entry.write_text(json.dumps(data))

    second = run(shop, settings).outcome
    assert f"mutant cache: the mutants of {len(facing)} of {len(facing)} targets reused" in " ".join(second.warnings)
    assert [m.id for m in second.mutants] == [m.id for m in first.mutants]
    assert all(m.description.endswith(" [from the cache]") for m in second.mutants)
    assert [m.source for m in second.mutants] == [m.source for m in first.mutants]


def test_a_mutant_cache_entry_whose_rows_are_not_objects_is_made_again_with_a_warning(tmp_path, helpers) -> None:
    """Issue 20: rows that are not objects were an AttributeError; now the entry is ignored by name."""
    import json

    src = helpers.write_src(tmp_path, {"clamp.py": MODULE})
    (target,) = helpers.targets_of(src)
    mutants = MutantCache(tmp_path / "mutants")
    made = mutants.mutants_for(target, src)
    entry = next((tmp_path / "mutants").rglob("*.json"))
    data = json.loads(entry.read_text())
    data["mutants"] = [5] + data["mutants"]
    entry.write_text(json.dumps(data))
    again = MutantCache(tmp_path / "mutants")
    assert again.mutants_for(target, src) == made == mutants_for(target, src) and not again.hits
    assert "key 'mutants[0]' should be an object, not a whole number (5)" in again.warnings[0]
    third = MutantCache(tmp_path / "mutants")  # the entry made again is a good one: read back, no warning
    assert third.mutants_for(target, src) == made and third.hits == {target.id} and not third.warnings
