"""Bad input of the second kind: the machine and the settings rather than the question. Each
ends in one line and a non-zero exit (never "internal error"), or, for a read-only
$HELIX_HOME, in an answer from the index as it is."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import run

from helix.core.config import IndexSettings
from helix.core.schemas import FileRecord
from indexers.parse import parse_file
from tests.test_bad_input import assert_one_error_line


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    monkeypatch.setenv("HELIX_HOME", str(tmp_path / "home"))
    root = tmp_path / "repo"
    root.mkdir()
    (root / "mod.py").write_text("def foo():\n    return 1\n", encoding="utf-8")
    return root


def test_helix_home_in_a_symlink_loop(repo: Path, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    monkeypatch.setenv("HELIX_HOME", str(tmp_path / "a" / "home"))
    code, _, err = run(["status", str(repo)], capsys)
    assert_one_error_line(code, err, 2, "HELIX_HOME")


def test_a_setting_beyond_64_bits(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HELIX_INDEX__MAX_FILE_BYTES", str(2 ** 70))
    code, _, err = run(["index", str(repo)], capsys)
    assert_one_error_line(code, err, 2, "64 bits")


def test_deeply_nested_toml(repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
                            ) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text("a = " + "[" * 5000 + "]" * 5000 + "\n",
                                      encoding="utf-8")
    code, _, err = run(["status", str(repo)], capsys)
    assert_one_error_line(code, err, 2, "nested too deeply")


def test_an_unknown_users_home(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["ask", "--repo", "~no-such-user-xyz/repo", "--dry-run", "q"], capsys)
    assert_one_error_line(code, err, 2, "no such user")


def test_a_candidate_config_that_is_not_utf8(repo: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"\xff\xfe[retrieval]\n")
    code, _, err = run(["eval", "history", "--repo", str(repo), "--candidate-config",
                        str(bad)], capsys)
    assert_one_error_line(code, err, 2, "cannot read")


@pytest.mark.parametrize("argv", [["ask", "--repo", "/", "--dry-run", "q"], ["index", "/"]])
def test_the_filesystem_root_is_refused_unless_asked(repo: Path, argv: list[str],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(argv, capsys)
    assert_one_error_line(code, err, 2, "--yes")


def test_a_file_of_a_million_symbols_is_read_as_text() -> None:
    source = "".join(f"def f{n}(): pass\n" for n in range(3000))
    record = FileRecord(path="gen.py", content_hash="sha256:" + "0" * 64, size=len(source),
                        kind="code", lang="python")
    parsed = parse_file(record, source, IndexSettings(max_file_symbols=1000))
    assert parsed.defs == () and {c.kind for c in parsed.chunks} == {"text_window"}
    too_big = parse_file(record, source, IndexSettings(max_parse_bytes=1000))
    assert too_big.defs == ()
    normal = parse_file(record, source, IndexSettings())
    assert len(normal.defs) == 3000


@contextlib.contextmanager
def _tmpfs(where: Path, size: str) -> Iterator[Path]:
    where.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs",
                              str(where)], capture_output=True, check=False)
    if mounted.returncode != 0:  # only where mounting is not allowed at all
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def test_a_full_disk_is_one_line(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "big.py").write_text("".join(f"def f{n}(): return {n * 7919}\n"
                                         for n in range(20_000)), encoding="utf-8")
    with _tmpfs(tmp_path / "small", "300k") as home:
        monkeypatch.setenv("HELIX_HOME", str(home))
        code, _, err = run(["index", str(repo)], capsys)
    assert_one_error_line(code, err, 1, "full")


def test_read_commands_work_on_a_read_only_home(repo: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    with _tmpfs(tmp_path / "ro", "50m") as home:
        monkeypatch.setenv("HELIX_HOME", str(home))
        assert run(["index", str(repo)], capsys)[0] == 0
        subprocess.run(["mount", "-o", "remount,ro", str(home)], check=True)
        for argv in (["status", str(repo)], ["find", "foo", str(repo)],
                     ["search", "foo", str(repo)]):
            code, out, err = run(argv, capsys)
            assert code == 0 and "internal error" not in err, (argv, err)
        code, out, err = run(["ask", "--repo", str(repo), "--dry-run", "what does foo do"],
                             capsys)
        assert code == 0 and "mod.py" in out and "not logged" in err


# (`helix index` takes several repositories: it indexes each, tests/test_cluster_index.py)
@pytest.mark.parametrize("command", [["chat", "--dry-run"],
                                     ["status"], ["find", "foo"], ["search", "foo"]])
def test_a_repeated_repo_is_refused_never_the_last_one_silently(
        repo: Path, tmp_path: Path, command: list[str],
        capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other"
    other.mkdir()
    code, _, err = run([*command, "--repo", str(repo), "--repo", str(other)], capsys)
    assert_one_error_line(code, err, 2, "one repository per command")
    # (`helix ask` asks across them instead: tests/test_multi_repo.py)


@pytest.mark.parametrize("command", [["index"], ["status"], ["find", "foo"], ["search", "foo"]])
def test_repo_names_the_repository_on_every_command(repo: Path, command: list[str],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["index", str(repo)], capsys)[0] == 0
    code, out, err = run([*command, "--repo", str(repo)], capsys)
    assert code == 0 and "internal error" not in err and out
