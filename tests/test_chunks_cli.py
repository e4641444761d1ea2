"""`helix chunks FILE` through the real entry point."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_helpers import run


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "pkg").mkdir()
    (root / "pkg" / "mod.py").write_text(
        "import os\n\n\nclass A:\n    def run(self):\n        return os.getcwd()\n",
        encoding="utf-8",
    )
    (root / "README.md").write_text("# Title\n\nHello.\n", encoding="utf-8")
    (root / ".env").write_text("TOKEN=x\n", encoding="utf-8")
    return root


def test_chunks_human(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["chunks", str(repo / "pkg" / "mod.py")], capsys)
    assert code == 0
    assert "pkg/mod.py:4-6  code_def:class  A" in out
    assert "pkg/mod.py:5-6  code_def:method  A.run" in out
    assert "pkg/mod.py:1-1  code_module" in out
    assert out.rstrip().endswith("3 chunks, 2 definitions, 2 references (call 1, import 1)")


def test_chunks_json_from_inside_the_repo(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo / "pkg")
    code, out, _ = run(["chunks", "../README.md", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["file"]["path"] == "README.md"
    assert [c["heading_path"] for c in data["chunks"]] == [["Title"]]
    assert data["defs"] == [] and data["refs"] == []


def test_chunks_refuses_what_the_index_skips(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["chunks", str(repo / ".env")], capsys)
    assert (code, err.strip()) == (2, "helix: .env: not indexed (secret)")
    (tmp_path / "outside.py").write_text("x = 1\n", encoding="utf-8")
    os.symlink(tmp_path / "outside.py", repo / "link.py")
    code, _, err = run(["chunks", str(repo / "link.py")], capsys)
    assert (code, err.strip()) == (2, "helix: link.py: not indexed (symlink_outside)")
    code, _, err = run(["chunks", str(repo / "missing.py")], capsys)
    assert code == 2 and err.startswith("helix: path does not exist")
