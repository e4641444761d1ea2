"""Helix never writes through a link it did not make under `$HELIX_HOME` (issue 28: a
symlinked `$HELIX_HOME/indexes` had indexes written into the directory it points to)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import run

from helix.core.paths import index_dir_for
from tests.history_helpers import build_history_repo


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    root = tmp_path / "repo"
    root.mkdir()
    (root / "mod.py").write_text("def foo():\n    return 1\n", encoding="utf-8")
    return root


def _refused(err: str, link: Path) -> bool:
    """The one refusal line, as the CLI prints it: a long temporary path (pytest-xdist's
    workers add a directory) makes the line long enough to have its middle elided."""
    from helix.cli.main import error_line

    return err == error_line(
        f"{link} is a symbolic link, and Helix writes nothing through a link it did not make; "
        f"remove it (rm '{link}') or set HELIX_HOME to the directory it points to") + "\n"


@pytest.mark.parametrize("argv", [["index"], ["ask", "--dry-run", "what does foo do", "--repo"],
                                  ["search", "foo"]])
def test_a_linked_indexes_directory_is_refused(repo: Path, tmp_path: Path, helix_home: Path,
                                               argv: list[str],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (helix_home / "indexes").symlink_to(elsewhere, target_is_directory=True)
    code, out, err = run([*argv, str(repo)], capsys)
    assert code == 2 and out == ""
    assert _refused(err, helix_home / "indexes"), err
    assert list(elsewhere.iterdir()) == []


def test_a_linked_index_directory_is_refused(repo: Path, tmp_path: Path, helix_home: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    own = index_dir_for(repo.resolve())
    own.parent.mkdir(parents=True)
    own.symlink_to(elsewhere, target_is_directory=True)
    code, _, err = run(["index", str(repo)], capsys)
    assert code == 2 and _refused(err, own)
    assert list(elsewhere.iterdir()) == []


def test_a_linked_run_log_is_never_written_and_the_answer_comes(
        repo: Path, tmp_path: Path, helix_home: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    victim = tmp_path / "victim.db"
    victim.write_bytes(b"")
    (helix_home / "helix.sqlite").symlink_to(victim)
    code, out, err = run(["ask", "--dry-run", "what does foo do", "--repo", str(repo)], capsys)
    assert code == 0 and "mod.py" in out
    assert "helix.sqlite is a symbolic link" in err and "this answer is not logged" in err
    assert victim.read_bytes() == b""
    code, _, err = run(["log"], capsys)
    assert code == 2 and _refused(err, helix_home / "helix.sqlite")


def test_a_linked_history_directory_is_refused(tmp_path: Path, helix_home: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = build_history_repo(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (helix_home / "history").symlink_to(elsewhere, target_is_directory=True)
    code, _, err = run(["eval", "history", "--repo", str(repo), "--no-embed"], capsys)
    assert code == 2 and _refused(err, helix_home / "history")
    assert list(elsewhere.iterdir()) == []
