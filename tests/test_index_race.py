"""Two first-time indexers of the same repository: the second waits for the first's build and
reuses it (issue 28: "it holds .helix-index.tmp" and internal errors under an MCP flood)."""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import indexers.store as store_mod
from indexers.store import MARKER, IndexStore
from tests.index_fixtures import write_repo


def test_a_second_claim_waits_for_the_first(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    directory = tmp_path / "index"
    real = store_mod._fsync_write
    at_marker, go = threading.Event(), threading.Event()

    def slow(path: Path, data: bytes) -> None:
        real(path, data)
        if path.name.startswith(MARKER):  # the first claim stops with its marker half made
            at_marker.set()
            go.wait(10)

    monkeypatch.setattr(store_mod, "_fsync_write", slow)
    first = threading.Thread(target=lambda: IndexStore(directory).claim())
    first.start()
    assert at_marker.wait(10)
    errors: list[BaseException] = []

    def second() -> None:
        try:
            IndexStore(directory).claim()
        except BaseException as exc:
            errors.append(exc)

    other = threading.Thread(target=second)
    other.start()
    time.sleep(0.3)
    go.set()
    first.join(10)
    other.join(10)
    assert errors == []
    assert IndexStore(directory).owned()
    assert sorted(p.name for p in directory.iterdir()) == [MARKER]


def _ensure(root: str, home: str, out: Any) -> None:
    import os

    os.environ["HELIX_HOME"] = home
    try:
        from helix.core.config import load_config
        from indexers.build import ensure_index

        config = load_config(Path(root), flags={"index.embed_enabled": False})
        _, report = ensure_index(Path(root), config)
        out.put(("ok", report.index_rev, report.noop))
    except BaseException as exc:
        out.put(("error", f"{type(exc).__name__}: {exc}", None))


def test_first_time_indexers_in_processes_share_one_build(tmp_path: Path,
                                                          helix_home: Path) -> None:
    root = write_repo(tmp_path / "repo")
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    workers = [context.Process(target=_ensure, args=(str(root), str(helix_home), out))
               for _ in range(6)]
    for worker in workers:
        worker.start()
    results = [out.get(timeout=300) for _ in workers]
    for worker in workers:
        worker.join(60)
    assert [r for r in results if r[0] != "ok"] == []
    assert len({r[1] for r in results}) == 1
    assert Counter(r[2] for r in results)[False] == 1  # one build, the others reused it


def test_first_time_indexers_in_threads_share_one_build(tmp_path: Path) -> None:
    from helix.core.config import load_config
    from indexers.build import ensure_index

    root = write_repo(tmp_path / "repo")
    config = load_config(root, flags={"index.embed_enabled": False})
    results: list[tuple[str, Any, Any]] = []

    def one() -> None:
        try:
            _, report = ensure_index(root, config)
            results.append(("ok", report.index_rev, report.noop))
        except BaseException as exc:
            results.append(("error", f"{type(exc).__name__}: {exc}", None))

    threads = [threading.Thread(target=one) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    assert [r for r in results if r[0] != "ok"] == []
    assert len({r[1] for r in results}) == 1
    assert Counter(r[2] for r in results)[False] == 1
