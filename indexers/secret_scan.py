"""The secret scan of the files a build reads: cached by content, spread over processes.

Every file's text is masked before anything is derived from it (`WalkedFile.read` calls
`Scanner.mask`). The scan (`helix.core.secrets.find_secrets`, a black box here) costs more
than the parse on data files, so a build

- looks each file's findings up by the content hash of its bytes in the scan cache
  (`indexers.scan_cache`: kept between builds, keyed by the detector's digest) and scans only
  the bytes it never saw;
- has worker processes read and scan those files in path order, ahead of the parse that
  consumes them (`index.scan_workers`, default one per CPU but the one this process parses
  on, up to `index.scan_workers_max`; only when they hold `index.scan_parallel_min_bytes` or
  more, since a process costs ~0.5 s of CPU to start). The indexing process never waits for
  a worker: a file whose batch is not done when the parse reaches it (a worker still
  starting, or behind) is scanned where it is read, the batch taken back when no worker has
  begun it; so is a file whose bytes changed after a worker read them, or whose worker died.
  A finding depends only on the text, so the index is the same whoever scanned it (a file
  scanned twice, here and by a worker, keeps the first findings: the same).

Workers are started with `spawn` (never `fork`: a server indexes from a thread, and a forked
child would inherit locks other threads hold). They get paths already checked by the walk and
open them as the walk does (regular files, no link followed, at most `max_file_bytes`).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import types
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from multiprocessing.connection import wait
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from helix.core.config import IndexSettings
from helix.core.hashing import digest
from helix.core.secrets import REDACTED, find_secrets
from indexers.scan_cache import ScanCache, Spans
from indexers.version import detector_digest
from indexers.walked_file import WalkedFile, read_bytes

# A batch sent to a worker: files in path order up to this many bytes or files (one task per
# file would cost more in messages than small files cost to scan).
BATCH_BYTES = 256 * 1024
BATCH_FILES = 64
# At the build's end a batch a worker is still on is waited for this long, then stopped.
CLOSE_WAIT_S = 10.0
KILL_WAIT_S = 5.0

# (walk's content hash, resolved path, byte limit) -> (walk's hash, hash of what was read or
# None when it could not be read as the walk did, spans)
Job = tuple[str, str, int]
Result = tuple[str, str | None, Spans]


def scan(text: str) -> Spans:
    """The spans `find_secrets` finds in `text` (the one call of the detector; tests count
    calls here)."""
    return tuple((f[0], f[1], f[2]) for f in find_secrets(text)) if text else ()


def mask(text: str, spans: Spans) -> str:
    """`text` with each span replaced as `helix.core.secrets.redact_text` does
    (`[REDACTED:<kind>]`, the span's newlines kept so line numbers stay true)."""
    if not spans:
        return text
    parts: list[str] = []
    at = 0
    for start, end, kind in spans:
        parts += [text[at:start], REDACTED.format(kind=kind) + "\n" * text.count("\n", start, end)]
        at = end
    parts.append(text[at:])
    return "".join(parts)


def scan_batch(jobs: Sequence[Job]) -> list[Result]:
    """A worker's task: read and scan each file (the walk's rules for opening it)."""
    out: list[Result] = []
    for expected, target, limit in jobs:
        try:
            raw = read_bytes(target, limit + 1, follow=False)
        except (OSError, ValueError):
            out.append((expected, None, ()))
            continue
        if len(raw) > limit:
            out.append((expected, None, ()))
            continue
        out.append((expected, digest(raw), scan(raw.decode("utf-8", errors="replace"))))
    return out


@contextlib.contextmanager
def main_hidden() -> Iterator[None]:
    """While workers start: `spawn` runs the parent's main script (or module) again in each
    worker before its task. A script that imports Helix without a `__main__` guard would
    index again there and wait for the writer lock its parent holds, while the parent waited
    for the worker (a build that never ended); the workers need only this module, so they are
    told of no main module at all."""
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is not None:
            sys.modules["__main__"] = main


def stop_pool(pool: ProcessPoolExecutor, wait_s: float) -> None:
    """Stop the workers: batches none began are dropped; one a worker is still on is waited
    for at most `wait_s` seconds (its findings are not needed: every file the build read was
    masked where it was read), then its process is terminated. A worker stuck on a file never
    holds the build (it did: `shutdown(wait=True)` waited for it without end)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # CPython's own
    manager = getattr(pool, "_executor_manager_thread", None)  # (shutdown forgets it)
    pool.shutdown(wait=False, cancel_futures=True)
    running = _running(processes, wait_s)
    for process in running:
        process.terminate()
    running = _running(running, KILL_WAIT_S)
    for process in running:
        process.kill()
    _running(running, KILL_WAIT_S)
    if manager is not None:  # the pool's manager thread reaps the ended workers: let it finish
        manager.join(KILL_WAIT_S)
    for process in processes:  # (reaped: at once; one the manager left, here)
        process.join(KILL_WAIT_S)


def _running(processes: Sequence[BaseProcess], wait_s: float) -> list[BaseProcess]:
    """The processes still running after up to `wait_s` seconds, read from their sentinels
    (which close as each ends), not by `is_alive`: its `waitpid` raced the pool's manager
    thread reaping the same child, and the loser read ECHILD as alive (a stuck worker's process
    seemed alive after `close`, about 1 run in 100 under load)."""
    pending = {process.sentinel: process for process in processes}
    deadline = time.monotonic() + wait_s
    while pending:
        ended = wait(list(pending), max(0.0, deadline - time.monotonic()))
        if not ended:
            break
        pending = {sentinel: p for sentinel, p in pending.items() if sentinel not in ended}
    return list(pending.values())


def worker_count(settings: IndexSettings) -> int:
    """The worker processes to start: `index.scan_workers` (1: none, this process scans), or
    (0) one per CPU this process may use but the one it parses on, capped (none on one CPU:
    a worker there only takes turns with the parse)."""
    if settings.scan_workers:
        return settings.scan_workers if settings.scan_workers > 1 else 0
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(0, min(cpus - 1, settings.scan_workers_max))


def _group(jobs: Sequence[tuple[Job, int]]) -> list[list[Job]]:
    out: list[list[Job]] = []
    size = 0
    for job, nbytes in jobs:
        if not out or size >= BATCH_BYTES or len(out[-1]) >= BATCH_FILES:
            out.append([])
            size = 0
        out[-1].append(job)
        size += nbytes
    return out


class Scanner:
    """Masks the text of the files one build reads. `start` plans the parallel scan of the
    files the build will read; `mask` is called for each as it is read; `close` stops the
    workers and saves the cache."""

    def __init__(self, settings: IndexSettings, cache_dir: Path | None = None) -> None:
        self.settings = settings
        self.enabled = settings.mask_secrets
        self.cache = ScanCache(cache_dir, detector_digest()) if self.enabled else None
        self._pool: ProcessPoolExecutor | None = None
        self._pending: dict[str, Future[list[Result]]] = {}  # content hash -> its batch
        self._batches: dict[Future[list[Result]], list[str]] = {}  # batch -> its hashes
        self._fresh: set[str] = set()  # contents scanned in this build
        self.workers = 0
        self.scanned_here = self.scanned_by_workers = self.cached = 0
        self.waited_s = self.scan_s = 0.0

    def start(self, files: Sequence[WalkedFile]) -> None:
        """Send the files not in the cache (one per content) to workers, when they are worth
        the processes' start-up."""
        if self.cache is None:
            return
        jobs: list[tuple[Job, int]] = []
        seen: set[str] = set()
        for wf in files:
            record = wf.record
            if record.content_hash in seen or self.cache.get(record.content_hash) is not None:
                continue
            seen.add(record.content_hash)
            jobs.append(((record.content_hash, wf.target, wf.limit), record.size))
        workers = worker_count(self.settings)
        if (workers < 1 or len(jobs) < 2
                or sum(n for _, n in jobs) < self.settings.scan_parallel_min_bytes):
            return
        batches = _group(jobs)
        self.workers = min(workers, len(batches))
        self._pool = ProcessPoolExecutor(self.workers, mp_context=get_context("spawn"))
        with main_hidden():  # the workers start in `submit`
            for batch in batches:
                future = self._pool.submit(scan_batch, batch)
                self._batches[future] = [content_hash for content_hash, _, _ in batch]
                for content_hash in self._batches[future]:
                    self._pending[content_hash] = future

    def mask(self, content_hash: str, text: str) -> str:
        """The text of the bytes whose hash is `content_hash`, its secrets masked."""
        if self.cache is None:
            return text
        future = self._pending.get(content_hash)
        if future is not None and future.done():
            self._collect(future)
        elif future is not None and future.cancel():  # no worker began it: scan it here
            for pending in self._batches.pop(future, ()):
                self._pending.pop(pending, None)
        # a batch a worker is on (or will be, once it has started) is not waited for: the
        # file is scanned here, and the batch's findings are kept when it is done
        spans = self.cache.get(content_hash)
        if spans is None:
            started = time.perf_counter()
            spans = scan(text)
            self.scan_s += time.perf_counter() - started
            self.cache.put(content_hash, spans)
            self._fresh.add(content_hash)
            self.scanned_here += 1
        elif content_hash not in self._fresh:
            self.cached += 1
        return mask(text, spans)

    def _collect(self, future: Future[list[Result]]) -> None:
        """Keep what a finished batch found (a dead worker: its files are scanned where
        they are read)."""
        assert self.cache is not None
        started = time.perf_counter()
        try:
            results = future.result()
        except BrokenProcessPool:  # every batch is lost: the rest is scanned here
            results = []
            self._pending.clear()
            self._batches.clear()
        self.waited_s += time.perf_counter() - started
        for pending in self._batches.pop(future, ()):
            self._pending.pop(pending, None)
        for _, found, spans in results:
            if found is not None and found not in self._fresh:
                self.cache.put(found, spans)
                self._fresh.add(found)
                self.scanned_by_workers += 1

    def close(self, current: set[str] | None = None) -> None:
        """Stop the workers (what they had not done is dropped) and save the cache, pruned
        to `current` (the walk's content hashes) and as many older entries."""
        if self._pool is not None:
            stop_pool(self._pool, CLOSE_WAIT_S)
            self._pool = None
        self._pending.clear()
        self._batches.clear()
        if self.cache is not None:
            if current is not None:
                self.cache.prune(current)
            self.cache.save()

    def stats(self) -> dict[str, Any]:
        """What the build's report says of the scan."""
        return {"masked": self.enabled, "scanned": self.scanned_here + self.scanned_by_workers,
                "scanned_by_workers": self.scanned_by_workers, "cached": self.cached,
                "workers": self.workers,
                "seconds": round(self.scan_s + self.waited_s, 4)}

    def __enter__(self) -> Scanner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
