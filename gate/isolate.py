"""Where the properties run: the oracle from a copy of the base outside the patched tree, in an isolated
interpreter whose pytest, Hypothesis and gate plugin are imported before any path of the patch exists.

`python -I` drops PYTHONPATH, the user site and the script folder; plugin autoload is off and every plugin the gate
needs is named, so a `.dist-info` entry point in the patch loads nothing. The patched tree is *appended* to
`sys.path`, so a `pytest.py`, `hypothesis.py`, `decimal.py` or `gate/` in it can never shadow a real module.
"""

import configparser
import importlib.util
import json
import os
import shutil
import sys
import tomllib
from pathlib import Path

import gate
from gate.check import GateError
from gate.writeset import COPY_IGNORED

ROOT_CONFIG = ("pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml", "conftest.py")
# Imported first, from the gate's own environment. By default the patched tree never joins sys.path: its packages
# are proxies whose calls run in a sandbox process (gate.proxy). With --trust-patch-code it is appended instead.
# pytest's own arguments come in the environment, not argv, so no other process reads the seed in /proc.
BOOTSTRAP = """\
import json, os, sys
gate_parent, prod, mode = sys.argv[1], sys.argv[2].split(os.pathsep), sys.argv[3]
del sys.argv[1:4]
sys.path.insert(0, gate_parent)
import pytest, hypothesis, _hypothesis_pytestplugin, gate.pytest_plugin, gate.check, gate.ledger, gate.seal
for optional in ("pytest_timeout", "pytest_reportlog"):
    try:
        __import__(optional)
    except ImportError:
        pass
clock = os.environ.pop("ORACLE_GATE_CLOCK", "")
if clock:  # the clock-shifted vote: this whole process's clock moved ahead, still ticking
    import time_machine
    time_machine.travel(float(clock), tick=True).start()
if mode == "trust":
    sys.path.remove(gate_parent)
    sys.path.extend(prod)
elif mode.startswith("wall:"):
    import wall
    if not wall.build(("/",), mode[5:], (os.devnull,)):
        sys.exit("oracle-gate: no kernel wall for the in-process vote")
    sys.path.remove(gate_parent)
    sys.path.extend(prod)
else:
    import gate.proxy
    sys.path.remove(gate_parent)
    gate.proxy.install(gate_parent, prod, json.loads(mode))
sys.exit(pytest.main(json.loads(os.environ.pop("ORACLE_GATE_PYTEST_ARGS"))))
"""


OPTIONAL_PLUGINS = ("pytest_timeout", "pytest_reportlog")  # --timeout=…, --report-log=… when installed


def plugin_args() -> list[str]:
    """Every plugin named, since autoload is off."""
    names = ["gate.pytest_plugin", "_hypothesis_pytestplugin"]
    names += [name for name in OPTIONAL_PLUGINS if importlib.util.find_spec(name) is not None]
    return [word for name in names for word in ("-p", name)]


def pytest_ini(root: Path) -> dict[str, str]:
    """The pytest settings of the first configuration file pytest would read at root (pythonpath, testpaths)."""
    for name, section in ((("pytest.ini", "pytest"), (".pytest.ini", "pytest"), ("tox.ini", "pytest"),
                           ("setup.cfg", "tool:pytest"))):
        path = root / name
        if path.is_file():
            parser = configparser.RawConfigParser()
            try:
                parser.read(path, encoding="utf-8")
            except configparser.Error as exc:
                raise GateError(f"cannot parse {path}: {exc}") from None
            if parser.has_section(section) or name.endswith("pytest.ini"):
                return dict(parser.items(section)) if parser.has_section(section) else {}
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        try:
            table = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {}).get("pytest", {})
        except tomllib.TOMLDecodeError as exc:
            raise GateError(f"cannot parse {pyproject}: {exc}") from None
        options = table.get("ini_options", {})
        return {k: " ".join(v) if isinstance(v, list) else str(v) for k, v in options.items()}
    return {}


