"""What a call back from production code to the test process costs, against a plain call into the sandbox.

Starts the gate's sandbox on a throwaway package and times, medians of 7: sorting 2000 items in production code
without a key and with a test-side key (2000 call backs), taking 2000 items from an endless test-side iterator
(one at a time), and 200 plain calls. Prints milliseconds and microseconds per call back; CPU seconds of this
process (the test process) beside wall time.

Usage: python bench/gate_callbacks.py
"""

import itertools
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PRODUCTION = '''import itertools


def ranked(items, key=None):
    return sorted(items, key=key)


def first(iterable, n):
    return list(itertools.islice(iterable, n))
'''


def _median(fn, repeats: int = 7) -> tuple[float, float]:
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    sys.path.insert(0, str(REPO))
    import gate.proxy as proxy

    with tempfile.TemporaryDirectory(prefix="gate-callbacks-") as folder:
        (Path(folder) / "cbbench").mkdir()
        (Path(folder) / "cbbench" / "__init__.py").write_text(PRODUCTION)
        proxy.install(str(REPO), [folder], {"exclude": [], "budget": 600, "call_timeout": 60})
        import cbbench

        items = list(range(2000))
        plain = _median(lambda: cbbench.ranked(items))
        keyed = _median(lambda: cbbench.ranked(items, key=lambda x: -x))
        lazy = _median(lambda: cbbench.first(itertools.count(), 2000))
        calls = _median(lambda: [cbbench.ranked([]) for _ in range(200)])
        print(f"sort 2000 items, no key:              {plain[0] * 1e3:7.1f} ms wall, {plain[1] * 1e3:7.1f} ms CPU here")
        print(f"sort 2000 items, test-side key:       {keyed[0] * 1e3:7.1f} ms wall, {keyed[1] * 1e3:7.1f} ms CPU here "
              f"({(keyed[0] - plain[0]) / 2000 * 1e6:.0f} us per call back)")
        print(f"2000 items of an endless iterator:    {lazy[0] * 1e3:7.1f} ms wall "
              f"({lazy[0] / 2000 * 1e6:.0f} us per item)")
        print(f"one plain call into the sandbox:      {calls[0] / 200 * 1e6:7.0f} us wall")
        print(f"a call back against a plain call:     {(keyed[0] - plain[0]) / 2000 / (calls[0] / 200):.2f}x")
        print(f"sandbox: {proxy.stats()}")


if __name__ == "__main__":
    main()
