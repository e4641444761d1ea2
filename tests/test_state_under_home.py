"""All of Helix's state lives under $HELIX_HOME: an index built with real embeddings (the ONNX
encoder, whose runtime writes a device id and a database at import) writes nothing under the
user's home directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.slow
def test_an_embedded_index_writes_nothing_outside_helix_home(tmp_path: Path) -> None:
    home, user = tmp_path / "helix", tmp_path / "user"
    repo = tmp_path / "repo"
    repo.mkdir()
    user.mkdir()
    (repo / "mod.py").write_text('def alpha():\n    """Return one."""\n    return 1\n',
                                 encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "HELIX_HOME")}
    env.update(HOME=str(user), HELIX_HOME=str(home), HF_HUB_OFFLINE="1")
    done = subprocess.run([sys.executable, "-P", "-c", "import sys; from helix.cli.main import "
                           "main; sys.exit(main(sys.argv[1:]))", "index", str(repo),
                           "--embed-all"], env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    assert "embeddings: 0 computed" not in done.stdout  # the encoder really ran
    assert sorted(p.relative_to(user).as_posix() for p in user.rglob("*")) == []


def test_onnxruntime_keeps_its_files_under_helix_home(tmp_path: Path) -> None:
    home, user = tmp_path / "helix", tmp_path / "user"
    user.mkdir()
    # CI=true: onnxruntime writes no telemetry at all; this checks where it writes when it does
    env = {k: v for k, v in os.environ.items()
           if k not in ("XDG_CACHE_HOME", "HELIX_HOME", "CI")}
    env.update(HOME=str(user), HELIX_HOME=str(home))
    probe = ("import os; from indexers.onnx_encoder import import_onnxruntime; "
             "import_onnxruntime(); assert 'XDG_CACHE_HOME' not in os.environ")
    done = subprocess.run([sys.executable, "-P", "-c", probe], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert list(user.rglob("*")) == []  # nothing in the user's own cache directory
    assert (home / "cache" / "Microsoft").is_dir()  # its device id and database, here
