"""Sharding, merging, resuming and the result cache on a vendored real package, as whole `drafter` processes.

Measures, in one go: an unsharded run (CPU and wall); N shards of it (CPU each, the imbalance largest / mean);
the merge's cost and whether the merged report equals the unsharded one; an identical rerun with the result cache
(CPU against the first run); a run SIGKILLed once sabotage has written its first result, then resumed (the CPU
of both parts against an uninterrupted run). CPU is user+sys of drafter and every worker it forks (this process
becomes their subreaper, so the workers of the killed run are counted too).

Run: .venv/bin/python bench/sharding.py [--src bench/vendor/inflection] [--model replay:bench/inflection_replies.json]
     [--shards 3] [--max-examples 100] [--seeds 5] [--select GLOB]...
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PR_SET_CHILD_SUBREAPER = 36


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def reap_orphans() -> None:
    """Wait for every process left to us (workers of a killed run), so their CPU is counted."""
    while True:
        try:
            os.wait()
        except ChildProcessError:
            return


def drafter(*args: str) -> tuple[float, float, subprocess.CompletedProcess]:
    cpu, wall = children_cpu(), time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "drafter.cli", *args], capture_output=True, text=True)
    reap_orphans()
    if done.returncode not in (0, 3):
        raise SystemExit(f"drafter {' '.join(args)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return children_cpu() - cpu, time.perf_counter() - wall, done


def stable(report: Path) -> dict:
    data = json.loads(report.read_text())
    for key in ("run_id",):
        data.pop(key)
    data["source"].pop("git_commit")
    data["summary"].pop("seconds")
    data["summary"]["matrix"].pop("seconds")
    data["summary"]["matrix"].pop("test_seconds")
    data["settings"].pop("jobs")
    data["warnings"] = [w for w in data["warnings"] if not w.startswith(("result cache", "mutant cache", "reply cache"))]
    return data


def only_run(workspace: Path) -> Path:
    (found,) = [p for p in (workspace / "runs").iterdir() if p.is_dir()]
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--src", default=str(REPO / "bench" / "vendor" / "inflection"))
    parser.add_argument("--model", default=f"replay:{REPO / 'bench' / 'inflection_replies.json'}")
    parser.add_argument("--shards", type=int, default=3)
    parser.add_argument("--max-examples", default="100")
    parser.add_argument("--seeds", default="5")
    parser.add_argument("--jobs", default="2")
    parser.add_argument("--select", action="append", default=[])
    args = parser.parse_args()
    ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    common = [args.src, "--model", args.model, "--max-examples", args.max_examples, "--seeds", args.seeds,
              "--jobs", args.jobs, *[w for s in args.select for w in ("--select", s)]]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        whole_cpu, whole_wall, _ = drafter("run", *common, "--workspace", str(tmp / "whole"))
        whole = only_run(tmp / "whole")
        targets = len(json.loads((whole / "report.json").read_text())["targets"])
        print(f"{Path(args.src).name}: {targets} targets, --max-examples {args.max_examples} --seeds {args.seeds} "
              f"--jobs {args.jobs}")
        print(f"unsharded run: CPU {whole_cpu:.1f} s, wall {whole_wall:.1f} s")

        shard_cpu, shard_runs = [], []
        for k in range(1, args.shards + 1):
            cpu, wall, _ = drafter("run", *common, "--workspace", str(tmp / f"shard{k}"), "--shard", f"{k}/{args.shards}")
            shard_cpu.append(cpu)
            shard_runs.append(only_run(tmp / f"shard{k}"))
            record = json.loads((shard_runs[-1] / "shard.json").read_text())
            print(f"shard {k}/{args.shards}: {len(record['targets'])} targets (cost estimate {record['costs'][k - 1]}), "
                  f"CPU {cpu:.1f} s, wall {wall:.1f} s")
        mean = sum(shard_cpu) / len(shard_cpu)
        print(f"shards: CPU total {sum(shard_cpu):.1f} s ({sum(shard_cpu) / whole_cpu:.2f}x the unsharded run), "
              f"largest {max(shard_cpu):.1f} s = critical path {max(shard_cpu) / whole_cpu:.2f}x the unsharded run; "
              f"imbalance largest/mean {max(shard_cpu) / mean:.2f}")
        merge_cpu, merge_wall, _ = drafter("merge", *map(str, shard_runs), "--workspace", str(tmp / "merged"))
        merged = (tmp / "merged" / "latest").resolve()
        same = stable(merged / "report.json") == stable(whole / "report.json")
        print(f"merge: CPU {merge_cpu:.2f} s, wall {merge_wall:.2f} s; merged report equals the unsharded one: {same}")

        again_cpu, again_wall, _ = drafter("run", *common, "--workspace", str(tmp / "whole"))
        print(f"identical rerun with the result cache: CPU {again_cpu:.2f} s, wall {again_wall:.2f} s = "
              f"{again_cpu / whole_cpu:.1%} of the first run's CPU")

        workspace = tmp / "resumed"
        cpu = children_cpu()
        process = subprocess.Popen([sys.executable, "-m", "drafter.cli", "run", *common, "--workspace", str(workspace),
                                    "--no-cache"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   start_new_session=True)
        journal = None
        while process.poll() is None and journal is None:
            found = list(workspace.glob("runs/*.incomplete/results/kill/*/*.json"))
            journal = found[0].parents[2] if found else None
            time.sleep(0.05)
        if journal is None:
            raise SystemExit("the run ended before its first kill matrix was written; nothing to resume")
        # Let sabotage get about half-way, by its own journal, then kill the whole process group.
        facing = len(list((whole / "results" / "kill").glob("*/*.json")))
        while process.poll() is None and len(list((journal / "kill").glob("*/*.json"))) < max(1, facing // 2):
            time.sleep(0.05)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        reap_orphans()
        killed_cpu = children_cpu() - cpu
        done = len(list((journal / "kill").glob("*/*.json")))
        resume_cpu, resume_wall, result = drafter("run", *common, "--no-cache", "--resume", str(journal.parent))
        final = (workspace / "latest").resolve()
        same = stable(final / "report.json") == stable(whole / "report.json")
        print(f"killed mid-sabotage after {done} targets' kill matrices: CPU {killed_cpu:.1f} s; resume: CPU "
              f"{resume_cpu:.1f} s, wall {resume_wall:.1f} s; total {killed_cpu + resume_cpu:.1f} s = "
              f"{(killed_cpu + resume_cpu) / whole_cpu:.2f}x an uninterrupted run; same report: {same}")


if __name__ == "__main__":
    main()
