"""A run whose process is gone is shown as interrupted, never pending forever (issue 28:
killed runs stayed `pending` in `helix log`). A pending run records its process (boot id,
pid, start time); read back while that process no longer runs, it is "interrupted"."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import run
from helpers_synthesis import envelope

from helix.core.process import gone, identity
from helix.runlog import RunLog
from tests.index_fixtures import write_repo


def test_process_identity_tells_a_gone_process() -> None:
    me = identity()
    assert not gone(me)
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert gone(identity(child.pid)) or not Path("/proc").is_dir()
    boot, pid, started = me.split(":")
    assert gone(f"{boot}:{pid}:{int(started) + 1}")  # the pid, now another process
    assert gone(f"another-boot:{pid}:{started}")
    assert not gone("not an identity")


def test_a_pending_run_of_a_gone_process_reads_as_interrupted(helix_home: Path) -> None:
    log = RunLog()
    mine = log.start(envelope(question="still running?"), created=1.0, dry_run=False)
    killed = log.start(envelope(question="killed?"), created=2.0, dry_run=False)
    old = log.start(envelope(question="from before owners"), created=3.0, dry_run=False)
    boot, pid, started = identity().split(":")
    log.conn.execute("UPDATE runs SET owner = ? WHERE id = ?",
                     (f"{boot}:{pid}:{int(started) + 1}", killed))
    log.conn.execute("UPDATE runs SET owner = NULL WHERE id = ?", (old,))
    log.conn.commit()
    statuses = {r.id: r.status for r in RunLog().recent()}
    assert statuses == {mine: "pending", killed: "interrupted", old: "pending"}
    assert RunLog().get(killed).status == "interrupted"
    log.finish(mine, envelope(question="still running?"), updated=4.0)
    assert RunLog().get(mine).status == "done"


def _silent_server() -> tuple[socket.socket, int]:
    """A model endpoint that accepts and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    return server, server.getsockname()[1]


def test_a_killed_ask_is_interrupted_in_helix_log(tmp_path: Path, helix_home: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    repo = write_repo(tmp_path / "repo")
    server, port = _silent_server()
    env = {**os.environ, "HELIX_HOME": str(helix_home), "HELIX_INDEX__EMBED_ENABLED": "false",
           "OPENAI_API_KEY": "sk-test-not-a-key"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "helix.cli.main", "ask", "where is the retry policy decided?",
         "--repo", str(repo), "--model", "openai/gpt-4o-mini",
         "--api-base", f"http://127.0.0.1:{port}/v1"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        pending = False
        while time.monotonic() < deadline and proc.poll() is None and not pending:
            time.sleep(0.2)
            with contextlib.suppress(sqlite3.Error):
                conn = sqlite3.connect(helix_home / "helix.sqlite")
                rows = conn.execute("SELECT status, prompt_json FROM runs").fetchall()
                conn.close()
                pending = any(s == "pending" and p for s, p in rows)
        assert pending, "the run never reached the model call"
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
        server.close()
    code, out, err = run(["log"], capsys)
    assert code == 0, err
    [line] = out.strip().splitlines()
    assert "[interrupted]" in line and "[pending]" not in line
    code, out, _ = run(["show", "last"], capsys)
    assert code == 0 and "(interrupted," in out.splitlines()[0]
