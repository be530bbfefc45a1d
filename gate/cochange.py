"""Co-change: no single commit in base..HEAD may touch both the production tree and the oracle tree. What a commit
touches is its tree against its parent's, compared the way the patch write-set is (gate.writeset)."""

from pathlib import Path

from gate import gitutil, writeset
from gate.check import Check, GateError


def _under(path: str, trees: tuple[str, ...]) -> bool:
    return any(path == t or path.startswith(t + "/") for t in trees)


def _trees(value: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    items = value.split(",") if isinstance(value, str) else list(value)
    trees = tuple(p.strip().strip("/") for p in items if p.strip().strip("/"))
    if not trees:
        raise GateError(f"no tree named in {value!r}")
    return trees


def check_cochange(repo: Path, base: str, src: str = "src", oracle: str = "oracle") -> Check:
    """Blocks on any commit touching both trees (renames count on both sides); lists oracle-touching commits."""
    root = gitutil.repo_root(repo)
    prod_trees, oracle_trees = _trees(src), _trees(oracle)
    both, oracle_commits = [], []
    for commit in gitutil.commits_in_range(root, base):
        paths = {p for change in writeset.commit_changes(root, commit) for p in change.paths}
        touches_oracle = any(_under(p, oracle_trees) for p in paths)
        if not touches_oracle:
            continue
        line = f"{commit[:12]} {gitutil.commit_subject(root, commit)}"
        oracle_commits.append(line)
        if any(_under(p, prod_trees) for p in paths):
            both.append(f"co-change: {line} touches both {','.join(prod_trees)} and {','.join(oracle_trees)}")
    reasons = tuple(both) or (f"no commit touches both trees; {len(oracle_commits)} commits touch the oracle",)
    return Check("cochange", not both, reasons, {"cochange": both, "oracle_commits": oracle_commits})
