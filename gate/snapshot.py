"""Oracle snapshot: digests of everything that can change a grade, taken before the agent runs, compared after.

The surface is the oracle folder plus every conftest.py, pytest configuration (pytest.ini, the pytest sections of
tox.ini/setup.cfg, `[tool.pytest...]` in pyproject.toml), the project files of pytest plugins named there or in a
conftest's `pytest_plugins`, and every sitecustomize.py/usercustomize.py.
"""

import configparser
import hashlib
import os
import shlex
import tomllib
from pathlib import Path

import libcst as cst

from gate.check import Check, GateError, read_json, sha256_file, stable_json, write_atomic
from gate.lock import compare_digests, hash_tree

SNAPSHOT_VERSION = 1
HOOK_FILES = frozenset({"conftest.py", "sitecustomize.py", "usercustomize.py", "pytest.ini", ".pytest.ini"})
INI_SECTIONS = {"tox.ini": "pytest", "setup.cfg": "tool:pytest"}
PRUNED_DIRS = frozenset({".git", "__pycache__", "node_modules", ".hypothesis", ".pytest_cache"})


def _text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _walk(root: Path):
    """Project files, skipping VCS internals, caches and virtual environments."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in PRUNED_DIRS and not (Path(folder) / d / "pyvenv.cfg").exists())
        for name in sorted(files):
            yield Path(folder) / name


def _ini_section(path: Path, section: str) -> dict[str, str] | None:
    parser = configparser.RawConfigParser()
    try:
        parser.read_string(path.read_text(encoding="utf-8"), source=str(path))
    except (OSError, UnicodeDecodeError, configparser.Error) as exc:
        raise GateError(f"cannot parse {path}: {exc}") from None
    return dict(parser.items(section)) if parser.has_section(section) else None


def _pyproject_pytest(path: Path) -> dict | None:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise GateError(f"cannot parse {path}: {exc}") from None
    return data.get("tool", {}).get("pytest")


def _plugins_in_options(options: object) -> list[str]:
    """Plugin module names from `-p NAME` in addopts and from `pytest_plugins`/`required_plugins` style lists."""
    if isinstance(options, dict):
        names = []
        for key, value in options.items():
            if key == "addopts":
                words = shlex.split(value) if isinstance(value, str) else [str(w) for w in value]
                names += [words[i + 1] for i, w in enumerate(words[:-1]) if w == "-p"]
                names += [w[2:] for w in words if w.startswith("-p") and len(w) > 2]
            elif isinstance(value, dict):
                names += _plugins_in_options(value)
        return names
    return []


class _PytestPlugins(cst.CSTVisitor):
    """Collects string names assigned to a module-level `pytest_plugins`."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        if any(isinstance(t.target, cst.Name) and t.target.value == "pytest_plugins" for t in node.targets):
            for s in _strings(node.value):
                self.names.append(s)


def _strings(node: cst.CSTNode) -> list[str]:
    if isinstance(node, cst.SimpleString):
        return [node.evaluated_value] if isinstance(node.evaluated_value, str) else []
    if isinstance(node, (cst.List, cst.Tuple)):
        return [s for el in node.elements for s in _strings(el.value)]
    return []


def _conftest_plugins(path: Path) -> list[str]:
    try:
        module = cst.parse_module(path.read_bytes())
    except (OSError, cst.ParserSyntaxError) as exc:
        # An unparsable conftest is still hashed; its plugin list is simply unknown.
        return [f"<unparsable {path.name}: {type(exc).__name__}>"]
    visitor = _PytestPlugins()
    module.visit(visitor)
    return visitor.names


def plugin_file(root: Path, name: str) -> Path | None:
    rel = Path(*name.split("."))
    for base in (root, root / "src"):
        for candidate in (base / rel.with_suffix(".py"), base / rel / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


def surface(root: Path, oracle: str = "oracle", exclude: set[str] | frozenset[str] = frozenset()) -> dict[str, str]:
    """Digest per surface entry; keys are POSIX paths, `path#[section]` for config sections, `plugin:NAME`.
    exclude names files the gate itself rewrites (the ledger and its lock)."""
    root = Path(root)
    if not root.is_dir():
        raise GateError(f"{root} is not a folder")
    entries: dict[str, str] = {}
    oracle_dir = root / oracle
    if oracle_dir.is_dir():
        for rel, digest in hash_tree(oracle_dir).items():
            if "__pycache__" not in rel.split("/"):
                entries[f"{Path(oracle).as_posix()}/{rel}"] = digest
    plugins: list[str] = []
    for path in _walk(root):
        rel = path.relative_to(root).as_posix()
        if path.name in HOOK_FILES:
            entries[rel] = sha256_file(path)
            if path.name == "conftest.py":
                plugins += _conftest_plugins(path)
            elif path.name.endswith("pytest.ini"):
                plugins += _plugins_in_options(_ini_section(path, "pytest") or {})
        elif path.name in INI_SECTIONS and rel.count("/") == 0:
            section = _ini_section(path, INI_SECTIONS[path.name])
            if section is not None:
                entries[f"{rel}#[{INI_SECTIONS[path.name]}]"] = _text_digest(stable_json(section))
                plugins += _plugins_in_options(section)
        elif path.name == "pyproject.toml" and rel.count("/") == 0:
            table = _pyproject_pytest(path)
            if table is not None:
                entries[f"{rel}#[tool.pytest]"] = _text_digest(stable_json(table))
                plugins += _plugins_in_options(table)
    for name in sorted(set(plugins)):
        found = plugin_file(root, name)
        entries[f"plugin:{name}"] = sha256_file(found) if found else "not-in-repository"
    return dict(sorted((k, v) for k, v in entries.items() if k not in exclude))


def write_snapshot(root: Path, out: Path, oracle: str = "oracle") -> Check:
    entries = surface(root, oracle)
    write_atomic(out, stable_json({"version": SNAPSHOT_VERSION, "oracle": oracle, "entries": entries}))
    return Check("snapshot", True, (f"snapshot of {len(entries)} oracle-surface entries written to {out}",),
                 {"entries": entries})


def compare_snapshot(root: Path, snapshot: Path, oracle: str | None = None,
                     exclude: set[str] | frozenset[str] = frozenset()) -> Check:
    """Any added, removed or changed surface entry invalidates the run (except the excluded files the gate
    rewrites itself)."""
    data = read_json(snapshot, "snapshot")
    if not isinstance(data, dict) or data.get("version") != SNAPSHOT_VERSION or not isinstance(data.get("entries"), dict):
        raise GateError(f"snapshot {snapshot}: expected {{\"version\": {SNAPSHOT_VERSION}, \"entries\": {{...}}}}")
    oracle = oracle or data.get("oracle") or "oracle"
    findings = [line.replace("missing:", "removed:").replace("untracked:", "added:")
                for line in compare_digests({k: v for k, v in data["entries"].items() if k not in exclude},
                                                surface(root, oracle, exclude))]
    return Check("snapshot", not findings, tuple(findings) or ("oracle surface unchanged since the snapshot",),
                 {"findings": findings})
