"""The oracle snapshot covers more than oracle/: conftests, pytest config sections, named plugins, site hooks."""

import json

import pytest

from gate.snapshot import compare_snapshot, write_snapshot

BASE = {
    "oracle/properties/test_p.py": "def test_p():\n    assert True\n",
    "src/app.py": "X = 1\n",
    "tests/conftest.py": "pytest_plugins = ['helpers.plug']\n",
    "helpers/plug.py": "# plugin\n",
    "pyproject.toml": "[project]\nname = 'x'\n\n[tool.pytest.ini_options]\naddopts = '-p localplug'\n",
    "localplug.py": "# named by addopts\n",
}


@pytest.mark.parametrize(("edit", "finding"), [
    ({"oracle/properties/test_p.py": "def test_p():\n    pass\n"}, "changed: oracle/properties/test_p.py"),
    ({"src/deep/conftest.py": "import pytest\n"}, "added: src/deep/conftest.py"),
    ({"tests/conftest.py": None}, "removed: tests/conftest.py"),
    ({"helpers/plug.py": "# rewritten\n"}, "changed: plugin:helpers.plug"),
    ({"localplug.py": "def pytest_runtest_makereport(): ...\n"}, "changed: plugin:localplug"),
    ({"pyproject.toml": "[project]\nname = 'x'\n\n[tool.pytest.ini_options]\naddopts = '-p no:localplug'\n"},
     "changed: pyproject.toml#[tool.pytest]"),
    ({"src/sitecustomize.py": "import os\n"}, "added: src/sitecustomize.py"),
    ({"setup.cfg": "[tool:pytest]\naddopts = -x\n"}, "added: setup.cfg#[tool:pytest]"),
])
def test_any_surface_change_invalidates_the_run(tmp_path, h, edit, finding):
    root = tmp_path / "repo"
    h.write(root, BASE)
    snap = tmp_path / "snap.json"
    write_snapshot(root, snap)
    assert compare_snapshot(root, snap).ok
    h.write(root, edit)
    check = compare_snapshot(root, snap)
    assert not check.ok and finding in check.data["findings"]


def test_production_and_unrelated_config_changes_keep_the_snapshot(tmp_path, h):
    root = tmp_path / "repo"
    h.write(root, BASE)
    snap = tmp_path / "snap.json"
    assert h.gate("snapshot", root, "--out", snap).returncode == 0
    assert "plugin:localplug" in json.loads(snap.read_text())["entries"]
    h.write(root, {"src/app.py": "X = 2\n", "pyproject.toml": BASE["pyproject.toml"].replace("'x'", "'y'")})
    code, data = h.gate_json("snapshot", root, "--compare", snap)
    assert (code, data["findings"]) == (0, [])


def test_snapshot_needs_exactly_one_mode_and_a_valid_file(tmp_path, h):
    root = tmp_path / "repo"
    h.write(root, BASE)
    assert h.gate("snapshot", root).returncode == 3
    (tmp_path / "bad.json").write_text('{"version": 1}')
    done = h.gate("snapshot", root, "--compare", tmp_path / "bad.json")
    assert done.returncode == 3 and "bad.json" in done.stderr
