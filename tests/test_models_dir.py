"""Where the exported embedding model goes: `$HELIX_HOME/models`, or `$HELIX_MODELS_DIR` when
the user sets it (one export for several homes; the test session shares one that way,
tests/conftest.py). tests/test_encoder_onnx.py exports from scratch into homes of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from helix.core.config import IndexSettings, load_config
from helix.core.errors import ConfigError
from helix.core.home import models_dir
from indexers.encoder import default_model_path
from indexers.onnx_encoder import VARIANT_FP32, model_file

MODEL_DIR = Path(default_model_path(IndexSettings()))


def test_the_models_directory_is_the_homes_unless_the_user_names_one(
        helix_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HELIX_MODELS_DIR")
    assert models_dir() == helix_home / "models"
    assert model_file(MODEL_DIR, VARIANT_FP32).parent == helix_home / "models"
    monkeypatch.setenv("HELIX_MODELS_DIR", str(tmp_path / "shared"))
    assert model_file(MODEL_DIR, VARIANT_FP32).parent == tmp_path / "shared"
    # a home given explicitly keeps its own models (an export from scratch)
    assert model_file(MODEL_DIR, VARIANT_FP32, tmp_path / "h").parent == tmp_path / "h" / "models"
    load_config()  # not a setting: the loader ignores it


def test_a_models_directory_that_cannot_be_used_is_one_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELIX_MODELS_DIR", "~no-such-user-here/models")
    with pytest.raises(ConfigError, match="HELIX_MODELS_DIR"):
        models_dir()
