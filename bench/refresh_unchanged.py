"""`drafter refresh` of an unchanged 1,000-function source: how long, and how many model calls.

The baseline is a complete run drafted from a replay file (every target answers "no candidate", so the back half
stays cheap); the refresh then points at an OpenAI-compatible server on a port nothing listens on, so any call
would show up as an error. Prints the median of several refreshes and the ratio to the baseline run.
Run: .venv/bin/python bench/refresh_unchanged.py [FUNCTIONS] [REPEATS]
"""

import json
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

from drafter.config import Settings
from drafter.refresh import refresh


def main(functions: int = 1000, repeats: int = 5) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        package = tmp / "src" / "big"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        per_module = 50
        replies = {}
        for m in range(functions // per_module):
            body = []
            for f in range(per_module):
                name = f"f{m}_{f}"
                body.append(f'def {name}(x: int, y: int = {f}) -> int:\n    """Function {name}."""\n    return x * {f} + y\n')
                replies[f"big.mod{m}:{name}"] = {"candidates": [], "note": "bench baseline"}
            (package / f"mod{m}.py").write_text("\n\n".join(body))
        (tmp / "replies.json").write_text(json.dumps(replies))
        workspace = tmp / "ws"

        started = time.perf_counter()
        first = refresh(tmp / "src", Settings(workspace=workspace, model=f"replay:{tmp / 'replies.json'}", jobs=1))
        baseline_seconds = time.perf_counter() - started
        assert first.run is not None and len(first.plan.changed) == functions

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            dead = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
        times = []
        for _ in range(repeats):
            started = time.perf_counter()
            again = refresh(tmp / "src", Settings(workspace=workspace, model="openai:bench", base_url=dead, retries=0))
            times.append(time.perf_counter() - started)
            assert again.run is None and len(again.plan.unchanged) == functions
        calls = 0 if again.run is None else len(again.run.outcome.draft.replies)
        median = statistics.median(times)
        print(f"targets: {functions}; baseline run (replay, no candidates): {baseline_seconds:.2f} s")
        print(f"unchanged refresh: model calls {calls}, new runs 0, median {median:.2f} s of {repeats} "
              f"(min {min(times):.2f}, max {max(times):.2f}); baseline/refresh ratio {baseline_seconds / median:.1f}x")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
