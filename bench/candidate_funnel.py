"""The candidate funnel: parsed → past lint → sound → kept, for one source tree and one replay file.

    python bench/candidate_funnel.py                      # examples/shop and bench/vendor/inflection
    python bench/candidate_funnel.py SRC REPLAY [--corpus DIR] [--known-bad DIR]

Runs the whole pipeline (replay model, 2 workers, 50 examples) and prints, from report.json, how many items of the
replies each stage let through, the rejections by reason and the mutants killed. To compare with another revision,
run the same file with that revision's drafter first on the path: PYTHONPATH=/path/to/checkout python bench/... .
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.append(str(REPO))  # appended, so a PYTHONPATH checkout of another revision wins
sys.dont_write_bytecode = True

from drafter.config import Settings  # noqa: E402
from drafter.pipeline import run  # noqa: E402

DEFAULTS = [
    (REPO / "examples" / "shop", REPO / "examples" / "shop" / "replies.json", "corpus", "known_bad"),
    (REPO / "bench" / "vendor" / "inflection", REPO / "bench" / "inflection_replies.json", None, None),
]


def funnel(src: Path, replies: Path, corpus: Path | None, known_bad: Path | None) -> dict:
    with tempfile.TemporaryDirectory() as workspace:
        settings = Settings(model=f"replay:{replies}", workspace=Path(workspace), corpus=(corpus,) if corpus else (),
                            known_bad=known_bad, jobs=2, max_examples=50)
        result = run(src, settings)
        report = json.loads((result.run_dir / "report.json").read_text())
    items = [c for c in report["candidates"] if not c["id"].endswith("::#reply")]
    stages = Counter(c["stage"] for c in items)
    parsed = len(items) - stages["parse"]
    past_lint = parsed - stages["lint"]
    sound = stages["sabotage"] + stages["kept"]
    return {
        "replies": len(report["targets"]), "items": len(items), "parsed": parsed, "past_lint": past_lint,
        "rendered": past_lint - stages["render"], "sound": sound, "kept": stages["kept"],
        "targets_kept": len({c["target"] for c in items if c["stage"] == "kept"}),
        "reasons": Counter(f"{c['stage']}:{c['reason']}" for c in items if c["reason"]),
        "mutants": report["summary"]["mutants"],
    }


def show(name: str, f: dict) -> None:
    def pct(n: int) -> str:
        return f"{n} ({100 * n / f['parsed']:.0f}%)" if f["parsed"] else str(n)

    print(f"## {name}: {f['items']} items in replies for {f['replies']} targets")
    print(f"parsed {f['parsed']} → past lint {pct(f['past_lint'])} → sound {pct(f['sound'])} → kept {pct(f['kept'])}"
          f"   (targets with a kept candidate: {f['targets_kept']}/{f['replies']})")
    print("rejections: " + ", ".join(f"{r} {n}" for r, n in sorted(f["reasons"].items())))
    m = f["mutants"]
    print(f"mutants: {m['killed']} killed of {m['total']} ({100 * m['killed'] / max(m['total'], 1):.0f}%; "
          f"{m['survived']} survived, {m['timeout']} timeout, {m['invalid']} invalid; mutants of targets without a "
          "sound candidate are not evaluated)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", nargs="?", type=Path)
    parser.add_argument("replies", nargs="?", type=Path)
    parser.add_argument("--corpus", type=Path)
    parser.add_argument("--known-bad", type=Path)
    args = parser.parse_args()
    if args.src:
        cases = [(args.src, args.replies, args.corpus, args.known_bad)]
    else:
        cases = [(src, replies, src / corpus if corpus else None, src / bad if bad else None)
                 for src, replies, corpus, bad in DEFAULTS]
    import drafter
    print(f"drafter from {Path(drafter.__file__).parent}")
    for src, replies, corpus, known_bad in cases:
        show(src.name, funnel(src.resolve(), replies.resolve(), corpus, known_bad))


if __name__ == "__main__":
    main()
