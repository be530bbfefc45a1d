"""Fixture lock, sidecar digests and the sealed manifest."""

import json
from pathlib import Path

from gate.check import GateError
from gate.seal import load_manifest


def _tree(root: Path) -> None:
    (root / "sub").mkdir(parents=True)
    (root / "a.json").write_text('{"x": 1}')
    (root / "sub" / "b.txt").write_bytes(b"hello")


def test_lock_verify_passes_then_reports_each_kind_of_drift(tmp_path, h):
    root, lock = tmp_path / "fx", tmp_path / "fixtures.lock.json"
    _tree(root)
    assert h.gate("lock", "write", "--root", root, "--lock", lock).returncode == 0
    assert list(json.loads(lock.read_text())["files"]) == ["a.json", "sub/b.txt"]
    assert h.gate("lock", "verify", "--root", root, "--lock", lock).returncode == 0

    (root / "sub" / "b.txt").write_bytes(b"hellp")  # one byte flipped
    (root / "a.json").unlink()
    (root / "new.txt").write_text("?")
    code, data = h.gate_json("lock", "verify", "--root", root, "--lock", lock)
    assert code == 2
    assert data["findings"] == ["missing: a.json", "untracked: new.txt", "changed: sub/b.txt"]


def test_malformed_lock_is_an_error_not_a_pass(tmp_path, h):
    root = tmp_path / "fx"
    _tree(root)
    bad = tmp_path / "bad.lock"
    bad.write_text('{"version": 1, "files": ["a.json"]}')
    done = h.gate("lock", "verify", "--root", root, "--lock", bad)
    assert done.returncode == 3 and "bad.lock" in done.stderr and '"files"' in done.stderr


def test_sidecar_digests(tmp_path, h):
    corpus = tmp_path / "corpus"
    _tree(corpus)
    good = h.gate("lock", "sidecars", corpus)
    assert good.returncode == 0  # no sidecars yet: nothing to contradict
    import hashlib
    (corpus / "a.json.sha256").write_text(hashlib.sha256(b'{"x": 1}').hexdigest() + "  a.json\n")
    (corpus / "sub" / "b.txt.sha256").write_text(hashlib.sha256(b"hello").hexdigest())
    code, data = h.gate_json("lock", "sidecars", corpus)
    assert (code, data["checked"]) == (0, 2)
    (corpus / "sub" / "b.txt").write_bytes(b"HELLO")
    code, data = h.gate_json("lock", "sidecars", corpus)
    assert code == 2 and data["findings"] == ["changed: sub/b.txt"]


def test_seal_verify_example_passes_and_flipped_byte_fails(gated, h):
    manifest = gated / "oracle" / "fixtures" / "manifest.json"
    code, data = h.gate_json("seal", "verify", "--manifest", manifest)
    assert code == 0
    assert data["fixtures"]["envelope-empty-200"]["must_remain"] == {"success": False}  # extra keys kept

    fixture = gated / "oracle" / "fixtures" / "envelope_ok.txt"
    raw = bytearray(fixture.read_bytes())
    raw[0] ^= 0x01
    fixture.write_bytes(bytes(raw))
    code, data = h.gate_json("seal", "verify", "--manifest", manifest)
    assert code == 2
    assert data["findings"] == ["changed: envelope_ok.txt (fixture 'envelope-ok'): sha256 mismatch"]
    try:
        load_manifest(manifest).fixture("envelope-ok").read_bytes()
        raise AssertionError("a changed fixture was handed to a property")
    except GateError as exc:
        assert "envelope-ok" in str(exc)
    assert load_manifest(manifest).fixture("envelope-no-content").read_text() == "status: 204\n"


def test_unsealed_file_fails(gated, h):
    (gated / "oracle" / "fixtures" / "extra.txt").write_text("not in the manifest")
    code, data = h.gate_json("seal", "verify", "--manifest", gated / "oracle" / "fixtures" / "manifest.json")
    assert code == 2 and data["findings"] == ["unsealed: extra.txt"]


def test_malformed_manifest_names_file_and_key(gated, h):
    manifest = gated / "oracle" / "fixtures" / "manifest.json"
    rows = json.loads(manifest.read_text())
    del rows["fixtures"][1]["sha256"]
    manifest.write_text(json.dumps(rows))
    done = h.gate("seal", "verify", "--manifest", manifest)
    assert done.returncode == 3 and "fixtures[1]" in done.stderr and "'sha256'" in done.stderr
    manifest.write_text("{not json")
    done = h.gate("seal", "verify", "--manifest", manifest)
    assert done.returncode == 3 and "manifest.json is not valid JSON" in done.stderr


def test_seal_add_writes_rows_that_verify(tmp_path, h):
    folder = tmp_path / "fixtures"
    folder.mkdir()
    (folder / "a.txt").write_text("status: 200\n")
    manifest = folder / "manifest.json"
    assert h.gate("seal", "add", "--manifest", manifest, "--id", "a", "--path", "a.txt",
                  "--extra", '{"must_remain": {"success": false}}').returncode == 0
    code, data = h.gate_json("seal", "verify", "--manifest", manifest)
    assert code == 0 and data["fixtures"] == {"a": {"path": "a.txt", "must_remain": {"success": False}}}
    assert h.gate("seal", "add", "--manifest", manifest, "--id", "b", "--path", "missing.txt").returncode == 3
