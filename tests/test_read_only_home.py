"""A `$HELIX_HOME` that cannot be written: commands answer from what can be read, and every
line they print is true (issue 28: `ask --dry-run` failed with no index there, and a stale
index was said to be "being rebuilt by another helix process").

Run as an unprivileged user (as root, whom no file mode stops, in a child that drops to it).
"""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path
from typing import Any

import pytest

from helix.cli.main import main


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(argv))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def _read_only(home: Path) -> None:
    for directory, _, files in os.walk(home):
        os.chmod(directory, 0o555)
        for name in files:
            os.chmod(os.path.join(directory, name), 0o444)


@pytest.fixture
def place(monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    from unprivileged import open_dir

    import indexers.ephemeral  # noqa: F401  (the child reads none of root's files)

    base = open_dir()
    base.chmod(0o777)
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    warm = base / "warm-repo"  # every module the commands need, loaded before the child
    warm.mkdir()
    (warm / "m.py").write_text("def foo():\n    return 1\n", encoding="utf-8")
    monkeypatch.setenv("HELIX_HOME", str(base / "warm"))
    for argv in (["index", str(warm)], ["ask", "--repo", str(warm), "--dry-run", "foo?"],
                 ["search", "foo", str(warm)], ["status", str(warm)]):
        _cli(*argv)
    monkeypatch.setenv("HELIX_HOME", str(base / "home"))
    return {"base": base, "home": base / "home", "repo": base / "repo",
            "other": base / "other"}


def _repos(place: dict[str, Path]) -> None:
    for name in ("repo", "other"):
        place[name].mkdir()
        (place[name] / "mod.py").write_text("def foo():\n    return 1\n", encoding="utf-8")


def test_no_index_yet_answers_from_a_temporary_one(place: dict[str, Path]) -> None:
    from unprivileged import as_nobody

    def piece() -> Any:
        _repos(place)
        assert _cli("index", str(place["repo"]))[0] == 0  # `other` never indexed
        _read_only(place["home"])
        return [_cli("ask", "--repo", str(place["other"]), "--dry-run", "what does foo do"),
                _cli("search", "foo", str(place["other"])),
                sorted(os.listdir(place["home"] / "indexes"))]

    asked, searched, indexes = as_nobody(piece)
    code, out, err = asked
    assert code == 0, err
    assert "mod.py" in out
    assert ("cannot be written (Permission denied) and holds no index of this repository: "
            "answering from a temporary index built for this command (without embeddings; not "
            "kept)") in err
    assert "index refreshed" not in err
    assert searched[0] == 0 and "mod.py:1-2" in searched[1]
    assert len(indexes) == 1  # nothing was written under the home


def test_a_stale_index_says_why_it_is_not_refreshed(place: dict[str, Path]) -> None:
    from unprivileged import as_nobody

    def piece() -> Any:
        _repos(place)
        assert _cli("index", str(place["repo"]))[0] == 0
        (place["repo"] / "new.py").write_text("def bar():\n    return 2\n", encoding="utf-8")
        _read_only(place["home"])
        return _cli("search", "foo", str(place["repo"]))

    code, out, err = as_nobody(piece)
    assert code == 0 and "mod.py:1-2" in out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "another helix process" not in err
    assert lines[0].startswith(f"helix: the index at {place['home'] / 'indexes'}")
    assert ("cannot be written (Permission denied); answering from the generation built at "
            in lines[0]) and lines[0].endswith("without the changes since")


def test_with_no_temporary_directory_either_it_is_one_true_line(
        place: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    from unprivileged import as_nobody

    closed = place["base"] / "no-tmp"
    closed.mkdir()
    closed.chmod(0o555)
    monkeypatch.setattr(tempfile, "tempdir", str(closed))

    def piece() -> Any:
        _repos(place)
        place["home"].mkdir()
        _read_only(place["home"])
        return _cli("ask", "--repo", str(place["other"]), "--dry-run", "what does foo do")

    code, out, err = as_nobody(piece)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert lines[-1] == (f"helix: the index at {place['home'] / 'indexes'}/"
                         f"{lines[-1].split('/indexes/')[1].split(' ')[0]} cannot be written "
                         "(Permission denied) and holds no usable index, and no temporary "
                         "index can be written (Permission denied)")
