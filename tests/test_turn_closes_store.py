"""A turn that opens the state store closes it: a process that runs many turns (the HTTP and
MCP servers, a test run) does not keep one open SQLite connection per turn until it runs out
of file descriptors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from talk_fixtures import Q, Talk, copy_fixture


def _open_run_logs() -> int:
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        count += target.endswith(("helix.sqlite", "helix.sqlite-wal"))
    return count


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_turns_leave_no_store_connection_open(tmp_path: Path) -> None:
    repo = copy_fixture(tmp_path / "repo")
    first = Talk(repo, name="fd-0")
    first(Q)
    before = _open_run_logs()
    for n in range(1, 4):
        talk = Talk(repo, name=f"fd-{n}")
        talk(Q)
        talk("who calls it?")
    assert _open_run_logs() <= before
