"""The background dense worker: embeds the cards a lexical-first build left without vectors.

`helix ask` on a new repository answers from the lexical index at once (`indexers.build`,
`dense="background"`) and starts this worker, a process of its own:

    python -P -m indexers.dense_worker --root R --index-dir D --lock-fd N --settings JSON

(`-P`, and the index directory as working directory: nothing of the repository is ever on its
import path.) It runs in a new session (it outlives the asking process and its terminal), at a
lower CPU priority, takes the index's writer lock and runs `indexers.build_dense.complete_dense`:
the missing vectors in priority order (docs and documented public definitions first) into the
shared embedding cache, a new generation published every `index.dense_publish_vectors` vectors
or `dense_publish_seconds` seconds. Each later question uses whatever vectors exist.

Files in the index directory (all Helix's own; see `indexers.store`):

    worker.lock    held (flock) by the worker for its whole life: it is running iff the lock
                   is held. The asker takes it before starting the worker and hands the locked
                   descriptor to the child, so two asks never start two workers.
    worker.json    its state, written atomically after every batch: pid, status, vectors,
                   total, computed, rate (vectors/s), eta_s, published, error
    worker.log     its standard output and error
    worker.paused  `helix index --stop` stopped it: asks do not restart it (any
                   `helix index` removes this, finishing the vectors itself or, with
                   --background, in a new worker)
    worker.refresh an ask found files changed while the worker held the lock (it answered
                   from the current generation, without waiting): the worker publishes
                   what it has and exits at its next batch, so the next ask refreshes the
                   lexical index (the vectors stay cached) and starts a new worker

Stopped (SIGTERM: `stop`) it publishes what it has and exits; killed at any point the current
generation stays whole (generations are only ever switched atomically) and the vectors it
computed stay in the cache: the next worker (or `helix index`) resumes there.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from helix.core.config import HelixConfig, IndexSettings
from helix.core.errors import HelixError, IndexLockedError
from indexers.store import IndexStore

WORKER_LOCK = "worker.lock"
WORKER_STATE = "worker.json"
WORKER_LOG = "worker.log"
WORKER_PAUSED = "worker.paused"
WORKER_REFRESH = "worker.refresh"
# The worker waits this long for the writer lock (the asker that started it releases it in
# a moment; a `helix index` of the same repository may hold it longer).
LOCK_WAIT_S = 120.0
NICENESS = 10  # the worker yields the CPU to what the user runs in the foreground
STOP_WAIT_S = 60.0
POLL_S = 0.25
# A caller waiting for the worker gives up (a one-line error, never a wait without end) when
# its state file has not changed for this long: the worker writes it after every batch of
# WORKER_BATCH texts, and before its first batch only loads (or exports) the model.
WORKER_STALL_S = 600.0
# ... or sooner when the worker lock is held by no live worker (the state's pid is gone, or
# another program's) and the state file is this old: `start` writes the pid just after the
# child starts, so a younger file may still name the previous worker.
FOREIGN_HOLDER_S = 30.0
_SPAWNED: list[subprocess.Popen[bytes]] = []  # kept: reaped by the interpreter, no warning


def _path(store: IndexStore, name: str) -> Path:
    return store.directory / name


def read_state(store: IndexStore) -> dict[str, Any]:
    """The last state the worker wrote ({} without one, or unreadable)."""
    try:
        data = orjson.loads(_path(store, WORKER_STATE).read_bytes())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_state(store: IndexStore, state: dict[str, Any]) -> None:
    """Atomic (a reader sees the old state or the new one); a failure only loses an update."""
    tmp = _path(store, f"{WORKER_STATE}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        tmp.write_bytes(orjson.dumps(state, option=orjson.OPT_SORT_KEYS))
        os.replace(tmp, _path(store, WORKER_STATE))
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()


def _try_lock(path: Path, create: bool) -> int | None:
    """A descriptor holding an exclusive flock on `path`; None when another holds it (or,
    without `create`, when the file does not exist)."""
    import fcntl

    try:
        fd = os.open(path, os.O_RDWR | (os.O_CREAT if create else 0), 0o644)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def running(store: IndexStore) -> bool:
    """A worker holds the worker lock of this index directory."""
    if sys.platform == "win32" or not store.owned():
        return False
    path = _path(store, WORKER_LOCK)
    if not path.exists():
        return False
    fd = _try_lock(path, create=False)
    if fd is None:
        return path.exists()
    os.close(fd)  # closing releases it
    return False


def running_pid(store: IndexStore) -> int | None:
    if not running(store):
        return None
    pid = read_state(store).get("pid")
    return pid if isinstance(pid, int) else None


def paused(store: IndexStore) -> bool:
    return _path(store, WORKER_PAUSED).exists()


def clear_pause(store: IndexStore) -> None:
    if store.owned():
        with contextlib.suppress(OSError):
            _path(store, WORKER_PAUSED).unlink()


def request_refresh(store: IndexStore) -> None:
    """Ask a running worker to make way for a lexical refresh (see WORKER_REFRESH)."""
    if store.owned():
        with contextlib.suppress(OSError):
            _path(store, WORKER_REFRESH).write_text("files changed\n", "utf-8")


def _refresh_wanted(store: IndexStore) -> bool:
    return _path(store, WORKER_REFRESH).exists()


def status(store: IndexStore) -> dict[str, Any] | None:
    """What `helix status` shows of the worker; None when none ever ran here."""
    state = read_state(store)
    if not state and not paused(store):
        return None
    keys = ("pid", "status", "vectors", "total", "computed", "rate", "eta_s", "published",
            "error", "started", "updated")
    return {**{k: state.get(k) for k in keys}, "running": running(store),
            "paused": paused(store)}


def start(store: IndexStore, root: Path, config: HelixConfig) -> int | None:
    """Start a worker for this index; its pid. None when one runs already, when the user
    stopped it (`worker.paused`), when the last one failed on this very generation (its error
    is in `helix status`), or where processes cannot be started this way (not POSIX)."""
    if sys.platform == "win32" or not store.owned() or paused(store):
        return None
    state = read_state(store)
    try:
        current = store.current_dir()
    except HelixError:
        return None
    if state.get("status") == "failed" and current is not None and (
            state.get("generation") == current.name):
        return None
    fd = _try_lock(_path(store, WORKER_LOCK), create=True)
    if fd is None:
        return None  # a worker holds it: never a second one
    try:
        command = [sys.executable, "-P", "-m", "indexers.dense_worker", "--root", str(root),
                   "--index-dir", str(store.directory), "--lock-fd", str(fd),
                   "--settings", config.index.model_dump_json()]
        with open(_path(store, WORKER_LOG), "wb") as log:
            process = subprocess.Popen(
                command, pass_fds=(fd,), start_new_session=True, stdin=subprocess.DEVNULL,
                stdout=log, stderr=subprocess.STDOUT, cwd=store.directory)
    finally:
        os.close(fd)  # the child holds the lock now (same open file description)
    _SPAWNED.append(process)
    write_state(store, {"pid": process.pid, "status": "starting", "started": time.time(),
                        "root": str(root)})
    return process.pid


def wait_for(store: IndexStore, progress: Callable[[str, int, int], None] | None,
             now: Callable[[], float] = time.time) -> None:
    """Block while a worker runs, reporting its progress as the "embed" stage. A worker that
    stopped making progress, or a worker lock no live worker holds, is an IndexLockedError
    (`stuck_reason`), never a wait without end."""
    since = now()
    while running(store):
        state = read_state(store)
        if progress is not None and isinstance(state.get("total"), int):
            progress("embed", int(state.get("vectors") or 0), state["total"])
        reason = stuck_reason(store, state, now(), since)
        if reason is not None and running(store):
            raise IndexLockedError(reason)
        time.sleep(POLL_S)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):  # gone, or another user's: not ours
        return False
    return True


def stuck_reason(store: IndexStore, state: dict[str, Any], now: float,
                 since: float) -> str | None:
    """Why the holder of the worker lock is not waited for any longer, else None. `since`:
    when the caller began waiting. Silence is the time since the later of that and the
    state file's last change; past FOREIGN_HOLDER_S with no live dense worker behind the
    lock, or past WORKER_STALL_S with one, the wait ends."""
    try:
        changed = _path(store, WORKER_STATE).stat().st_mtime
    except OSError:
        changed = since
    silent = now - max(changed, since)
    pid = state.get("pid")
    lock = _path(store, WORKER_LOCK)
    if not (isinstance(pid, int) and pid > 0 and _alive(pid) and _is_worker(pid)):
        if silent < FOREIGN_HOLDER_S:
            return None
        return (f"the dense worker lock {lock} is held, but not by a running dense worker "
                f"(pid {pid} is not one); end the process that holds it (`fuser {lock}`) "
                "and run again")
    if silent < WORKER_STALL_S:
        return None
    return (f"the dense worker (pid {pid}) has reported no progress for {silent:.0f} s: it "
            f"looks stuck; stop it (`helix index --stop`, or kill {pid}) and run again")


def _is_worker(pid: int) -> bool:
    """The process is a dense worker (Linux: its command line says so; elsewhere trusted)."""
    cmdline = Path(f"/proc/{pid}/cmdline")
    if not Path("/proc").is_dir():
        return True
    try:
        return b"indexers.dense_worker" in cmdline.read_bytes()
    except OSError:
        return False


def stop(store: IndexStore, wait_s: float = STOP_WAIT_S) -> dict[str, Any]:
    """Stop the worker (it publishes what it has, then exits) and keep asks from starting
    another (`worker.paused`). Returns {"stopped": pid or None, "state": last state}."""
    if not store.owned():
        return {"stopped": None, "state": {}}
    pid = running_pid(store)
    _path(store, WORKER_PAUSED).write_text("stopped by helix index --stop\n", "utf-8")
    if pid is not None and _is_worker(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + wait_s
        while running(store) and time.monotonic() < deadline:
            time.sleep(POLL_S)
        state = read_state(store)
        if not running(store) and state.get("status") in ("starting", "embedding",
                                                         "waiting for the index lock"):
            # ended before it could say so (the signal came while it was starting)
            write_state(store, {**state, "status": "stopped", "updated": time.time()})
    else:
        pid = None
    return {"stopped": pid, "state": read_state(store)}


@contextlib.contextmanager
def _writer_lock(store: IndexStore, wait_s: float,
                 should_stop: Callable[[], bool]) -> Iterator[None]:
    """The index's writer lock, waited for in short steps so a stop request is heard."""
    deadline = time.monotonic() + wait_s
    with contextlib.ExitStack() as held:
        while True:
            try:
                held.enter_context(store.locked(timeout=min(1.0, wait_s)))
                break
            except IndexLockedError:
                if should_stop():
                    break  # the caller sees the stop before touching the index
                if time.monotonic() >= deadline:
                    raise
        yield


