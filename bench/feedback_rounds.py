"""Feedback rounds: the mutation score after round 1 and after round 2, and what round 2 cost in calls and tokens.

    python bench/feedback_rounds.py                  # examples/shop and bench/vendor/inflection
    python bench/feedback_rounds.py --keep DIR       # keep the workspaces (to read the rendered feedback prompts)

Round 1 replays the model-like replies of the funnel bench (examples/shop/replies.json, bench/inflection_replies.json);
round 2 replays bench/shop_feedback_replies.json / bench/inflection_feedback_replies.json, written by reading the
rendered feedback prompts (prompts/round2/*.txt of a run) and answering them as a strong model would, seeing only
what the prompt shows. Both are merged into one replay file ({..., "rounds": {"2": {...}}}) for the run.

Replays report no token usage, so tokens are ESTIMATED as characters / 4 of every message each call sends (system,
conversation history, user) plus its reply: a rough figure for English and code, not a tokenizer's count.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.append(str(REPO))
sys.dont_write_bytecode = True

from drafter.config import Settings  # noqa: E402
from drafter.pipeline import run  # noqa: E402

CASES = [
    ("shop", REPO / "examples" / "shop", REPO / "examples" / "shop" / "replies.json",
     REPO / "bench" / "shop_feedback_replies.json", "corpus", "known_bad"),
    ("inflection", REPO / "bench" / "vendor" / "inflection", REPO / "bench" / "inflection_replies.json",
     REPO / "bench" / "inflection_feedback_replies.json", None, None),
]


def merged_replay(first: Path, later: Path, folder: Path) -> Path:
    replies = json.loads(first.read_text(encoding="utf-8"))
    replies["rounds"] = json.loads(later.read_text(encoding="utf-8"))["rounds"] if later.is_file() else {}
    path = folder / "replies.json"
    path.write_text(json.dumps(replies), encoding="utf-8")
    return path


def estimated_tokens(run_dir: Path, calls: list[dict]) -> dict[int, int]:
    """Round -> chars/4 of the messages sent (the prompt files hold the whole conversation) and the replies."""
    tokens: dict[int, int] = {}
    for call in calls:
        slug = call["target"].replace(":", ".")
        sub = "" if call["round"] == 1 else f"round{call['round']}/"
        chars = 0
        for kind in ("prompts", "replies"):
            path = run_dir / kind / f"{sub}{slug}.txt"
            if path.is_file():
                text = path.read_text(encoding="utf-8")
                chars += len(text) if not text.startswith("# no reply:") else 0
        tokens[call["round"]] = tokens.get(call["round"], 0) + chars // 4
    return tokens


def measure(name: str, src: Path, first: Path, later: Path, corpus: str | None, known_bad: str | None,
            keep: Path | None) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        workspace = (keep / name) if keep else Path(scratch) / "ws"
        settings = Settings(model=f"replay:{merged_replay(first, later, Path(scratch))}", workspace=workspace,
                            corpus=(src / corpus,) if corpus else (), known_bad=src / known_bad if known_bad else None,
                            jobs=2, max_examples=50, rounds=2)
        result = run(src, settings)
        report = json.loads((result.run_dir / "report.json").read_text())
        calls = json.loads((result.run_dir / "model_calls.json").read_text())
        tokens = estimated_tokens(result.run_dir, calls)
    print(f"## {name} ({result.run_dir if keep else 'workspace removed'})")
    print("| round | targets asked | calls | est. tokens | candidates | kept | newly caught | mutation score |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in report["summary"]["rounds"]:
        k = row["round"]
        made = sum(1 for c in calls if c["round"] == k and c["error"] is None)
        score = f"{row['killed']}/{row['mutants']} ({100 * (row['mutation_score'] or 0):.1f}%)"
        print(f"| {k} | {len(row['asked'])} | {made} | {tokens.get(k, 0)} | {row['candidates']} | {row['kept']} | "
              f"{row['newly_caught']} | {score} |")
    print("per target (killed/mutants after round 1 → after round 2):")
    rows = report["summary"]["rounds"]
    for target in rows[0]["by_target"]:
        scores = [row["by_target"].get(target) for row in rows]
        if any(scores):
            print(f"  {target}: " + " → ".join(f"{s['killed']}/{s['mutants']}" if s else "-" for s in scores))
    print("stages, seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in report["summary"]["seconds"].items()))
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="keep each case's workspace under this folder")
    parser.add_argument("--only", choices=[c[0] for c in CASES])
    args = parser.parse_args()
    for case in CASES:
        if args.only in (None, case[0]):
            measure(*case, keep=args.keep.resolve() if args.keep else None)


if __name__ == "__main__":
    main()
