"""Every test runs with its own HELIX_HOME and refuses the network for LLM calls."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(autouse=True)
def helix_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("helix_home")
    monkeypatch.setenv("HELIX_HOME", str(home))
    for name in list(os.environ):
        if name.startswith("HELIX_") and name != "HELIX_HOME":
            monkeypatch.delenv(name, raising=False)
    return home