def run(root: Path, store: IndexStore, config: HelixConfig, *,
        should_stop: Callable[[], bool], embedder: Any = None,
        lock_wait_s: float = LOCK_WAIT_S) -> dict[str, Any]:
    """The worker's work (in this process): the writer lock, then `complete_dense`, the
    state file kept up to date. Returns the final state (status done / stopped / failed)."""
    from indexers.build_dense import complete_dense

    state: dict[str, Any] = {"pid": os.getpid(), "status": "waiting for the index lock",
                             "started": time.time(), "root": str(root)}
    write_state(store, state)
    with contextlib.suppress(OSError):
        _path(store, WORKER_REFRESH).unlink()  # a request to an earlier worker: served
    asked = should_stop

    def stop_or_refresh() -> bool:
        return asked() or _refresh_wanted(store)

    def on_batch(info: dict[str, Any]) -> None:
        state.update(info, status="embedding", updated=time.time())
        write_state(store, state)

    try:
        with _writer_lock(store, lock_wait_s, stop_or_refresh):
            if stop_or_refresh():
                state.update(status="stopped", updated=time.time())
                write_state(store, state)
                return state
            current = store.current_dir()
            state.update(status="embedding", generation=current.name if current else None)
            write_state(store, state)
            final = complete_dense(store, root, config, embedder=embedder,
                                   should_stop=stop_or_refresh, on_batch=on_batch)
    except Exception as exc:  # recorded for `helix status`; the generation stays whole
        error = str(exc) if isinstance(exc, HelixError | OSError) else (
            f"internal error: {type(exc).__name__}: {exc}")
        current = None
        with contextlib.suppress(HelixError, OSError):
            current = store.current_dir() if store.owned() else None
        state.update(status="failed", error=error, updated=time.time(),
                     generation=current.name if current else None)
        write_state(store, state)
        return state
    complete = final is None or final["complete"]
    if final is not None:
        state.update(vectors=final["vectors"], total=final["total"],
                     published=final["vectors"])
    refresh = not complete and not asked() and _refresh_wanted(store)
    status_now = "done" if complete else ("made way for a refresh" if refresh else "stopped")
    state.update(status=status_now, updated=time.time(), eta_s=None)
    write_state(store, state)
    with contextlib.suppress(OSError):
        _path(store, WORKER_REFRESH).unlink()
    return state


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -P -m indexers.dense_worker")
    parser.add_argument("--root", required=True)
    parser.add_argument("--index-dir", required=True)
    parser.add_argument("--lock-fd", type=int, required=True)
    parser.add_argument("--settings", required=True, help="the index settings, as JSON")
    args = parser.parse_args(argv)
    lock_fd = args.lock_fd  # held open for the whole run: the worker lock
    with contextlib.suppress(OSError, AttributeError):
        os.nice(NICENESS)
    stopping = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stopping.set())
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # the asking terminal closing is no reason
    config = HelixConfig(index=IndexSettings.model_validate_json(args.settings))
    store = IndexStore(Path(args.index_dir))
    try:
        final = run(Path(args.root), store, config, should_stop=stopping.is_set)
    finally:
        os.close(lock_fd)
    if final.get("error"):
        print(f"helix dense worker: {final['error']}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
