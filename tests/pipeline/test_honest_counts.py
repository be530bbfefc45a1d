"""Mutants no sound candidate met are not_evaluated and out of every score; not_reached is its own status."""

import json
from pathlib import Path

from drafter.config import Settings
from drafter.pipeline import run

MODULE = '''\
def double(x: int) -> int:
    """Twice x."""
    if x < -10**9:
        return x + x
    return x * 2


def negate(x: int) -> int:
    """Minus x."""
    return -x
'''

PATCH = '''\
# negate returns x itself
--- a/pkg/calc.py
+++ b/pkg/calc.py
@@ -8,4 +8,4 @@
 
 def negate(x: int) -> int:
     """Minus x."""
-    return -x
+    return x
'''


def candidate(name: str, body: str) -> dict:
    return {"name": name, "kind": "invariant", "inputs": {"x": "st.integers(-1000, 1000)"}, "assume": [],
            "body": body, "counterexample": "a wrong result"}


def test_unmet_mutants_are_not_evaluated_and_unexecuted_ones_not_reached(tmp_path: Path):
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "__init__.py").write_text("")
    (src / "pkg" / "calc.py").write_text(MODULE)
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "negate_identity.diff").write_text(PATCH)
    replies = {
        "pkg.calc:double": {"candidates": [candidate("even", "assert double(x) % 2 == 0\nassert double(x) == 2 * x")]},
        # Unsound (fails for every x != 0): negate has no sound candidate, so nothing meets its mutants.
        "pkg.calc:negate": {"candidates": [candidate("wrong", "assert negate(x) == x")]},
    }
    (tmp_path / "replies.json").write_text(json.dumps(replies))
    result = run(src, Settings(model=f"replay:{tmp_path / 'replies.json'}", workspace=tmp_path / "ws",
                               known_bad=tmp_path / "bad", jobs=1, max_examples=30, seeds=2))
    data = json.loads(result.report_paths[0].read_text())
    status = {m["id"]: m["status"] for m in data["mutants"]}
    assert status["known_bad:negate_identity.diff@pkg.calc:negate"] == "not_evaluated"
    # The branch for x < -10**9 never runs under st.integers(-1000, 1000): its mutants are not reached, not run.
    unreached = [m for m in data["mutants"] if m["status"] == "not_reached"]
    assert unreached and all(m["target"] == "pkg.calc:double" and m["line"] == 4 for m in unreached)
    assert "killed" in status.values()
    targets = {t["id"]: t for t in data["targets"]}
    assert targets["pkg.calc:negate"]["mutants"] == 0 and targets["pkg.calc:negate"]["not_evaluated"] == 1
    assert data["summary"]["mutation_score"]["pkg.calc:negate"] is None  # not 0%
    double = targets["pkg.calc:double"]
    assert double["not_reached"] == len(unreached) and double["mutants"] > double["killed"]
    assert data["summary"]["mutants"]["not_evaluated"] == 1
    assert data["summary"]["mutants"]["not_reached"] == len(unreached)
    assert data["summary"]["matrix"]["not_reached_pairs"] == len(unreached)
    markdown = result.report_paths[1].read_text()
    assert "1 not evaluated" in markdown and f"Mutants not reached ({len(unreached)})" in markdown


def test_budget_caps_a_slow_candidates_clean_run_and_the_fast_one_beside_it_is_kept(tmp_path: Path):
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "__init__.py").write_text("")
    (src / "pkg" / "calc.py").write_text(MODULE + '''

def crawl(x: int) -> int:
    """Minus x, slowly: 0.1 s of this process's CPU a call (a budget counts CPU, not sleep)."""
    import time
    start = time.process_time()
    while time.process_time() - start < 0.1:
        pass
    return -x
''')
    replies = {
        "pkg.calc:negate": {"candidates": [candidate("twice_is_identity", "assert negate(negate(x)) == x")]},
        "pkg.calc:crawl": {"candidates": [candidate("twice_is_identity", "assert crawl(crawl(x)) == x")]},
    }
    (tmp_path / "replies.json").write_text(json.dumps(replies))
    result = run(src, Settings(model=f"replay:{tmp_path / 'replies.json'}", workspace=tmp_path / "ws",
                               jobs=1, max_examples=20, seeds=2, budget=1.0))
    data = json.loads(result.report_paths[0].read_text())
    verdicts = {c["target"]: (c["status"], c["reason"], c["detail"]) for c in data["candidates"]}
    status, reason, detail = verdicts["pkg.calc:crawl"]  # 20 examples x 0.2 CPU s against 1.0 CPU s
    assert (status, reason) == ("rejected", "timeout") and detail.startswith("over the budget of 1.0 CPU s"), detail
    assert verdicts["pkg.calc:negate"][0] == "kept"
    assert data["settings"]["budget"] == 1.0
