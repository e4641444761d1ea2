"""`--question-file` reads a regular file, at most the question limit's bytes, and refuses a
FIFO, device or socket in one line without opening it (issue 28: a FIFO blocked forever)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import run

from helix.inputs import MAX_QUESTION_BYTES, MAX_QUESTION_CHARS
from tests.index_fixtures import write_repo


def _helix(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HELIX_INDEX__EMBED_ENABLED": "false"}
    return subprocess.run([sys.executable, "-m", "helix.cli.main", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_a_fifo_with_no_writer_is_refused_at_once(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo")
    fifo = tmp_path / "question"
    os.mkfifo(fifo)
    done = _helix(["ask", "--question-file", str(fifo), "--dry-run"], repo)  # did block
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"helix: question file {fifo} is a FIFO, not a regular file (pass '-' to read the "
        "question from standard input)"]


def test_devices_sockets_and_links_to_them_are_refused(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    sock_path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(sock_path))
    link = tmp_path / "link"
    link.symlink_to("/dev/zero")
    try:
        for name, kind in ((str(sock_path), "a socket"), ("/dev/zero", "a character device"),
                           (str(link), "a character device")):
            code, out, err = run(["ask", "--question-file", name, "--dry-run"], capsys)
            assert code == 2 and out == "", name
            assert err == (f"helix: question file {name} is {kind}, not a regular file (pass "
                           "'-' to read the question from standard input)\n")
    finally:
        server.close()


def test_a_regular_file_is_read_up_to_the_limit_only(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    import helix.cli.ask_cmd as ask_cmd

    huge = tmp_path / "huge.txt"
    with huge.open("wb") as handle:  # sparse: 1 GiB that costs no disk
        handle.truncate(1 << 30)
    reads: list[int] = []
    real_read = os.read

    def counted(fd: int, size: int) -> bytes:
        data = real_read(fd, size)
        reads.append(len(data))
        return data

    monkeypatch.setattr(ask_cmd.os, "read", counted)
    code, _, err = run(["ask", "--question-file", str(huge), "--dry-run"], capsys)
    assert code == 2 and "NUL byte" in err
    assert sum(reads) == MAX_QUESTION_BYTES + 1
    fine = tmp_path / "q.txt"
    fine.write_text("where is the retry policy decided?\n", encoding="utf-8")
    assert ask_cmd.read_question((), str(fine)) == "where is the retry policy decided?"
    long = tmp_path / "long.txt"
    long.write_text("w" * (MAX_QUESTION_CHARS + 1), encoding="utf-8")
    code, _, err = run(["ask", "--question-file", str(long), "--dry-run"], capsys)
    assert code == 2 and "the limit is 200,000" in err
