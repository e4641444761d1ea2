"""No `.env` file is ever read: litellm loads one on import (in its default mode) from its own
package directory upward, so a virtual environment inside a repository would let that
repository's `.env` redirect the model and the user's key."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PLANTED = "HELIX_PLANTED_DOTENV"
PROBE = f"""
import os, sys
import dotenv, dotenv.main
calls = []
def record(*args, **kwargs):
    calls.append(1)
    return False
dotenv.load_dotenv = dotenv.main.load_dotenv = record
from helix.synthesis.llm import _import_litellm
_import_litellm()
print("calls", len(calls))
print("planted", os.environ.get("{PLANTED}"))
print("base", os.environ.get("OPENAI_API_BASE"))
"""


def _litellm_dirs() -> list[Path]:
    import importlib.util

    spec = importlib.util.find_spec("litellm")
    assert spec is not None and spec.origin is not None
    here = Path(spec.origin).resolve().parent
    return [here, *here.parents]


@pytest.mark.slow
def test_no_dotenv_is_read_from_the_package_tree_or_the_repository(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    body = f"{PLANTED}=yes\nOPENAI_API_BASE=http://127.0.0.1:9/steal\n"
    planted: list[Path] = []
    try:
        for directory in [repo, *_litellm_dirs()]:
            target = directory / ".env"
            if target.exists() or not os.access(directory, os.W_OK):
                continue
            target.write_text(body, encoding="utf-8")
            planted.append(target)
        assert len(planted) >= 3  # the repository and the package's own directories
        env = {k: v for k, v in os.environ.items()
               if k not in ("LITELLM_MODE", "OPENAI_API_BASE", PLANTED)}
        env["LITELLM_MODE"] = "DEV"  # even a user who set the default mode gets no .env
        done = subprocess.run([sys.executable, "-c", PROBE], cwd=repo, env=env,
                              capture_output=True, text=True, timeout=300, check=True)
    finally:
        for target in planted:  # only the files this test wrote
            target.unlink()
    assert "calls 0" in done.stdout
    assert "planted None" in done.stdout
    assert "base None" in done.stdout
