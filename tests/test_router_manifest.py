"""The shipped meaning-router model was trained from this checkout's inputs (issue 32): its
manifest records every training file and the router's data by digest, the trainer's code and
settings, and the captured turns; these tests recompute the inputs in seconds, where
`python -m evals.router_train --check` (the whole capture, the vectors and the fits, ~16 CPU
minutes) is what proves the model byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals import router_manifest, router_train
from evals.router_train import MODEL_DIR

RETRAIN = "changed since the model was trained: python -m evals.router_train"


def _manifest() -> dict:
    return json.loads((MODEL_DIR / "manifest.json").read_text(encoding="utf-8"))


def test_the_shipped_model_was_trained_from_this_checkouts_inputs():
    manifest, now = _manifest(), router_manifest.inputs()
    trained = {"training_data": manifest["training_data"], **manifest["inputs"]}
    assert set(trained) == set(now)
    for part, entries in now.items():
        for name in sorted(set(entries) | set(trained[part])):
            assert trained[part].get(name) == entries.get(name), f"{part} {name} {RETRAIN}"
    assert manifest["head"] == {"kind": "softmax regression", **router_train.settings()}


def test_the_manifest_records_the_captured_turns():
    manifest = _manifest()
    assert manifest["captured"]["turns"] == manifest["metrics"]["turns"] == sum(
        manifest["training_turns"].values())
    assert manifest["captured"]["digest"].startswith("sha256:")


def test_a_changed_setting_or_training_file_is_a_changed_input(monkeypatch, tmp_path):
    before = router_manifest.inputs()
    monkeypatch.setattr(router_train, "TEMPERATURE", router_train.TEMPERATURE * 0.5)
    assert router_manifest.inputs()["settings"] != before["settings"]
    monkeypatch.undo()
    suite = tmp_path / "suite"
    suite.mkdir()
    for name in router_train.TRAIN_FILES:
        (suite / name).write_bytes((router_train.SUITE_DIR / name).read_bytes())
    monkeypatch.setattr(router_train, "SUITE_DIR", suite)
    assert router_manifest.inputs() == before
    with (suite / router_train.TRAIN_FILES[-1]).open("a", encoding="utf-8") as handle:
        handle.write("\n")
    changed = router_manifest.inputs()["training_data"]
    assert [n for n in changed if changed[n] != before["training_data"][n]] == [
        router_train.TRAIN_FILES[-1]]


@pytest.mark.parametrize(("edit", "same"), [
    ("    # a comment about it\n", True),
    ('    """A docstring, reworded."""\n', True),
    ("\n\n", True),
    ("    x = 2\n", False),
    ('    y = "a string assigned"\n', False),
])
def test_the_code_digest_is_what_the_code_does(tmp_path: Path, edit: str, same: bool):
    base = 'def f():\n    """A docstring."""\n    x = 1\n    return x\n'
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text(base, encoding="utf-8")
    lines = base.splitlines(keepends=True)
    b.write_text("".join([*lines[:1], edit, *lines[1:]] if not edit.lstrip().startswith(
        '"""') else [lines[0], edit, *lines[2:]]), encoding="utf-8")
    assert (router_manifest.code_digest(a) == router_manifest.code_digest(b)) is same
