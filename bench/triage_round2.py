"""Round 2 with and without triage in the feedback prompt: the mutation score each set of replies reaches.

    python bench/triage_round2.py

Round 1 replays bench/inflection_replies.json. Round 2 replays one of two reply sets, each written blind (before
any round-2 result was seen), as a model would answer the round-2 prompt of bench/vendor/inflection:
bench/inflection_triage_round2_without.json answers the prompt with survivors as diffs only (triage_examples = 0),
bench/inflection_triage_round2_with.json the prompt with each survivor's distinguishing input and the survivors
with no difference found listed last, marked. A replay answers whatever the prompt says, so both runs here use
triage_examples = 0: the score after round 2 depends only on the replies.
"""

from __future__ import annotations

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


def main() -> None:
    first = json.loads((REPO / "bench" / "inflection_replies.json").read_text(encoding="utf-8"))
    for name in ("without", "with"):
        later = json.loads((REPO / "bench" / f"inflection_triage_round2_{name}.json").read_text(encoding="utf-8"))
        with tempfile.TemporaryDirectory() as scratch:
            replay = Path(scratch) / "replies.json"
            replay.write_text(json.dumps({**first, "rounds": later["rounds"]}), encoding="utf-8")
            result = run(REPO / "bench" / "vendor" / "inflection",
                         Settings(model=f"replay:{replay}", workspace=Path(scratch) / "ws", jobs=2, max_examples=50,
                                  rounds=2, triage_examples=0))
            report = json.loads((result.run_dir / "report.json").read_text(encoding="utf-8"))
        rows = report["summary"]["rounds"]
        left = sorted(m["id"] for m in report["mutants"] if m["status"] in ("survived", "not_reached"))
        print(f"## round 2 replies {name} the distinguishing inputs")
        for row in rows:
            print(f"after round {row['round']}: {row['killed']}/{row['mutants']} killed, {row['kept']} kept")
        print("still surviving: " + ", ".join(left))
        print()


if __name__ == "__main__":
    main()