def oracle_side(base: Path, oracle: str = "oracle") -> list[str]:
    """The oracle folder, the test paths and the root configuration of the base's pytest settings."""
    settings = pytest_ini(base)
    keep = [oracle] + settings.get("testpaths", "").split() + [n for n in ROOT_CONFIG if (base / n).is_file()]
    return [rel.strip("/") for rel in dict.fromkeys(keep) if rel.strip("/")]


def copy_oracle(base: Path, dest: Path, oracle: str = "oracle") -> list[str]:
    """Copy the oracle side of the *base* checkout (the oracle folder, the test paths, root configuration and
    conftests) to dest; production code stays behind. Returns what was copied."""
    dest.mkdir(parents=True)
    copied = []
    for rel in oracle_side(base, oracle):
        source = base / rel
        if any(rel == done or rel.startswith(done.rstrip("/") + "/") for done in copied):
            continue
        if source.is_dir():
            shutil.copytree(source, dest / rel, symlinks=True,
                            ignore=shutil.ignore_patterns("__pycache__", ".hypothesis", ".pytest_cache"))
        elif source.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / rel)
        else:
            continue
        copied.append(rel)
    return copied


def copy_production(tree: Path, dest: Path, base: Path, oracle: str = "oracle") -> int:
    """Copy tree to dest without its oracle surface: what `oracle-gate snapshot` covers (the oracle folder, every
    conftest.py, pytest configuration, plugin files named there, site hooks) and what `copy_oracle` copies (the test
    paths). The sandbox imports production code from dest, so the properties' source, their examples and the sealed
    fixtures' expected values are nowhere it can read. Returns how many paths were left out."""
    from gate.snapshot import plugin_file, surface

    hidden = set(oracle_side(base, oracle))
    for key in surface(tree, oracle):
        if key.startswith("plugin:"):
            found = plugin_file(tree, key.removeprefix("plugin:"))
            hidden.update([found.relative_to(tree).as_posix()] if found else [])
        else:
            hidden.add(key.split("#", 1)[0])
    left_out = 0

    def ignored(folder: str, names: list[str]) -> set[str]:
        nonlocal left_out
        rel = Path(folder).relative_to(tree).as_posix()
        skip = {n for n in names if (n if rel == "." else f"{rel}/{n}") in hidden}
        left_out += len(skip)
        return skip | set(COPY_IGNORED(folder, names))

    shutil.copytree(tree, dest, symlinks=True, ignore=ignored)
    return left_out


def production_paths(patched: Path, base: Path) -> list[str]:
    """Where the production code is imported from: the patched tree at each `pythonpath` entry of the base's
    configuration (default the root)."""
    entries = pytest_ini(base).get("pythonpath", ".").split() or ["."]
    return [str((patched / entry).resolve()) for entry in entries]


def isolated_argv(patched: Path, base: Path, sandbox: dict | None, wall: Path | None = None) -> list[str]:
    """The oracle interpreter's command line; `sandbox` holds the proxy options, None trusts the patch's code
    (inside a kernel wall that lets it write only `wall`, when given)."""
    gate_parent = str(Path(gate.__file__).resolve().parent.parent)
    mode = "trust" if sandbox is None else json.dumps({**sandbox, "root": str(patched.resolve())})
    mode = f"wall:{wall.resolve()}" if sandbox is None and wall is not None else mode
    return [sys.executable, "-I", "-c", BOOTSTRAP, gate_parent, os.pathsep.join(production_paths(patched, base)),
            mode]


def sandbox_options(base: Path, oracle: str, budget: float) -> dict:
    """What the proxies need: the oracle's own top-level folders are never production code, and the budget."""
    settings = pytest_ini(base)
    exclude = {p.strip("/").split("/")[0] for p in [oracle] + settings.get("testpaths", "").split() if p.strip("/")}
    from gate.proxy import top_level_names

    return {"exclude": sorted(exclude), "budget": budget, "call_timeout": min(60.0, budget),
            "base_names": sorted(top_level_names(production_paths(base, base)))}
