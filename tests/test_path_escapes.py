"""A file name with a newline (or a tab, or an escape) is one field of one line wherever the
CLI prints it (issue 28: it broke `helix search` lines in two). Paths are written with their
control characters spelled out: `a\\nb.py`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run

NAME = "a\nb.py"
SHOWN = "a\\nb.py"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    root = tmp_path / "repo"
    root.mkdir()
    (root / NAME).write_text("def foo():\n    return 1\n", encoding="utf-8")
    (root / "tab\there.py").write_text("def bar():\n    return foo()\n", encoding="utf-8")
    return root


def _lines_are_whole(out: str) -> None:
    for line in out.splitlines():
        assert not line.startswith(("b.py", "here.py")), out


@pytest.mark.parametrize("argv", [
    ["search", "foo"], ["find", "foo"], ["find", "bar"],
    ["ask", "--dry-run", "what does foo do", "--repo"]])
def test_listings_keep_one_line_per_path(repo: Path, argv: list[str],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run([*argv, str(repo)], capsys)
    assert code == 0, err
    _lines_are_whole(out)
    assert SHOWN in out or "tab\\there.py" in out


def test_show_status_and_chunks_too(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["ask", "--dry-run", "what does foo do", "--repo", str(repo)], capsys)[0] == 0
    code, out, _ = run(["show", "last"], capsys)
    assert code == 0 and f"E1   {SHOWN}:1-2" in out
    _lines_are_whole(out)
    (repo / NAME).write_text("def foo():\n    return 2\n", encoding="utf-8")
    code, out, _ = run(["status", str(repo)], capsys)
    assert code == 0 and f"  modified: {SHOWN}" in out.splitlines()
    code, out, _ = run(["chunks", str(repo / NAME)], capsys)
    assert code == 0 and out.splitlines()[0].startswith(f"{SHOWN}  code  python")
    _lines_are_whole(out)


def test_the_deterministic_answer_names_the_path_on_one_line(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["ask", "--dry-run", "what does foo do", "--repo", str(repo), "--json"],
                       capsys)
    assert code == 0
    envelope = json.loads(out)
    assert SHOWN in envelope["answer"] and NAME not in envelope["answer"]
    assert any(e["path"] == NAME for e in envelope["evidence"])  # the data stays exact
