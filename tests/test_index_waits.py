"""`helix index` never waits without end: a dense worker lock whose holder makes no progress
(a stuck worker), or that no live worker holds, ends the wait in one line with a non-zero exit;
a scan worker stuck on a batch, or a git that never prints, is stopped.

The bounds are lowered to zero here (the tests never sleep them out); pytest-timeout is only a
safety net for code that would wait forever."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import pytest
from cli_helpers import run

from helix.core import git as safegit
from helix.core.config import HelixConfig, IndexSettings
from helix.core.errors import IndexLockedError
from helix.core.hashing import digest
from indexers import dense_worker, secret_scan
from indexers.build import build_index
from indexers.scan_cache import SCAN_CACHE
from indexers.store import IndexStore
from tests.index_fixtures import write_repo

NO_EMBED = HelixConfig(index=IndexSettings(embed_enabled=False))
SAFETY_NET_S = 120  # pytest-timeout: a failure of the old code, never a measured duration


def _held_lock(store: IndexStore) -> int:
    """A descriptor holding the index's worker lock, as `dense_worker.start` takes it."""
    fd = os.open(store.directory / dense_worker.WORKER_LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


@pytest.fixture()
def store(tmp_path: Path) -> IndexStore:
    store = IndexStore(tmp_path / "idx")
    store.claim()
    return store


@pytest.fixture()
def stuck_worker(store: IndexStore) -> Iterator[int]:
    """A live process that looks like a dense worker (its command line says so) and holds the
    worker lock, but never writes its state again: a worker stuck mid-way."""
    fd = _held_lock(store)
    process = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(3600)", "indexers.dense_worker"],
        pass_fds=(fd,), stdin=subprocess.DEVNULL)
    os.close(fd)  # the child holds the lock now
    dense_worker.write_state(store, {"pid": process.pid, "status": "embedding",
                                     "vectors": 64, "total": 1984})
    try:
        yield process.pid
    finally:
        process.kill()
        process.wait()


@pytest.mark.timeout(SAFETY_NET_S)
def test_a_stuck_worker_ends_the_wait_in_one_line(
        tmp_path: Path, store: IndexStore, stuck_worker: int,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dense_worker, "WORKER_STALL_S", 0.0, raising=False)
    repo = write_repo(tmp_path / "repo")
    with pytest.raises(IndexLockedError, match=f"pid {stuck_worker}.*no progress.*stuck"):
        build_index(repo, NO_EMBED, index_dir=store.directory)
    assert dense_worker.running(store)  # told about, never killed behind the user's back


