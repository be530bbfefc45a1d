"""A package's public API wherever it is defined: which names public modules re-export from private ones.

`pathvalidate/__init__.py` doing `from ._filename import sanitize_filename` makes `pathvalidate._filename`'s
function public as `pathvalidate:sanitize_filename`. Read with libcst from the parsed modules; nothing is imported."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import libcst as cst

from drafter.usage import _dotted
from drafter.walk import is_private

STAR = "*"
MAX_HOPS = 8  # re-exports of re-exports: a package tree deeper than this is not followed (and never loops)


@dataclass
class ModuleImports:
    """What one module binds from other modules of SRC, and the names it lists in `__all__`."""

    names: dict[str, tuple[str, str]] = field(default_factory=dict)  # local name -> (source module, source name)
    stars: list[str] = field(default_factory=list)  # modules imported with `*`
    all: tuple[str, ...] | None = None


def read_imports(statements: Iterable[cst.CSTNode], module: str, is_package: bool, known: set[str]) -> ModuleImports:
    """The module-level `from X import a as b` among `statements` whose X is a module of SRC (`known`), and the
    module's `__all__`."""
    found = ModuleImports()
    package = module if is_package else module.rpartition(".")[0]
    for statement in statements:
        if isinstance(statement, cst.ImportFrom):
            source = _source_module(statement, package)
            if source is None:
                continue
            if isinstance(statement.names, cst.ImportStar):
                if source in known:
                    found.stars.append(source)
                continue
            for alias in statement.names:
                name = _dotted(alias.name)
                local = _dotted(alias.asname.name) if alias.asname else name
                if f"{source}.{name}" in known:
                    continue  # `from . import _impl`: a module, not a function or class
                if source in known and name and local:
                    found.names[local] = (source, name)
        elif isinstance(statement, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            listed = _all_names(statement)
            if listed is not None:
                found.all = (found.all or ()) + listed if isinstance(statement, cst.AugAssign) else listed
    return found


def public_paths(imports: Mapping[str, ModuleImports], definitions: Mapping[str, set[str]],
                 packages: set[str]) -> dict[tuple[str, str], str]:
    """(defining module, top-level name) -> the public module users reach it from, for definitions in private
    modules that a public package `__init__` imports or a public module lists in `__all__` (its defining module
    when it is re-exported under another name).

    `definitions`: module -> the top-level names it defines. When several public modules re-export one name, the
    shortest path wins (`pkg` over `pkg.api`), then the first in sorted order."""
    found: dict[tuple[str, str], str] = {}
    for module in sorted(imports, key=lambda m: (m.count("."), m)):
        if is_private(module):
            continue
        entry = imports[module]
        for local, origin in _exported(entry, imports, definitions, module in packages):
            # Renamed on the way out (`import a as b`): public, but drafted under the id where it is defined.
            found.setdefault(origin, module if local == origin[1] else origin[0])
    return found


def _exported(entry: ModuleImports, imports: Mapping[str, ModuleImports], definitions: Mapping[str, set[str]],
              is_init: bool) -> Iterable[tuple[str, tuple[str, str]]]:
    """(public name, its defining (module, name)) for what a module re-exports from private modules."""
    listed = set(entry.all or ())
    candidates = dict(entry.names)
    for star in entry.stars:
        candidates.update({n: (star, n) for n in _star_names(star, imports, definitions)})
    for local, (source, name) in sorted(candidates.items()):
        if not (is_init or local in listed):
            continue
        origin = _definition(source, name, imports, definitions)
        if origin is not None and is_private(origin[0]):
            yield local, origin


def _definition(module: str, name: str, imports: Mapping[str, ModuleImports],
                definitions: Mapping[str, set[str]]) -> tuple[str, str] | None:
    """Where `module.name` is really defined, following re-exports a few hops."""
    for _ in range(MAX_HOPS):
        if name in definitions.get(module, ()):
            return module, name
        entry = imports.get(module)
        if entry is None:
            return None
        if name in entry.names:
            module, name = entry.names[name]
            continue
        star = next((s for s in entry.stars if name in _star_names(s, imports, definitions)), None)
        if star is None:
            return None
        module = star
    return None


def _star_names(module: str, imports: Mapping[str, ModuleImports], definitions: Mapping[str, set[str]]) -> set[str]:
    entry = imports.get(module)
    if entry is not None and entry.all is not None:
        return set(entry.all)
    own = set(definitions.get(module, ())) | set(entry.names if entry else ())
    return {n for n in own if not n.startswith("_")}


def _source_module(statement: cst.ImportFrom, package: str) -> str | None:
    level = len(statement.relative)
    dotted = _dotted(statement.module) if statement.module else ""
    if level == 0:
        return dotted or None
    parts = package.split(".") if package else []
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    return ".".join(base + ([dotted] if dotted else [])) or None


def _all_names(statement: cst.CSTNode) -> tuple[str, ...] | None:
    target = statement.targets[0].target if isinstance(statement, cst.Assign) and len(statement.targets) == 1 \
        else getattr(statement, "target", None)
    if not (isinstance(target, cst.Name) and target.value == "__all__"):
        return None
    value = statement.value
    if not isinstance(value, (cst.List, cst.Tuple, cst.Set)):
        return None
    return tuple(e.value.evaluated_value for e in value.elements
                 if isinstance(e.value, cst.SimpleString) and isinstance(e.value.evaluated_value, str))
