"""`--out F` (export, eval, eval history): a link or a non-regular target is refused in one line
(exit 2) and left exactly as it was; a regular file is replaced atomically, keeping its mode."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from cli_helpers import run

from helix.core.errors import UserError
from helix.outfile import check_out_path, write_out

# every writer of a user-named path, as argv prefixes (the target is appended after --out)
WRITERS = {
    "export": ["export", "--out"],
    "eval": ["eval", "matrix", "--no-embed", "--out"],
    "eval history": ["eval", "history", "--out"],
}


def _one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("helix: ") and "internal error" not in err
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_symlink_target_and_its_pointee_survive(writer: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    pointee = tmp_path / "precious.txt"
    pointee.write_text("the user's own data\n", encoding="utf-8")
    link = tmp_path / "out.jsonl"
    link.symlink_to(pointee)
    code, _, err = run([*WRITERS[writer], str(link)], capsys)
    assert code == 2
    assert "symbolic link" in _one_error_line(err)
    assert link.is_symlink() and os.readlink(link) == str(pointee)
    assert pointee.read_text(encoding="utf-8") == "the user's own data\n"


def test_dangling_symlink_is_refused_and_nothing_is_created(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    link = tmp_path / "out.jsonl"
    link.symlink_to(tmp_path / "nowhere" / "file")
    code, _, err = run(["export", "--out", str(link)], capsys)
    assert code == 2 and "symbolic link" in _one_error_line(err)
    assert link.is_symlink() and not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_fifo_target_is_refused_and_never_opened(writer: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    # opening a FIFO for writing with no reader would block the test: a pass proves no open
    code, _, err = run([*WRITERS[writer], str(fifo)], capsys)
    assert code == 2 and "FIFO" in _one_error_line(err)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]  # no temp file left


def test_character_device_target_is_refused(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    device = tmp_path / "null"
    try:  # a private copy of the null device: the test never touches /dev itself
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError):
        pytest.skip("creating a device node needs CAP_MKNOD")
    code, _, err = run(["export", "--out", str(device)], capsys)
    assert code == 2 and "character device" in _one_error_line(err)
    info = os.lstat(device)
    assert stat.S_ISCHR(info.st_mode) and info.st_rdev == os.makedev(1, 3)


def test_system_devices_are_refused_by_path_without_opening() -> None:
    # the check is an lstat: /dev/full and /dev/null are refused, never opened nor replaced
    for name in ("/dev/full", "/dev/null"):
        if not os.path.exists(name):
            continue
        with pytest.raises(UserError, match="character device"):
            check_out_path(Path(name))
        assert stat.S_ISCHR(os.lstat(name).st_mode)


def test_directory_target_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "adir"
    target.mkdir()
    code, _, err = run(["export", "--out", str(target)], capsys)
    assert code == 2
    _one_error_line(err)
    assert target.is_dir()
    with pytest.raises(UserError, match="a directory"):
        write_out(target, b"x")


def test_regular_file_is_replaced_whole_and_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    target.write_bytes(b"old contents that are longer than the new ones\n")
    target.chmod(0o640)
    write_out(target, b"new\n")
    assert target.read_bytes() == b"new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]
    fresh = tmp_path / "sub" / "new.jsonl"
    write_out(fresh, b"x")
    assert fresh.read_bytes() == b"x"


def test_a_failed_write_leaves_the_old_file_and_no_temp(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "out.jsonl"
    target.write_bytes(b"old\n")

    def broken_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError):
        write_out(target, b"new\n")
    assert target.read_bytes() == b"old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]


def test_export_to_a_regular_file_still_works(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "records.jsonl"
    out.write_text("stale\n", encoding="utf-8")
    code, stdout, err = run(["export", "--out", str(out)], capsys)
    assert code == 0, err
    assert out.read_text(encoding="utf-8") == ""  # an empty run log exports no records
    assert "wrote 0 records" in stdout