@pytest.mark.timeout(SAFETY_NET_S)
def test_helix_index_says_so_and_exits_non_zero(
        tmp_path: Path, store: IndexStore, stuck_worker: int,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(dense_worker, "WORKER_STALL_S", 0.0, raising=False)
    monkeypatch.setenv("HELIX_HOME", str(tmp_path / "home"))
    repo = write_repo(tmp_path / "repo")
    code, out, err = run(["index", "--json", "--no-embed", "--index-dir", str(store.directory),
                          str(repo)], capsys)
    assert code != 0 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "helix index --stop" in lines[0], err
    assert "Traceback" not in err


@pytest.mark.timeout(SAFETY_NET_S)
def test_a_lock_no_live_worker_holds_ends_the_wait(
        store: IndexStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lock held by another program (here this one: not a dense worker), the state naming
    a worker that is gone."""
    monkeypatch.setattr(dense_worker, "FOREIGN_HOLDER_S", 0.0, raising=False)
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    fd = _held_lock(store)
    try:
        dense_worker.write_state(store, {"pid": gone.pid, "status": "embedding"})
        with pytest.raises(IndexLockedError, match="not by a running dense worker"):
            dense_worker.wait_for(store, None)
    finally:
        os.close(fd)


def test_a_worker_that_reports_progress_is_waited_for(
        store: IndexStore, stuck_worker: int) -> None:
    """With the real bounds: a wait begun a moment ago, or a state the worker wrote a moment
    ago, is no reason to give up; silence past the bound is."""
    now = time.time()
    state = dense_worker.read_state(store)
    state_file = store.directory / dense_worker.WORKER_STATE
    os.utime(state_file, (now, now))
    assert dense_worker.stuck_reason(store, state, now, since=now) is None
    later = now + dense_worker.WORKER_STALL_S + 1
    os.utime(state_file, (later - 1, later - 1))
    assert dense_worker.stuck_reason(store, state, later, since=now) is None
    os.utime(state_file, (now, now))
    reason = dense_worker.stuck_reason(store, state, later, since=now)
    assert reason is not None and f"pid {stuck_worker}" in reason


@pytest.mark.timeout(SAFETY_NET_S)
def test_a_scan_worker_stuck_on_a_batch_does_not_hold_the_build(
        monkeypatch: pytest.MonkeyPatch, store: IndexStore) -> None:
    """`Scanner.close` at the build's end: a worker still on a batch (here one that never
    ends) is stopped, not waited for; the scan cache is saved all the same."""
    monkeypatch.setattr(secret_scan, "CLOSE_WAIT_S", 0.0, raising=False)
    scanner = secret_scan.Scanner(IndexSettings(mask_secrets=True), store.directory)
    pool = ProcessPoolExecutor(1, mp_context=get_context("spawn"))
    scanner._pool = pool
    stuck = pool.submit(time.sleep, 3600)
    while not stuck.running():  # handed to the worker's queue: no longer cancellable
        time.sleep(0.01)
    processes = list(pool._processes.values())
    scanner.mask(digest(b"text"), "text")
    scanner.close()
    assert processes and not any(p.is_alive() for p in processes)
    assert (store.directory / SCAN_CACHE).is_file()  # the cache was saved all the same


@pytest.mark.timeout(SAFETY_NET_S)
def test_a_git_that_hangs_without_printing_is_stopped_at_its_deadline(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The history's `git log` is read as it prints; one that prints nothing and never ends
    (here a stand-in `git` that sleeps) is stopped at the timeout, never waited on."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "git"
    fake.write_text("#!/bin/sh\nexec sleep 3600\n", encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(subprocess.TimeoutExpired):
        list(safegit.stream_git(tmp_path, "log", max_bytes=1 << 20, timeout=0.2))


NO_GUARD_SCRIPT = """\
import os
import sys
from pathlib import Path

from helix.core.config import HelixConfig, IndexSettings
from indexers.build import build_index

here = Path(sys.argv[1])
with open(here / "runs.txt", "a", encoding="utf-8") as handle:
    handle.write(f"{os.getpid()}\\n")
settings = IndexSettings(embed_enabled=False, scan_workers=2, scan_parallel_min_bytes=0)
report = build_index(here / "repo", HelixConfig(index=settings), index_dir=here / "idx")
print(report.secret_scan["workers"], report.files_indexed)
"""


@pytest.mark.timeout(SAFETY_NET_S)
def test_a_script_without_a_main_guard_indexes_once_with_scan_workers(tmp_path: Path) -> None:
    """A script that builds an index at its top level (no `if __name__ == "__main__"`): the
    scan workers, started by `spawn`, ran the script again, and each copy waited for the
    writer lock its parent held while the parent waited for them. They run only the scan."""
    write_repo(tmp_path / "repo")
    for n in range(12):  # enough bytes in several files for the workers to get batches
        body = "".join(f"def f_{n}_{k}(x):\n    return x + {k}\n\n" for k in range(300))
        (tmp_path / "repo" / f"gen_{n}.py").write_text(body, encoding="utf-8")
    script = tmp_path / "index_at_top_level.py"
    script.write_text(NO_GUARD_SCRIPT, encoding="utf-8")
    code_root = Path(dense_worker.__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(code_root), "HELIX_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, str(script), str(tmp_path)], env=env,
                          capture_output=True, text=True, timeout=SAFETY_NET_S - 10,
                          check=False)
    assert done.returncode == 0, done.stderr
    workers, files = done.stdout.split()
    assert int(workers) >= 1 and int(files) >= 12  # the workers did start
    runs = (tmp_path / "runs.txt").read_text("utf-8").split()
    assert len(runs) == 1, done.stderr  # the top level ran in this process only
